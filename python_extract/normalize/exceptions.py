"""Errors of normalization: bad data that must not land. The extractor wraps each into
`PipelineStepFailed("extract", ...)`, which adds the load id; nothing of that load lands and no cursor moves.

    SparkloadError
    └── NormalizeError
        ├── ColumnNameCollision      two keys of one item normalize to the same column
        ├── NullInNotNullColumn      rows with NULL (or no value) in a primary_key / merge_key /
        │                            nullable=False column, or without that column at all (a misspelt key)
        ├── CannotCoerceColumn       a value fits neither its column nor that column's variant
        └── ArrowColumnDoesNotFit    an Arrow column's values do not fit its column's type
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..errors import SparkloadError, did_you_mean


class NormalizeError(SparkloadError):
    """Data that cannot be normalized as the schema says."""


class ColumnNameCollision(NormalizeError):
    def __init__(self, table: str, column: str, first: str, second: str):
        self.table, self.column, self.names = table, column, (first, second)
        super().__init__(
            f"table {table}: keys {first!r} and {second!r} of one item both become column {column!r} after "
            "snake_case naming; rename one of them in the resource (e.g. with add_map)")


class NullInNotNullColumn(NormalizeError):
    """`counts`: rows per (table, column) without a value; `absent`: of those, the columns no failing row has
    at all, each with the table's columns (said as missing, with the closest one)."""

    def __init__(self, counts: Dict[Tuple[str, str], int], hints: Dict[Tuple[str, str], str],
                 absent: Optional[Dict[Tuple[str, str], List[str]]] = None):
        self.counts = dict(sorted(counts.items()))
        self.absent = absent or {}
        (table, column), rows = next(iter(self.counts.items()))
        self.table, self.column, self.rows = table, column, rows
        problems = [self._problem(key, n, hints[key]) for key, n in self.counts.items()]
        more = "".join(f"; table {t} column {c}: {p}" for (t, c), p in zip(list(self.counts)[1:], problems[1:]))
        super().__init__(f"table {table} column {column}: {problems[0]}{more}; nothing of this load was kept and no "
                         "cursor moved")

    def _problem(self, key: Tuple[str, str], rows: int, hint: str) -> str:
        if key not in self.absent:
            return f"{_rows(rows)} with NULL in a {hint} column"
        columns = self.absent[key]
        has = f"the table has {', '.join(columns)}" if columns else "the table has no other column"
        close = did_you_mean(key[1], columns)  # " (did you mean 'id'?)"
        return f"the {hint} column is missing from {_rows(rows)} ({has}{'; ' + close[2:-1] if close else ''})"


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


class DataValidationError(NormalizeError):
    """dlt's `DataValidationError`: `data_item` would change the schema of `table_name` where its schema contract
    (`schema_contract`, expanded) says `contract_mode` ("freeze") for `schema_entity` ("tables", "columns" or
    "data_type"). The attributes are dlt's; `table_schema` is the table's columns as the schema had them."""

    def __init__(self, schema_name: str, table_name: str, column_name: Optional[str], schema_entity: str,
                 contract_mode: str, table_schema: Any, schema_contract: Dict[str, str], data_item: Any = None,
                 extended_info: Optional[str] = None):
        self.schema_name, self.table_name, self.column_name = schema_name, table_name, column_name
        self.schema_entity, self.contract_mode = schema_entity, contract_mode
        self.table_schema, self.schema_contract, self.data_item = table_schema, schema_contract, data_item
        self.table, self.column = table_name, column_name  # what PipelineStepFailed names
        where = f"table {table_name}" + (f" column {column_name}" if column_name else "")
        value = ""
        if column_name and isinstance(data_item, dict) and column_name in data_item:
            value = f" (value {repr(data_item[column_name])[:100]})"
        super().__init__(f"{where}: schema contract {schema_entity}={contract_mode} is violated: {extended_info}{value}; "
                         "nothing of this load was kept and no cursor moved")
