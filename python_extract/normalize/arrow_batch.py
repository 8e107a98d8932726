"""The relational normaliser for a batch of items at once, in Arrow: the fast path of the extractor.

Same output as `normalize_item` + `Schema.coerce_row` row by row (the reference path): `parent__child`
columns, child tables `table__field` with `_dlt_parent_id`, `_dlt_list_idx`, `_dlt_root_id`, `_dlt_id`
(random for roots, `child_id(parent, table, idx)` for children) and `_dlt_load_id` on every row, the
same inferred types and ISO-timestamp detection. Arrow infers the batch's types in C++; whatever it
cannot express as the schema wants (a type clash that needs a variant column, a list of lists, a
user `_dlt_id`, values Arrow rejects) returns None, and the caller normalises that batch row by row.
"""
from __future__ import annotations

import base64
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow import _dlt_type
from .relational import _column, child_id
from .schema import _ISO_TIMESTAMP, Schema, arrow_type, parse_timestamp
from .naming import path_name

Tables = Dict[str, pa.Table]


class _Fallback(Exception):
    """This batch needs the row-by-row path."""


def random_ids(n: int) -> pa.Array:
    """n random 14-character ids (84 random bits each), as `uniq_id` but vectorised."""
    raw = np.frombuffer(base64.b64encode(np.random.bytes(12 * n)), dtype=np.uint8).reshape(n, 16)[:, :14]
    offsets = np.arange(0, 14 * (n + 1), 14, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets.tobytes()), pa.py_buffer(raw.tobytes()))


def normalize_batch(items: List[Any], table: str, load_id: str, schema: Schema,
                    on_table: Callable[[str, str], None]) -> Optional[Tables]:
    """{table: Arrow table} for `items` of root table `table` (registered), children announced with
    `on_table(child, parent)`; None when the batch must be normalised row by row."""
    try:
        struct = pa.array(items)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        return None
    if not pa.types.is_struct(struct.type):
        return None
    out: Tables = {}
    ids = random_ids(len(struct))
    try:
        _normalize(struct, table, load_id, schema, on_table, out, ids, ids, None)
    except _Fallback:
        return None
    return out


def _flatten(struct: pa.StructArray, prefix: str, columns: List, lists: List) -> None:
    for field, child in zip(struct.type, struct.flatten()):
        name = _column(prefix, field.name)
        if pa.types.is_struct(field.type):
            _flatten(child, name, columns, lists)
        elif pa.types.is_list(field.type) or pa.types.is_large_list(field.type):
            lists.append((name, child))
        elif pa.types.is_null(field.type):
            continue
        else:
            columns.append((name, child))


def _normalize(struct: pa.StructArray, table: str, load_id: str, schema: Schema, on_table: Callable[[str, str], None],
               out: Tables, ids: pa.Array, root_ids: pa.Array, child: Optional[Tuple[pa.Array, pa.Array]]) -> None:
    columns: List[Tuple[str, pa.Array]] = []
    lists: List[Tuple[str, pa.Array]] = []
    _flatten(struct, "", columns, lists)
    names = [n for n, _ in columns]
    if len(set(names)) != len(names) or "_dlt_id" in names:
        raise _Fallback()
    n = len(struct)
    if child is not None:
        parent_ids, list_idx = child
        columns += [("_dlt_parent_id", parent_ids), ("_dlt_list_idx", list_idx), ("_dlt_root_id", root_ids)]
    columns += [("_dlt_id", ids), ("_dlt_load_id", pa.array(np.full(n, load_id, dtype=object), pa.string()))]
    typed = [(name, _typed(schema, table, name, array)) for name, array in columns]
    schema._types.pop(table, None)
    out[table] = pa.Table.from_arrays([a for _, a in typed], names=[n for n, _ in typed])
    for name, values in lists:
        child_table = path_name(table, name)
        on_table(child_table, table)
        lengths = pc.fill_null(pc.list_value_length(values), 0).to_numpy(zero_copy_only=False)
        parents = np.repeat(np.arange(n), lengths)
        starts = np.cumsum(lengths) - lengths
        idx = np.arange(len(parents)) - np.repeat(starts, lengths)
        elements = values.flatten()
        if pa.types.is_list(elements.type) or pa.types.is_large_list(elements.type):
            raise _Fallback()
        if not pa.types.is_struct(elements.type):
            elements = pa.StructArray.from_arrays([elements], names=["value"])
        parent_ids = ids.take(pa.array(parents))
        child_ids = pa.array([child_id(p, child_table, int(i)) for p, i in zip(parent_ids.to_pylist(), idx)], pa.string())
        _normalize(elements, child_table, load_id, schema, on_table, out, child_ids, root_ids.take(pa.array(parents)),
                   (parent_ids, pa.array(idx, pa.int64())))


def _typed(schema: Schema, table: str, name: str, array: pa.Array) -> pa.Array:
    """`array` cast to the column's type, registering new columns; _Fallback where the row-by-row
    path would coerce value by value or make a variant."""
    found = _dlt_type(array.type)
    if found in ("", "json"):
        raise _Fallback()
    meta = schema.tables[table].columns.setdefault(name, {"nullable": True})
    known = meta.get("data_type")
    try:
        if known is None:
            if found == "text":
                sample = array.drop_null()
                first = sample[0].as_py() if len(sample) else None
                if first is not None and _ISO_TIMESTAMP.match(first) and parse_timestamp(first) is not None:
                    array, found = pc.cast(array, arrow_type("timestamp")), "timestamp"
            typed = array.cast(arrow_type(found))
            meta["data_type"] = found
            return typed
        if known == found or (known == "double" and found == "bigint") or (known == "timestamp" and found == "text"):
            return array.cast(arrow_type(known))
    except (pa.ArrowException, ValueError):
        pass
    raise _Fallback()
