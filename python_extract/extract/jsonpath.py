"""The JSONPath subset of cursor paths: `updated_at`, `meta.updated_at`, `items[0].ts`, `items[*].ts`, `$`.

Paths use source (un-normalised) field names, as dlt's.
"""
from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

_STEP = re.compile(r"([^.\[\]]+)|\[(\*|\d+)\]")
MISSING = object()


def compile_path(path: str) -> Tuple[Any, ...]:
    """('meta', 'ts') for 'meta.ts'; ints index lists, '*' is every element; () is the whole item."""
    text = path.strip()
    if text.startswith("$"):
        text = text[1:].lstrip(".")
    steps: List[Any] = []
    for name, index in _STEP.findall(text):
        if name:
            steps.append(name)
        else:
            steps.append("*" if index == "*" else int(index))
    return tuple(steps)


def find_first(steps: Tuple[Any, ...], item: Any) -> Any:
    """The first value at `steps` in `item`, or MISSING."""
    if not steps:
        return item
    step, rest = steps[0], steps[1:]
    if step == "*":
        for element in item if isinstance(item, list) else ():
            found = find_first(rest, element)
            if found is not MISSING:
                return found
        return MISSING
    if isinstance(step, int):
        if isinstance(item, list) and -len(item) <= step < len(item):
            return find_first(rest, item[step])
        return MISSING
    if isinstance(item, dict) and step in item:
        return find_first(rest, item[step])
    return MISSING


def simple_field(steps: Tuple[Any, ...]) -> Optional[str]:
    """The field name when the path is one plain field (the fast path)."""
    return steps[0] if len(steps) == 1 and isinstance(steps[0], str) and steps[0] != "*" else None
