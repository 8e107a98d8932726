"""dlt's relational normalizer: one nested item becomes rows of a root table and its child tables.

- an item that is not a dict is wrapped as `{"value": item}` (dlt);
- nested dicts flatten into the parent row as `parent__child` columns; keys are normalized as paths,
  so the key `a__b` and `{"a": {"b": ...}}` name the same column `a__b`;
- lists become child tables `table__field`, one row per element, linked by `_dlt_parent_id` (the parent
  row's `_dlt_id`), `_dlt_list_idx` and `_dlt_root_id`: a dict element is a row, a scalar a row with a
  `value` column, a list element a row of its own whose values go to the table `<child>__list`
  (dlt's lists of lists: `{"m": [[1, 2], [3]]}` gives `t__m` with two rows and `t__m__list` with three);
- every row carries `_dlt_load_id` (children too, a deliberate deviation from dlt: the dbt side
  filters every table by load) and a unique `_dlt_id`: random for root rows, derived from
  (parent id, table, index) for child rows, so normalizing the same item twice links the same children;
- nesting stops after `max_nesting` levels (counted as dlt counts them: a list of lists costs a level
  more) and at columns typed `json`: what remains stays a dict or list, typed `json`.

Two keys of one dict that normalize to the same column (`id` and `ID`, `a_b` and `aB`, `x__y` and
`{"x": {"y"}}`) raise `ColumnNameCollision`: dlt keeps one of the values silently (on purpose, we don't).

Yields `(table, row)` with parent rows before their children.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Dict, Iterator, Optional, Tuple

from ..contract import ID, LIST_IDX, LOAD_ID, PARENT_ID, ROOT_ID
from .exceptions import ColumnNameCollision
from .ids import child_id, uniq_id
from .naming import normalize_path, path_name

Row = Dict[str, Any]
IsJson = Callable[[str, str], bool]
DEFAULT_NESTING = 1000
LIST_OF_LISTS = "list"
NAME_CACHE = 65536  # column names remembered: items with ever-new keys must not grow memory without end


@lru_cache(maxsize=NAME_CACHE)
def _column(prefix: str, key: str) -> str:
    """The column of `key` in a dict flattened under `prefix`."""
    name = normalize_path(key)
    return path_name(prefix, name) if prefix else name


def _never_json(table: str, column: str) -> bool:
    return False


def _flatten(item: Dict[str, Any], table: str, level: int, is_json: IsJson, row: Row, lists: Dict[str, Any]) -> None:
    """Scalars of `item` into `row`, lists into `lists`, nested dicts flattened after the keys of their
    level (as dlt does, which decides which value a collision keeps there)."""
    stack = [(item, level, "")]
    column = _column
    assigned = 0
    while stack:
        current, lvl, prefix = stack.pop()
        for key, value in current.items():
            name = column(prefix, key)
            kind = type(value)
            if lvl > 0 and (kind is dict or kind is list or kind is tuple) and not is_json(table, name):
                if kind is dict:
                    stack.append((value, lvl - 1, name))
                else:
                    assigned += name in lists
                    lists[name] = value
                continue
            row[name] = value
            assigned += 1
    if assigned != len(row):
        _raise_collision(item, table, level, is_json)


def _raise_collision(item: Dict[str, Any], table: str, level: int, is_json: IsJson) -> None:
    seen: Dict[Tuple[str, str], str] = {}
    stack = [(item, level, "", "")]
    while stack:
        current, lvl, prefix, source = stack.pop()
        for key, value in current.items():
            name, path = _column(prefix, key), f"{source}.{key}" if source else str(key)
            kind = type(value)
            nested = lvl > 0 and kind in (dict, list, tuple) and not is_json(table, name)
            if nested and kind is dict:
                stack.append((value, lvl - 1, name, path))
                continue
            slot = ("table" if nested else "column", name)
            if slot in seen:
                raise ColumnNameCollision(table, name, seen[slot], path)
            seen[slot] = path


def normalize_item(
    item: Any,
    table: str,
    load_id: str,
    max_nesting: Optional[int] = None,
    is_json: IsJson = _never_json,
    *,
    _parent: Optional[Tuple[str, str, int]] = None,
    _level: Optional[int] = None,
) -> Iterator[Tuple[str, Row]]:
    """Rows of `item` for `table` and its child tables; `is_json(table, column)` says which columns
    keep their dicts and lists as json.

    >>> [t for t, _ in normalize_item({"id": 1, "tags": ["a", "b"]}, "items", "1.0")]
    ['items', 'items__tags', 'items__tags']
    """
    level = (DEFAULT_NESTING if max_nesting is None else max_nesting) if _level is None else _level
    row: Row = {}
    lists: Dict[str, Any] = {}
    _flatten(item if type(item) is dict else {"value": item}, table, level, is_json, row, lists)
    if _parent is None:
        row_id = row.get(ID) or uniq_id()
        root_id = row_id
    else:
        parent_id, root_id, idx = _parent
        row_id = child_id(parent_id, table, idx)
        row[PARENT_ID] = parent_id
        row[LIST_IDX] = idx
        row[ROOT_ID] = root_id
    row[ID] = row_id
    row[LOAD_ID] = load_id
    yield table, row
    for name, values in lists.items():
        child_table = path_name(table, name)
        for idx, element in enumerate(values):
            kind = type(element)
            if kind is list or kind is tuple:
                element, child_level = {LIST_OF_LISTS: element}, level - 2
            else:
                child_level = level - 1
            yield from normalize_item(element, child_table, load_id, max_nesting, is_json,
                                      _parent=(row_id, root_id, idx), _level=child_level)
