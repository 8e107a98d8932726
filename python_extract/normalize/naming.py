"""dlt's snake_case naming convention: identifiers of tables and columns, and the nesting separator.

Steps, as dlt: `+ *` -> `x`, `-` -> `_`, `@` -> `a`, `|` -> `l`; any other run of non `[A-Za-z0-9_]`
characters -> `_`; camelCase breaks get `_`; lower case; a leading digit gets a `_` prefix; trailing
`_`s become `x`s; runs of `_` collapse to one (so a name never contains the nesting separator `__`);
an empty name becomes `_empty`. Keys of items and table names are *paths*: `a__b` keeps its nesting
separator (each part normalized), as dlt's `normalize_path`, so the key `x__y` names the same column as
`{"x": {"y": ...}}`.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..contract import CHILD_TABLE_SEPARATOR

NESTING = CHILD_TABLE_SEPARATOR
_TRANSLATE = str.maketrans({"+": "x", "*": "x", "-": "_", "@": "a", "|": "l"})
_NON_ALNUM = re.compile(r"[^a-zA-Z0-9_]+")
_BREAK_1 = re.compile(r"([^_])([A-Z][a-z]+)")
_BREAK_2 = re.compile(r"([a-z0-9])([A-Z])")
_UNDERSCORES = re.compile(r"__+")


@lru_cache(maxsize=65536)
def normalize_identifier(name: str) -> str:
    """`userId` -> `user_id`, `Price (EUR)` -> `price_eurx`, `1st` -> `_1st`, `a__b` -> `a_b`.

    >>> normalize_identifier("userId")
    'user_id'
    """
    text = str(name).strip()
    if not text:
        return "_empty"
    text = _NON_ALNUM.sub("_", text.translate(_TRANSLATE))
    text = _BREAK_2.sub(r"\1_\2", _BREAK_1.sub(r"\1_\2", text)).lower()
    if text[0].isdigit():
        text = "_" + text
    stripped = text.rstrip("_")
    text = stripped + "x" * (len(text) - len(stripped))
    return _UNDERSCORES.sub("_", text)


@lru_cache(maxsize=65536)
def normalize_path(name: str) -> str:
    """A key or table name split at `__`, each part normalized: `a__b` -> `a__b`, `__x` -> `x`, `A__B C` -> `a__b_c`.

    >>> normalize_path("Order__Lines")
    'order__lines'
    """
    text = str(name)
    if not text.strip():
        return "_empty"
    parts = [normalize_identifier(p) for p in text.split(NESTING) if p.strip()]
    return NESTING.join(parts) if parts else normalize_identifier(text)


def path_name(*parts: str) -> str:
    """Join already-normalized parts with the nesting separator: ('order', 'items') -> order__items."""
    return NESTING.join(parts)
