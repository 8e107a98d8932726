"""NULL keys: rows with NULL (or no value) in a column that must not be NULL — a `primary_key` or
`merge_key` column, or one hinted `nullable=False` — are counted per table and column while a resource
is normalised; `raise_if_any` then fails the extraction before anything is sealed, so nothing of the
load lands and no cursor moves.

dlt fails such a load too, at its normalize step (or at its load step, when the key is missing from
the item), and keeps the failed package pending; we fail at extraction, with the count.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ..contract import KEY_HINTS
from .exceptions import NullInNotNullColumn
from .schema import Schema


class NotNullCheck:
    """Counts NULLs in not-nullable columns of the rows and Arrow tables written for one load."""

    def __init__(self, schema: Schema):
        self.schema = schema
        self.counts: Dict[Tuple[str, str], int] = {}
        self._required: Dict[str, List[str]] = {}

    def required(self, table: str) -> List[str]:
        columns = self._required.get(table)
        if columns is None:
            meta = self.schema.tables[table].columns
            columns = self._required[table] = [c for c, m in meta.items() if m.get("nullable") is False]
        return columns

    def forget(self, table: str) -> None:
        """Re-read the table's hints (they changed)."""
        self._required.pop(table, None)

    def row(self, table: str, row: Dict[str, Any]) -> None:
        for column in self.required(table):
            if row.get(column) is None:
                self._count(table, column, 1)

    def arrow(self, table: str, data: Any) -> None:
        for column in self.required(table):
            names = data.column_names
            nulls = data.column(column).null_count if column in names else data.num_rows
            if nulls:
                self._count(table, column, nulls)

    def _count(self, table: str, column: str, rows: int) -> None:
        self.counts[(table, column)] = self.counts.get((table, column), 0) + rows

    def raise_if_any(self) -> None:
        if self.counts:
            counts, self.counts = self.counts, {}
            raise NullInNotNullColumn(counts, {key: self._hint(*key) for key in counts})

    def _hint(self, table: str, column: str) -> str:
        meta = self.schema.tables[table].columns[column]
        return next((h for h in KEY_HINTS if meta.get(h)), "nullable=False")
