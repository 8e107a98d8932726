"""Arrow tables yielded by resources, as dlt takes them: columns renamed with the naming convention,
struct, list and map columns kept whole as one `json` column (JSON text; dlt does not flatten an Arrow
table, unlike dicts), `_dlt_load_id` and `_dlt_id` added, and column types recorded in (or cast to)
the schema. Rows are not split into child tables. Two columns whose names normalize alike raise
`ColumnNameCollision` (as dlt does for Arrow tables)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Tuple

from ..contract import DATA_TYPES, ID, LOAD_ID
from .coerce import json_text

from .exceptions import ArrowColumnDoesNotFit, ColumnNameCollision
from .naming import normalize_path
from .schema import Schema, arrow_type


def _dlt_type(arrow_type_) -> str:
    """The dlt data type of an Arrow type: that of the contract's Arrow type of its family (`_families`); json for
    a struct, list or map (kept whole as JSON text); "" for the null type (a column with no value yet); else text.

    >>> import pyarrow as pa
    >>> [_dlt_type(x) for x in (pa.int16(), pa.float32(), pa.timestamp("ns"), pa.list_(pa.int64()), pa.string())]
    ['bigint', 'double', 'timestamp', 'json', 'text']
    """
    import pyarrow.types as t

    if t.is_null(arrow_type_):
        return ""
    if any(is_nested(arrow_type_) for is_nested in (t.is_struct, t.is_list, t.is_large_list, t.is_map)):
        return "json"
    return next((data_type for is_family, data_type in _families() if is_family(arrow_type_)), "text")


@functools.lru_cache(maxsize=None)
def _families() -> Tuple[Tuple[Callable[[Any], bool], str], ...]:
    """(predicate, dlt data type) of each Arrow family a column takes as a typed value (any width of an integer or
    a float, any unit or zone of a timestamp, date32 and date64, binary and large binary), the data type being the
    one whose Arrow type in the contract's map (schema.arrow_type) is of the family."""
    import pyarrow.types as t

    families = (t.is_boolean, t.is_integer, t.is_floating, t.is_decimal, t.is_timestamp, t.is_date,
                lambda x: t.is_binary(x) or t.is_large_binary(x))
    found = []
    for is_family in families:
        (data_type,) = [d for d in DATA_TYPES if is_family(arrow_type(d))]  # one data type per family
        found.append((is_family, data_type))
    return tuple(found)


def _arrow_size(arrow_type_) -> dict:
    """The precision and scale dlt records for a column of this Arrow type: an integer's bits when not 64, a
    decimal's precision and scale; none for other types."""
    import pyarrow.types as t

    if t.is_integer(arrow_type_) and arrow_type_.bit_width != 64:
        return {"precision": arrow_type_.bit_width}
    if t.is_decimal(arrow_type_):
        return {"precision": arrow_type_.precision, "scale": arrow_type_.scale}
    return {}


def _plain(arrow_type_) -> bool:
    """A struct whose leaves are strings, numbers, booleans or nulls: its JSON text is the same from polars'
    encoder as from `json_text` (compact, fields in order, NaN and infinities as null, floats with a
    fraction), so the encoder may write it."""
    import pyarrow.types as t

    if t.is_struct(arrow_type_):
        return arrow_type_.num_fields > 0 and all(_plain(field.type) for field in arrow_type_)
    return any(is_type(arrow_type_) for is_type in (
        t.is_string, t.is_large_string, t.is_integer, t.is_floating, t.is_boolean, t.is_null))


def _json_column(column):
    """A struct, list or map column as JSON text, NULL where the value is NULL."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _plain(column.type) and pa.types.is_struct(column.type):
        import polars as pl  # only here: an encoder of whole columns, 7x the row-by-row path

        text = pl.from_arrow(column).struct.json_encode().to_arrow().cast(pa.string())
        return pc.if_else(pc.is_valid(column), text, pa.scalar(None, pa.string())) if column.null_count else text
    # a map is a JSON object, as dlt's destinations write it (to_pylist alone gives a list of pairs)
    values = column.to_pylist(maps_as_pydicts="lossy")
    return pa.array([None if v is None else json_text(v) for v in values], pa.string())


def _named_columns(data, table: str):
    """(name, array) pairs with names normalized."""
    out, sources = [], {}
    for i, field in enumerate(data.schema):
        name = normalize_path(field.name)
        if name in sources:
            raise ColumnNameCollision(table, name, sources[name], field.name)
        sources[name] = field.name
        out.append((name, data.column(i)))
    return out


def _nested(arrow_type_) -> bool:
    """A struct, list or map: the Arrow types whose dlt type is json (_dlt_type)."""
    return _dlt_type(arrow_type_) == "json"


def encode_nested(data):
    """`data` with its struct, list and map columns as JSON text (normalize_arrow's `encode=False` left them
    for this); the same table when it has none."""
    import pyarrow as pa

    nested = [i for i, f in enumerate(data.schema) if _nested(f.type)]
    for i in nested:
        data = data.set_column(i, pa.field(data.schema.field(i).name, pa.string()), _json_column(data.column(i)))
    return data


def normalize_arrow(data, schema: Schema, table: str, load_id: str, encode: bool = True):
    """`data` renamed, typed as `schema` says (which records new columns) and stamped. With `encode=False`
    the struct, list and map columns are left as they are, typed `json` in the schema, for the package
    writer's threads to encode (`encode_nested`) beside the next batch's normalization."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .ids import random_ids

    columns = schema.table(table).columns
    names, arrays = [], []
    for name, column in _named_columns(data, table):
        found = _dlt_type(column.type)
        if not found:
            continue
        source_type = column.type
        if found == "json" and not encode:
            known = columns.get(name, {}).get("data_type") or found
            if known not in ("json", "text"):
                raise ArrowColumnDoesNotFit(table, name, source_type, known, TypeError("JSON text is not " + known))
            columns.setdefault(name, {"nullable": True})["data_type"] = known
            names.append(name)
            arrays.append(column)
            continue
        if found == "json":
            column = _json_column(column)
        elif pa.types.is_time(column.type):  # text in its ISO form, as a datetime.time item gives (coerce.py)
            column = pa.array([None if v is None else v.isoformat() for v in column.to_pylist()], pa.string())
        meta = columns.get(name) or {}
        known = meta.get("data_type") or found
        # a new column takes its size from the Arrow type, as dlt records it; hints or an earlier load win
        size = {**(_arrow_size(source_type) if known == found and not meta.get("data_type") else {}),
                **{k: meta[k] for k in ("precision", "scale") if meta.get(k) is not None}}
        try:
            target = arrow_type(known, size.get("precision"), size.get("scale"))
            if pa.types.is_decimal(column.type) and pa.types.is_decimal(target) and column.type.scale > target.scale:
                column = pc.round(column, ndigits=target.scale, round_mode="half_towards_infinity")  # as dlt's destinations
            cast = column.cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OverflowError, ValueError) as e:
            sized = f"{known} precision {size['precision']}" if size.get("precision") is not None else known
            raise ArrowColumnDoesNotFit(table, name, source_type, sized + (f" scale {size['scale']}" if size.get("scale") is not None else ""), e) from e
        columns.setdefault(name, {"nullable": True}).update(data_type=known, **size)  # recorded once the values fit
        names.append(name)
        arrays.append(cast)
    schema._types.pop(table, None)
    n = data.num_rows
    for name, values in ((LOAD_ID, pa.repeat(load_id, n)), (ID, random_ids(n))):
        columns.setdefault(name, {"nullable": False})["data_type"] = "text"
        names.append(name)
        arrays.append(values)
    return pa.Table.from_arrays(arrays, names=names)
