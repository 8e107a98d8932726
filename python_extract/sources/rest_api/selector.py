"""JSONPath look-ups in response bodies (jsonpath-ng, the dialect dlt's rest_api uses).

`select_records(body, path)` gives the records of a page: the list at `path`; a single object becomes
one record. Without a path: a list body is the records; an object holding a list under a usual
wrapper key (data, items, results, records, entries, values, rows) gives that list; any other object
is one record.
`find_value(body, path)` gives one value (the next URL, a cursor token, a total), or None.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Optional


WRAPPERS = ("data", "items", "results", "records", "entries", "values", "rows")


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
        for key in WRAPPERS:
            if isinstance(body.get(key), list):
                return body[key]
        return [body]
    return [] if body is None else [body]
