"""dlt's snake_case naming convention: identifiers of tables and columns, and the nesting separator."""
from __future__ import annotations

import re

NESTING = "__"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_INVALID = re.compile(r"[^a-z0-9_]+")


def normalize_identifier(name: str) -> str:
    """`userId` -> `user_id`, `Price (EUR)` -> `price_eur`, `1st` -> `_1st`.

    >>> normalize_identifier("userId")
    'user_id'
    """
    text = _CAMEL.sub("_", str(name).strip()).lower()
    text = _INVALID.sub("_", text).strip("_") or "_"
    if text[0].isdigit():
        text = "_" + text
    return text


def path_name(*parts: str) -> str:
    """Join already-normalised parts with the nesting separator: ('order', 'items') -> order__items."""
    return NESTING.join(parts)
