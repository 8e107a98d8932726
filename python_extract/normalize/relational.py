"""dlt's relational normaliser: one nested item becomes rows of a root table and its child tables.

- nested dicts flatten into the parent row as `parent__child` columns;
- lists become child tables `table__field`, one row per element, linked by `_dlt_parent_id`
  (the parent row's `_dlt_id`), `_dlt_list_idx` and `_dlt_root_id`; a list of scalars gives a `value`
  column;
- every row carries `_dlt_load_id` (children too, so each table can be filtered by load) and a
  unique `_dlt_id`: random for root rows, derived from (parent id, table, index) for child rows so that
  normalising the same item twice links the same children;
- past `max_nesting` levels, the remaining structure is stored as a JSON string.

Yields `(table, row)` with parent rows before their children.
"""
from __future__ import annotations

import base64
import hashlib
import json
import secrets
from typing import Any, Dict, Iterator, Optional, Tuple

from .naming import normalize_identifier, path_name

Row = Dict[str, Any]


def uniq_id() -> str:
    """A random 14-character id, as dlt's `_dlt_id` of root rows."""
    return base64.b64encode(secrets.token_bytes(10)).decode("ascii")[:14]


def child_id(parent_id: str, table: str, idx: int) -> str:
    digest = hashlib.blake2b(f"{parent_id}_{table}_{idx}".encode(), digest_size=10).digest()
    return base64.b64encode(digest).decode("ascii")[:14]


def _flatten(item: Dict[str, Any], prefix: str, depth: int, max_nesting: Optional[int], row: Row, lists: list) -> None:
    for key, value in item.items():
        name = path_name(prefix, normalize_identifier(key)) if prefix else normalize_identifier(key)
        too_deep = max_nesting is not None and depth >= max_nesting
        if isinstance(value, dict) and not too_deep:
            _flatten(value, name, depth + 1, max_nesting, row, lists)
        elif isinstance(value, (list, tuple)) and not too_deep:
            lists.append((name, value))
        elif isinstance(value, (dict, list, tuple)):
            row[name] = json.dumps(value, default=str, sort_keys=True)
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
        row["_dlt_id"] = row.get("_dlt_id") or uniq_id()
    else:
        parent_id, root_id, idx = _parent
        row["_dlt_id"] = child_id(parent_id, table, idx)
        row["_dlt_parent_id"] = parent_id
        row["_dlt_list_idx"] = idx
        row["_dlt_root_id"] = root_id
    row["_dlt_load_id"] = load_id
    yield table, row
    root_id = row.get("_dlt_root_id") or row["_dlt_id"]
    for name, values in lists:
        child_table = path_name(table, name)
        for idx, element in enumerate(values):
            yield from normalize_item(
                element, child_table, load_id, max_nesting,
                _parent=(row["_dlt_id"], root_id, idx), _depth=_depth + 1,
            )
