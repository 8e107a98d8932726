"""JSONPath look-ups in response bodies (jsonpath-ng, the dialect dlt's rest_api uses).

`select_records(body, path)` gives the records of a page: the value at `path` (a list is the records, a
single object one record, nothing none). Without a `data_selector`, `records_path(body)` finds where the
records are the way dlt's REST client does, on the first page of an endpoint (later pages are read at the
same place): a body that is not an object is the records; else the first list, looking up to three keys
deep, whose key is a usual wrapper (data, items, results, records, entries, rows, entities, payload,
content, objects, values), or else the first list found; an object without a list is one record.
`find_value(body, path)` gives one value (the next URL, a cursor token, a total), or None.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Optional, Tuple, Union


RECORD_KEYS = frozenset(("data", "items", "results", "entries", "records", "rows", "entities", "payload", "content",
                         "objects", "values"))
Keys = Tuple[str, ...]


@lru_cache(maxsize=256)
def _compile(path: str):
    from jsonpath_ng.ext import parse

    return parse(path)


def find_all(body: Any, path: str) -> List[Any]:
    return [m.value for m in _compile(path).find(body)]


def find_value(body: Any, path: Optional[str]) -> Any:
    if not path or body is None:
        return None
    found = find_all(body, path)
    return found[0] if found else None


def records_path(body: Any) -> Keys:
    """The keys leading to the records of a body whose endpoint has no data_selector; () for the whole body."""
    lists: List[Keys] = []
    if isinstance(body, dict):
        _lists(body, (), lists)
    if not lists:
        return ()
    return next((keys for keys in lists if keys[-1] in RECORD_KEYS), lists[0])


def _lists(node: dict, keys: Keys, out: List[Keys]) -> None:
    if len(keys) > 2:
        return
    for key, value in node.items():
        if isinstance(value, list):
            out.append((*keys, key))
        elif isinstance(value, dict):
            _lists(value, (*keys, key), out)


def select_records(body: Any, path: Union[str, Keys, None] = None) -> List[Any]:
    """The records at `path`: a JSONPath (a data_selector) or the keys `records_path` found."""
    if isinstance(path, str) and path:
        found = find_all(body, path)
        if len(found) == 1 and isinstance(found[0], list):
            return found[0]
        return [v for v in found if v is not None]
    value = body
    for key in path or ():
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return []
    return value if isinstance(value, list) else [value]
