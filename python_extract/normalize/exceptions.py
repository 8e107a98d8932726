"""Errors of normalisation: bad data that must not land. The extractor wraps each into
`PipelineStepFailed("extract", ...)`, which adds the load id; nothing of that load lands and no cursor moves.

    SparkloadError
    └── NormalizeError
        ├── ColumnNameCollision      two keys of one item normalise to the same column
        ├── NullInNotNullColumn      rows with NULL (or no value) in a primary_key / merge_key /
        │                            nullable=False column
        ├── CannotCoerceColumn       a value fits neither its column nor that column's variant
        └── ArrowColumnDoesNotFit    an Arrow column's values do not fit its column's type
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ..errors import SparkloadError


class NormalizeError(SparkloadError):
    """Data that cannot be normalised as the schema says."""


class ColumnNameCollision(NormalizeError):
    def __init__(self, table: str, column: str, first: str, second: str):
        self.table, self.column, self.names = table, column, (first, second)
        super().__init__(
            f"table {table}: keys {first!r} and {second!r} of one item both become column {column!r} after "
            "snake_case naming; rename one of them in the resource (e.g. with add_map)")


class NullInNotNullColumn(NormalizeError):
    def __init__(self, counts: Dict[Tuple[str, str], int], hints: Dict[Tuple[str, str], str]):
        self.counts = dict(sorted(counts.items()))
        (table, column), rows = next(iter(self.counts.items()))
        self.table, self.column, self.rows = table, column, rows
        more = "".join(f"; table {t} column {c}: {_rows(n)}" for (t, c), n in list(self.counts.items())[1:])
        super().__init__(
            f"table {table} column {column}: {_rows(rows)} with NULL in a {hints[(table, column)]} column{more}; "
            "nothing of this load was kept and no cursor moved")


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


class CannotCoerceColumn(NormalizeError):
    def __init__(self, table: str, column: str, from_type: str, to_type: str, value: Any):
        self.table, self.column = table, column
        super().__init__(
            f"table {table} column {column}: value {str(value)[:100]!r} of type {from_type} fits neither the "
            f"column nor its variant of type {to_type}")


class ArrowColumnDoesNotFit(NormalizeError):
    def __init__(self, table: str, column: str, arrow_type: Any, data_type: str, error: Exception):
        self.table, self.column = table, column
        reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        super().__init__(
            f"table {table} column {column}: the Arrow {arrow_type} values do not fit the column's type {data_type} "
            f"({reason}); cast the column in the resource, or declare columns={{'{column}': {{'data_type': ...}}}}")
