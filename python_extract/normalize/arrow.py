"""Arrow tables yielded by resources: columns renamed with the naming convention, struct columns
flattened to `parent__child`, nested lists stored as JSON text, `_dlt_load_id` and `_dlt_id` added,
and column types recorded in (or cast to) the schema. Rows are not split into child tables. Two
columns whose names normalise alike raise `ColumnNameCollision` (as dlt does for Arrow tables)."""
from __future__ import annotations

from ..contract import ID, LOAD_ID
from .coerce import json_text

from .exceptions import ColumnNameCollision
from .naming import normalize_path, path_name
from .schema import Schema, arrow_type


def _dlt_type(arrow_type_) -> str:
    """The dlt data type of an Arrow type; "" for the null type (a column with no value yet)."""
    import pyarrow.types as t

    for is_type, data_type in (
        (t.is_null, ""), (t.is_boolean, "bool"), (t.is_integer, "bigint"), (t.is_floating, "double"),
        (t.is_decimal, "decimal"), (t.is_timestamp, "timestamp"), (t.is_date, "date"), (t.is_binary, "binary"),
        (t.is_large_binary, "binary"), (t.is_list, "json"), (t.is_large_list, "json"), (t.is_map, "json"),
    ):
        if is_type(arrow_type_):
            return data_type
    return "text"


def _flat_columns(data, table: str):
    """(name, array) pairs with struct columns flattened and names normalised."""
    import pyarrow.types as t

    out, sources = [], {}
    stack = [(normalize_path(f.name), f.name, data.column(i)) for i, f in enumerate(data.schema)]
    while stack:
        name, source, column = stack.pop(0)
        if t.is_struct(column.type):
            # flatten(): each field without copying, null where the struct itself is null
            for field, child in zip(column.type, column.flatten()):
                stack.append((path_name(name, normalize_path(field.name)), f"{source}.{field.name}", child))
            continue
        if name in sources:
            raise ColumnNameCollision(table, name, sources[name], source)
        sources[name] = source
        out.append((name, column))
    return out


def normalize_arrow(data, schema: Schema, table: str, load_id: str):
    import pyarrow as pa

    from .ids import random_ids

    columns = schema.table(table).columns
    names, arrays = [], []
    for name, column in _flat_columns(data, table):
        found = _dlt_type(column.type)
        if not found:
            continue
        if found == "json":
            column = pa.array([None if v is None else json_text(v) for v in column.to_pylist()], pa.string())
        meta = columns.setdefault(name, {"nullable": True})
        known = meta.get("data_type") or found
        meta["data_type"] = known
        names.append(name)
        arrays.append(column.cast(arrow_type(known)))
    schema._types.pop(table, None)
    n = data.num_rows
    for name, values in ((LOAD_ID, pa.repeat(load_id, n)), (ID, random_ids(n))):
        columns.setdefault(name, {"nullable": False})["data_type"] = "text"
        names.append(name)
        arrays.append(values)
    return pa.Table.from_arrays(arrays, names=names)
