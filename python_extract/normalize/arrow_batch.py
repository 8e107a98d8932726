"""The relational normalizer for a batch of items at once, in Arrow: the fast path of the extractor.

Same output as `normalize_item` + `Schema.coerce_row` row by row (the reference path): `parent__child`
columns, child tables `table__field` (lists of lists through `<child>__list`) with `_dlt_parent_id`,
`_dlt_list_idx`, `_dlt_root_id`, `_dlt_id` (random for roots, `child_id(parent, table, idx)` for
children) and `_dlt_load_id` on every row, the same inferred types and ISO-timestamp detection.

Arrow infers a batch's types in C++, but it merges some Python types that dlt keeps apart (an int and a
float make a double; an int and a Decimal a decimal; a date and a datetime a date; bytes and text
binary). Where the first value of a new column decides what dlt does, it is looked up in the items;
whatever cannot be expressed exactly (a type clash that needs a coercion or a variant column, a
collision of names, a user `_dlt_id`, dates and binary, values Arrow rejects) returns None, and the
caller normalizes that batch row by row.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..contract import ID, LIST_IDX, LOAD_ID, PARENT_ID, ROOT_ID
from .arrow import _dlt_type
from .coerce import detect_type, py_type
from .ids import child_ids, random_ids
from .relational import LIST_OF_LISTS, _column
from .schema import Schema, arrow_type
from .naming import path_name

Tables = Dict[str, pa.Table]
Locate = Callable[[int], Any]  # row index of a table -> the Python dict (or scalar) it was built from
_ISO_AWARE = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$"
_ISO_NAIVE = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,6})?$"


class _Fallback(Exception):
    """This batch needs the row-by-row path."""


def normalize_batch(items: List[Any], table: str, load_id: str, schema: Schema,
                    on_table: Callable[[str, str], None]) -> Optional[Tables]:
    """{table: Arrow table} for `items` of root table `table` (registered), children announced with
    `on_table(child, parent)`; None when the batch must be normalized row by row."""
    try:
        struct = pa.array(items)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        return None
    if not pa.types.is_struct(struct.type):
        return None
    out: Tables = {}
    ids = random_ids(len(struct))
    try:
        _normalize(struct, items.__getitem__, table, load_id, schema, on_table, out, ids, ids, None)
    except _Fallback:
        return None
    return out


def _flatten(struct: pa.StructArray, prefix: str, path: Tuple[str, ...], columns: List, lists: List) -> None:
    for field, child in zip(struct.type, struct.flatten()):
        name, keys = _column(prefix, field.name), path + (field.name,)
        if pa.types.is_struct(field.type):
            _flatten(child, name, keys, columns, lists)
        elif pa.types.is_list(field.type) or pa.types.is_large_list(field.type):
            lists.append((name, keys, child))
        elif not pa.types.is_null(field.type):
            columns.append((name, keys, child))


def _get(value: Any, keys: Tuple[str, ...]) -> Any:
    for key in keys:
        value = value[key]
    return value


def _normalize(struct: pa.StructArray, locate: Locate, table: str, load_id: str, schema: Schema,
               on_table: Callable[[str, str], None], out: Tables, ids: pa.Array, root_ids: pa.Array,
               child: Optional[Tuple[pa.Array, pa.Array]]) -> None:
    columns: List[Tuple[str, Tuple[str, ...], pa.Array]] = []
    lists: List[Tuple[str, Tuple[str, ...], pa.Array]] = []
    _flatten(struct, "", (), columns, lists)
    names = [n for n, _, _ in columns] + [n for n, _, _ in lists]
    if len(set(names)) != len(names) or ID in names or any(schema.is_json(table, n) for n in names):
        raise _Fallback()
    n = len(struct)
    typed = [(name, _typed(schema, table, name, array, lambda i, k=keys: _get(locate(i), k)))
             for name, keys, array in columns]
    typed = [(name, array) for name, array in typed if array is not None]
    links = [(PARENT_ID, child[0]), (LIST_IDX, child[1]), (ROOT_ID, root_ids)] if child else []
    links += [(ID, ids), (LOAD_ID, pa.repeat(load_id, n))]
    for name, array in links:
        schema.tables[table].columns.setdefault(name, {"nullable": True})["data_type"] = _dlt_type(array.type)
        typed.append((name, array))
    schema._types.pop(table, None)
    out[table] = pa.Table.from_arrays([a for _, a in typed], names=[n for n, _ in typed])
    for name, keys, values in lists:
        child_table = path_name(table, name)
        on_table(child_table, table)
        lengths = pc.fill_null(pc.list_value_length(values), 0).to_numpy(zero_copy_only=False)
        parents = np.repeat(np.arange(n), lengths)
        starts = np.cumsum(lengths) - lengths
        idx = np.arange(len(parents)) - np.repeat(starts, lengths)
        elements = values.flatten()
        parent_ids = ids.take(pa.array(parents))
        ids_of_children = child_ids(parent_ids, child_table, idx)

        def element(j: int, keys: Tuple[str, ...] = keys, parents: np.ndarray = parents, idx: np.ndarray = idx) -> Any:
            return _get(locate(int(parents[j])), keys)[int(idx[j])]

        if pa.types.is_list(elements.type) or pa.types.is_large_list(elements.type):
            elements = pa.StructArray.from_arrays([elements], names=[LIST_OF_LISTS])
            locate_element: Locate = lambda j, element=element: {LIST_OF_LISTS: element(j)}  # noqa: E731
        elif not pa.types.is_struct(elements.type):
            elements = pa.StructArray.from_arrays([elements], names=["value"])
            locate_element = lambda j, element=element: {"value": element(j)}  # noqa: E731
        else:
            locate_element = element
        _normalize(elements, locate_element, child_table, load_id, schema, on_table, out, ids_of_children,
                   root_ids.take(pa.array(parents)), (parent_ids, pa.array(idx, pa.int64())))


def _first_value(array: pa.Array, value_at: Callable[[int], Any]) -> Any:
    valid = pc.index(pc.is_valid(array), True).as_py()
    return None if valid < 0 else value_at(valid)


def _timestamps(array: pa.Array) -> pa.Array:
    """ISO date-time text as UTC timestamps, when every value has one of the forms Arrow parses as dlt does."""
    ts = arrow_type("timestamp")
    if pc.all(pc.match_substring_regex(array, _ISO_AWARE)).as_py() is not False:
        return pc.cast(array, ts)
    if pc.all(pc.match_substring_regex(array, _ISO_NAIVE)).as_py() is not False:
        return pc.cast(pc.cast(array, pa.timestamp("us")), ts)
    raise _Fallback()


def _typed(schema: Schema, table: str, name: str, array: pa.Array, value_at: Callable[[int], Any]) -> Optional[pa.Array]:
    """`array` cast to the column's type, registering new columns (None for a new column with only
    NULLs: no column yet, as row by row); _Fallback where the row-by-row path would coerce value by
    value, make a variant, or type differently than Arrow merged."""
    found = _dlt_type(array.type)
    if found in ("", "json", "date", "binary") or (found == "text" and not pa.types.is_string(array.type)):
        raise _Fallback()
    meta = schema.tables[table].columns.get(name)
    known = meta.get("data_type") if meta else None
    try:
        if known is None:
            if array.null_count == len(array):
                return None
            meta = schema.tables[table].columns.setdefault(name, {"nullable": True})
            first = _first_value(array, value_at)
            if found in ("double", "decimal") and py_type(first) != found:
                raise _Fallback()  # an int first makes a bigint column in dlt
            if found == "text" and detect_type(first) == "timestamp":
                array, found = _timestamps(array), "timestamp"
            typed = array.cast(arrow_type(found, meta.get("precision"), meta.get("scale")))
            meta["data_type"] = found
            return typed
        if known == found or (known == "double" and found == "bigint") or (known == "decimal" and found == "bigint"):
            return array.cast(arrow_type(known, meta.get("precision"), meta.get("scale")))
        if known == "timestamp" and found == "text":
            return _timestamps(array)
    except (pa.ArrowException, ValueError, KeyError, IndexError, TypeError):
        pass
    raise _Fallback()
