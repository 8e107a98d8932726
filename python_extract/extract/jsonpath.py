"""Cursor paths are JSONPath as dlt reads them (jsonpath-ng's extended parser, dlt's `compile_path`):
`updated_at`, `meta.updated_at`, `items[0].ts`, `items[*].ts`, `"a.field"`, `$`.

A path's value is its first match, as dlt's `find_values(path, row)[0]`; paths use source
(un-normalized) field names. A path that is one plain field (`updated_at`, `$.updated_at`) is read with
`row.get` and filters Arrow tables on whole columns (dlt's fast path, which leaves `$.` paths out).
A path jsonpath-ng cannot parse raises `ValueError` naming it.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from jsonpath_ng import Child, Fields, JSONPath, Root
from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext import parse

MISSING = object()


@lru_cache(maxsize=1024)
def compile_path(path: str) -> JSONPath:
    """`path` parsed by jsonpath-ng (cached: cursors compile the same few paths every run)."""
    try:
        return parse(path)
    except (JSONPathError, ValueError) as e:
        raise ValueError(f"not a JSONPath: {path!r} ({e})") from None


def find_first(path: JSONPath, item: Any) -> Any:
    """The first value at `path` in `item`, or MISSING."""
    matches = path.find(item)
    return matches[0].value if matches else MISSING


def simple_field(path: JSONPath) -> Optional[str]:
    """The field name when the path is one plain field (`updated_at` or `$.updated_at`; not `*`)."""
    if isinstance(path, Child) and isinstance(path.left, Root):
        path = path.right
    if isinstance(path, Fields) and len(path.fields) == 1 and path.fields[0] != "*":
        return path.fields[0]
    return None
