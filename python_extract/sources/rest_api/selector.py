"""JSONPath look-ups in response bodies (jsonpath-ng, the dialect dlt's rest_api uses).

`select_records(body, path)` gives the records of a page: the list at `path`; a single object becomes
one record; without a path, the body itself (a list) or the first list found at its top level.
`find_value(body, path)` gives one value (the next URL, a cursor token, a total), or None.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Optional


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


def select_records(body: Any, path: Optional[str] = None) -> List[Any]:
    if path:
        found = find_all(body, path)
        if len(found) == 1 and isinstance(found[0], list):
            return found[0]
        return [v for v in found if v is not None]
    if isinstance(body, list):
        return body
    if isinstance(body, dict):
        lists = [v for v in body.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
        return [body]
    return [] if body is None else [body]
