"""One extractor per item type, as dlt's `ObjectExtractor` and `ArrowExtractor`: each takes the items of one
resource pass (after its pipe steps, extract/steps.py) and writes them, normalized and typed, to the open
load package. `ObjectExtractor` gathers dicts in batches per table and normalizes a batch in Arrow at once
(row by row where Arrow cannot, or where a schema contract applies); `ArrowExtractor` writes Arrow tables as
they come. Both check not-null columns as they write (the pass raises what they found at its end).

Errors: `HintError` for a schema contract on Arrow tables; normalization errors as normalize/ raises them.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..errors import HintError
from ..normalize import Schema, normalize_item
from ..normalize.arrow_batch import normalize_batch
from ..normalize.naming import normalize_identifier
from ..normalize.not_null import NotNullCheck
from ..normalize.schema_contract import EVOLVE, ContractGate, DiscardRow
from ..packages import PackageWriter
from .resource import Resource

BATCH_ITEMS = 10_000


def is_arrow(item: Any) -> bool:
    return type(item).__module__.startswith("pyarrow") and hasattr(item, "num_rows")


class ObjectExtractor:
    """Python objects (dicts) of one resource pass: `add` batches an item under its root table and writes a
    full batch; `flush` writes the rest. Both return the root rows written."""

    def __init__(self, res: Resource, writer: PackageWriter, schema: Schema, contracts: ContractGate,
                 not_null: NotNullCheck):
        self.res, self.writer, self.schema, self.contracts, self.not_null = res, writer, schema, contracts, not_null
        self.batches: Dict[str, List[Any]] = {}
        self.batch_items = min(BATCH_ITEMS, writer.batch_rows)

    @property
    def pending(self) -> int:
        """Items added and not written yet."""
        return sum(map(len, self.batches.values()))

    def add(self, table: str, item: Any) -> int:
        batch = self.batches.get(table)
        if batch is None:
            batch = self.batches[table] = []
        batch.append(item)
        if len(batch) >= self.batch_items:
            return self._write_batch(table, self.batches.pop(table))
        return 0

    def flush(self) -> int:
        written = sum(self._write_batch(table, batch) for table, batch in self.batches.items())
        self.batches.clear()
        return written

    def _write_batch(self, table: str, items: List[Any]) -> int:
        """Normalize `items` of root `table` in Arrow at once; row by row where Arrow cannot (see
        normalize/arrow_batch.py); row by row through the schema contract where a contract applies."""
        if table in self.contracts.filtered_tables:  # the schema contract discards the table's rows
            return 0
        if self.contracts.resolve(table) != EVOLVE:
            for item in items:
                self._write_item(table, item, self.contracts)
            return len(items)
        if self.res.max_table_nesting is None and self._write_arrow_batch(table, items):
            return len(items)
        for item in items:
            self._write_item(table, item)
        return len(items)

    def _write_arrow_batch(self, table: str, items: List[Any]) -> bool:
        """The batch normalized in Arrow and written; False when Arrow cannot take it (nothing written)."""
        res, schema, writer = self.res, self.schema, self.writer

        def child(name: str, parent: str) -> None:
            if name not in schema.tables:
                schema.table(name, write_disposition=res.write_disposition, parent=parent, resource=res.name)

        tables = normalize_batch(items, table, writer.load_id, schema, child)
        if tables is None:
            return False
        for name, data in tables.items():
            self.not_null.arrow(name, data, lambda column: name != table or _had_column(items, column))
            writer.write_arrow(name, data)
        return True

    def _write_item(self, table: str, item: Any, contracts: Optional[ContractGate] = None) -> None:
        res, schema, writer, not_null = self.res, self.schema, self.writer, self.not_null
        tables = schema.tables
        dropped: set = set()  # rows the schema contract discarded: their child rows go too, as in dlt
        for t, row in normalize_item(item, table, writer.load_id, res.max_table_nesting, schema.is_json):
            if contracts is not None:
                if row.get("_dlt_parent_id") in dropped or not contracts.table(t, row):
                    dropped.add(row["_dlt_id"])
                    continue
            if t not in tables:
                schema.table(t, write_disposition=res.write_disposition, parent=t.rsplit("__", 1)[0], resource=res.name)
            if contracts is not None:
                try:
                    row = contracts.row(t, row)
                    absent = not_null.absent(t, row)
                    row = schema.coerce_row(t, row)
                except DiscardRow:
                    dropped.add(row["_dlt_id"])
                    continue
            else:
                absent = not_null.absent(t, row)
                row = schema.coerce_row(t, row)
            not_null.row(t, row, absent)
            writer.write(t, row)


class ArrowExtractor:
    """Arrow tables of one resource pass, each written as it comes (after the cursors kept its rows)."""

    def __init__(self, res: Resource, writer: PackageWriter, schema: Schema, contracts: ContractGate,
                 not_null: NotNullCheck):
        self.res, self.writer, self.schema, self.contracts, self.not_null = res, writer, schema, contracts, not_null

    def refuse_contract(self, table: str) -> None:
        """A schema contract on an Arrow table is not built: refused before any of its rows are looked at."""
        if self.contracts.resolve(table) != EVOLVE:
            raise HintError(f"resource {self.res.name} table {table}: schema_contract={self.contracts.resolve(table)} on "
                            "Arrow tables is not built in sparkload; yield dicts, or drop the contract for this resource")

    def write(self, table: str, data: Any) -> int:
        from ..normalize.arrow import normalize_arrow

        if data.num_rows:
            # nested columns are encoded as JSON text on the package writer's threads (encode_nested)
            normalized = normalize_arrow(data, self.schema, table, self.writer.load_id, encode=False)
            self.not_null.arrow(table, normalized)
            self.writer.write_arrow(table, normalized)
        return data.num_rows


def _had_column(items: List[Dict[str, Any]], column: str) -> bool:
    """Whether a key of `items` becomes `column` (asked only when a required column came out absent: a failing load).
    A nested column (`a__b`) counts as had: its NULLs are told apart from a missing key only row by row."""
    return "__" in column or any(normalize_identifier(key) == column for item in items for key in item)
