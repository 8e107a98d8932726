"""dlt's relational normaliser: one nested item becomes rows of a root table and its child tables.

- nested dicts flatten into the parent row as `parent__child` columns;
- lists become child tables `table__field`, one row per element, linked by `_dlt_parent_id`
  (the parent row's `_dlt_id`), `_dlt_list_idx` and `_dlt_root_id`; a list of scalars gives a `value`
  column;
- every row carries `_dlt_load_id` (children too, a deliberate deviation from dlt: the dbt side
  filters every table by load) and a unique `_dlt_id`: random for root rows, derived from
  (parent id, table, index) for child rows, so normalising the same item twice links the same children;
- past `max_nesting` levels the remaining structure stays a dict or list, typed `json` by the schema.

Yields `(table, row)` with parent rows before their children.
"""
from __future__ import annotations

import base64
import hashlib
import os
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .naming import normalize_identifier, path_name

Row = Dict[str, Any]
_names: Dict[Tuple[str, str], str] = {}


def uniq_id() -> str:
    """A random 14-character id, as dlt's `_dlt_id` of root rows."""
    return base64.b64encode(os.urandom(10)).decode("ascii")[:14]


def child_id(parent_id: str, table: str, idx: int) -> str:
    digest = hashlib.blake2b(f"{parent_id}_{table}_{idx}".encode(), digest_size=10).digest()
    return base64.b64encode(digest).decode("ascii")[:14]


def _column(prefix: str, key: str) -> str:
    name = _names.get((prefix, key))
    if name is None:
        name = normalize_identifier(key)
        name = _names[(prefix, key)] = path_name(prefix, name) if prefix else name
    return name


def _flatten(item: Dict[str, Any], prefix: str, depth: int, max_nesting: Optional[int], row: Row, lists: List) -> None:
    nest = max_nesting is None or depth < max_nesting
    names = _names
    for key, value in item.items():
        name = names.get((prefix, key)) or _column(prefix, key)
        if nest and type(value) is dict:
            _flatten(value, name, depth + 1, max_nesting, row, lists)
        elif nest and type(value) in (list, tuple):
            lists.append((name, value))
        else:
            row[name] = value


def normalize_item(
    item: Any,
    table: str,
    load_id: str,
    max_nesting: Optional[int] = None,
    *,
    _parent: Optional[Tuple[str, str, int]] = None,
    _depth: int = 0,
) -> Iterator[Tuple[str, Row]]:
    """Rows of `item` for `table` and its child tables.

    >>> [t for t, _ in normalize_item({"id": 1, "tags": ["a", "b"]}, "items", "1.0")]
    ['items', 'items__tags', 'items__tags']
    """
    row: Row = {}
    lists: list = []
    if isinstance(item, dict):
        _flatten(item, "", _depth, max_nesting, row, lists)
    else:
        row["value"] = item
    if _parent is None:
        row_id = row.get("_dlt_id") or uniq_id()
        root_id = row_id
    else:
        parent_id, root_id, idx = _parent
        row_id = child_id(parent_id, table, idx)
        row["_dlt_parent_id"] = parent_id
        row["_dlt_list_idx"] = idx
        row["_dlt_root_id"] = root_id
    row["_dlt_id"] = row_id
    row["_dlt_load_id"] = load_id
    yield table, row
    for name, values in lists:
        child_table = path_name(table, name)
        for idx, element in enumerate(values):
            yield from normalize_item(
                element, child_table, load_id, max_nesting, _parent=(row_id, root_id, idx), _depth=_depth + 1,
            )
