"""NULL keys: rows with NULL (or no value) in a column that must not be NULL — a `primary_key` or
`merge_key` column, or one hinted `nullable=False` — are counted per table and column while a resource
is normalized; `raise_if_any` then fails the extraction before anything is sealed, so nothing of the
load lands and no cursor moves. A column the failing rows do not have at all (a misspelt `primary_key`)
is reported as missing, with the table's closest column.

dlt fails such a load too, at its normalize step (or at its load step, when the key is missing from
the item), and keeps the failed package pending; we fail at extraction, with the count.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..contract import DLT_PREFIX, KEY_HINTS
from .exceptions import NullInNotNullColumn
from .schema import Schema


class NotNullCheck:
    """Counts NULLs in not-nullable columns of the rows and Arrow tables written for one load."""

    def __init__(self, schema: Schema):
        self.schema = schema
        self.counts: Dict[Tuple[str, str], int] = {}
        self.missing: Dict[Tuple[str, str], int] = {}  # of the counted rows, those without the column at all
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

    def absent(self, table: str, row: Dict[str, Any]) -> List[str]:
        """The required columns `row` has no key for; asked before coercion, which drops NULLs' keys."""
        return [column for column in self.required(table) if column not in row]

    def row(self, table: str, row: Dict[str, Any], absent: List[str]) -> None:
        """Count the NULLs of a coerced `row`; `absent`: what `absent` said of it before coercion."""
        for column in self.required(table):
            if row.get(column) is None:
                self._count(table, column, 1, column in absent)

    def arrow(self, table: str, data: Any, had_column: Optional[Callable[[str], bool]] = None) -> None:
        """`had_column(column)`: for Arrow normalized from dicts, whether the dicts had a column that is absent
        here (Arrow drops a column of NULLs only); without it an absent column is missing from every row."""
        for column in self.required(table):
            names = data.column_names
            nulls = data.column(column).null_count if column in names else data.num_rows
            if nulls:
                self._count(table, column, nulls, column not in names and not (had_column and had_column(column)))

    def _count(self, table: str, column: str, rows: int, missing: bool = False) -> None:
        self.counts[(table, column)] = self.counts.get((table, column), 0) + rows
        if missing:
            self.missing[(table, column)] = self.missing.get((table, column), 0) + rows

    def raise_if_any(self) -> None:
        if self.counts:
            counts, missing, self.counts, self.missing = self.counts, self.missing, {}, {}
            absent = {key: self._columns(key[0]) for key in counts if missing.get(key) == counts[key]}
            raise NullInNotNullColumn(counts, {key: self._hint(*key) for key in counts}, absent)

    def _columns(self, table: str) -> List[str]:
        """The table's columns that have a value somewhere (a type), without the `_dlt_*` ones."""
        return [c for c, m in self.schema.tables[table].columns.items() if m.get("data_type") and not c.startswith(DLT_PREFIX)]

    def _hint(self, table: str, column: str) -> str:
        meta = self.schema.tables[table].columns[column]
        return next((h for h in KEY_HINTS if meta.get(h)), "nullable=False")
