"""The schema of a pipeline: tables, their columns with data types, and dlt's hints.

Data types follow dlt's names (text, bigint, double, bool, decimal, timestamp, date, json, binary);
`spark_type` and `arrow_type` map them for landing, sized by a column's `precision` and `scale` hints
(contract.sized_type). A column keeps its first inferred type; a later
value of another type is coerced as dlt coerces it (see normalize/coerce.py: text into numbers, bools,
dates; numbers into text; ...) and otherwise goes to a variant column `name__v_<type>`, so no value is
lost.

Column hints kept for the dbt side: the contract's `ColumnHints` (python_extract/contract.py); table
hints: `write_disposition`, `merge_strategy`, `merge_options`, `parent`, `resource`. The schema is
versioned by a content hash (`version_hash`) and a counter (`version`) bumped when the hash changes.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..contract import (
    COLUMN_HINTS, DEFAULT_WRITE_DISPOSITION, DLT_COLUMNS, PYTHON_SCALARS, SPARK_ARROW_TYPES, VARIANT_SEPARATOR, MergeStrategy,
    WriteDisposition, sized_type,
)
from .coerce import coerce, detect_type, json_text, py_type
from .exceptions import CannotCoerceColumn

ENGINE_VERSION = 1
# the Python types whose values a column of the same dlt type takes as they are (the hot path)
_AS_IS = dict(PYTHON_SCALARS)


def spark_type(data_type: str, precision: Optional[int] = None, scale: Optional[int] = None, where: str = "") -> str:
    """The Spark type of a column (contract.sized_type: a bigint's or decimal's precision and scale count)."""
    return sized_type(data_type, precision, scale, where or f"a {data_type} column")


def arrow_type(data_type: str, precision: Optional[int] = None, scale: Optional[int] = None):
    """The Arrow type a column's values take in a load package: the Parquet type Spark reads as `spark_type`."""
    return arrow_of_spark(spark_type(data_type, precision, scale))


def arrow_of_spark(spark: str):
    """The Arrow type of a Spark type's simple string among those `spark_type` gives; None for another."""
    import pyarrow as pa

    if spark.startswith("decimal("):
        precision, scale = (int(x) for x in spark[len("decimal("):-1].split(","))
        return pa.decimal128(precision, scale)
    if spark not in SPARK_ARROW_TYPES:
        return None
    factory, args = SPARK_ARROW_TYPES[spark]
    return getattr(pa, factory)(*args)


@dataclass
class Table:
    name: str
    columns: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    write_disposition: WriteDisposition = DEFAULT_WRITE_DISPOSITION
    merge_strategy: Optional[MergeStrategy] = None
    # the options of dlt's dict form of write_disposition (contract.MERGE_OPTIONS), as model config values
    merge_options: Dict[str, Any] = field(default_factory=dict)
    parent: Optional[str] = None
    resource: Optional[str] = None
    # dlt's table hint: the schema contract as the resource (or the run) gave it (normalize/schema_contract.py)
    schema_contract: Any = None

    def column_hint(self, hint: str) -> List[str]:
        """Columns carrying a hint, e.g. `primary_key`."""
        return [c for c, meta in self.columns.items() if meta.get(hint)]

    @property
    def primary_key(self) -> List[str]:
        return self.column_hint("primary_key")

    @property
    def merge_key(self) -> List[str]:
        return self.column_hint("merge_key")


@dataclass
class Schema:
    name: str
    tables: Dict[str, Table] = field(default_factory=dict)
    version: int = 0
    stored_hash: Optional[str] = None
    _types: Dict[str, Dict[str, Optional[str]]] = field(default_factory=dict, repr=False, compare=False)
    # asked before a variant column is added: the extraction's schema contract (ContractGate.variant), if any
    variant_gate: Optional[Callable[[str, str, str, Any], bool]] = field(default=None, repr=False, compare=False)

    def table(self, name: str, **hints: Any) -> Table:
        table = self.tables.get(name)
        if table is None:
            table = self.tables[name] = Table(name=name, **hints)
        return table

    def set_column_hints(self, table: str, column: str, hints: Dict[str, Any]) -> None:
        meta = self.table(table).columns.setdefault(column, {"data_type": None, "nullable": True})
        meta.update({k: v for k, v in hints.items() if k in COLUMN_HINTS})
        self._types.pop(table, None)

    def is_json(self, table: str, column: str) -> bool:
        """Whether `column` of `table` is typed json (its dicts and lists stay whole)."""
        meta = self.tables.get(table)
        column_meta = meta.columns.get(column) if meta else None
        return bool(column_meta) and column_meta.get("data_type") == "json"

    def coerce_row(self, table: str, row: Dict[str, Any]) -> Dict[str, Any]:
        """Types `row` (in place) against the table's columns, adding new columns and variants as
        they appear; NULLs are dropped. The loop is the extractor's hot path: values whose Python
        type matches the column's type are left alone."""
        types = self._types.get(table)
        if types is None:
            types = self._types[table] = {c: m.get("data_type") for c, m in self.tables[table].columns.items()}
        get_type = types.get
        odd = [name for name, value in row.items() if get_type(name) != _AS_IS.get(type(value), "?")]
        for name in odd:
            value = row[name]
            if value is None:
                del row[name]
                continue
            target, value = self._coerce_value(table, name, value)
            if target is None:  # the schema contract discards the value
                del row[name]
                continue
            if target != name:
                del row[name]
            row[target] = value
        return row

    def _coerce_value(self, table: str, name: str, value: Any) -> Tuple[Optional[str], Any]:
        seen = DLT_COLUMNS.get(name) or py_type(value)
        known = self._types[table].get(name)
        if known is None:
            return name, self._new_column(table, name, value, seen)
        try:
            return name, self._as_stored(known, coerce(known, seen, value))
        except ValueError:
            variant = f"{name}{VARIANT_SEPARATOR}{seen}"
            known = self._types[table].get(variant)
            if known is None:
                if self.variant_gate is not None and not self.variant_gate(table, name, variant, value):
                    return None, None
                return variant, self._new_column(table, variant, value, seen, variant=True)
            try:
                return variant, self._as_stored(known, coerce(known, seen, value))
            except ValueError:
                raise CannotCoerceColumn(table, name, seen, known, value) from None

    def _new_column(self, table: str, name: str, value: Any, seen: str, variant: bool = False) -> Any:
        data_type = DLT_COLUMNS.get(name) or detect_type(value)
        stored = self._as_stored(data_type, coerce(data_type, seen, value))
        meta = self.tables[table].columns.setdefault(name, {"nullable": True})
        meta["data_type"] = self._types[table][name] = data_type
        if variant:
            meta["variant"] = True
        return stored

    @staticmethod
    def _as_stored(data_type: str, value: Any) -> Any:
        """json values are stored as their JSON text."""
        return json_text(value) if data_type == "json" else value

    def typed_columns(self, table: str) -> Dict[str, str]:
        """Columns with a known data type (a column only ever None has none yet), in order."""
        return {c: m["data_type"] for c, m in self.tables[table].columns.items() if m.get("data_type")}

    def spark_types(self, table: str) -> Dict[str, str]:
        """The Spark type of each typed column, in order (`spark_type`, sized by the column's hints)."""
        return {c: spark_type(m["data_type"], m.get("precision"), m.get("scale"), f"table {table} column {c}")
                for c, m in self.tables[table].columns.items() if m.get("data_type")}

    def arrow_types(self, table: str) -> Dict[str, Any]:
        """The Arrow type of each typed column, in order: what the load package's Parquet holds."""
        return {c: arrow_of_spark(t) for c, t in self.spark_types(table).items()}

    def to_dict(self) -> Dict[str, Any]:
        return {
            "name": self.name, "version": self.version, "version_hash": self.version_hash(),
            "engine_version": ENGINE_VERSION, "tables": {k: _table_dict(v) for k, v in self.tables.items()},
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Schema":
        schema = cls(name=data["name"], tables={k: Table(**v) for k, v in data["tables"].items()},
                     version=data.get("version", 0))
        schema.stored_hash = data.get("version_hash")
        return schema

    def version_hash(self) -> str:
        content = {k: _table_dict(v) for k, v in self.tables.items()}
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]

    def bump_version(self) -> bool:
        """Bump `version` when the content changed since it was last bumped; True if it did."""
        current = self.version_hash()
        if current == self.stored_hash:
            return False
        self.version, self.stored_hash = self.version + 1, current
        return True


def _table_dict(table: Table) -> Dict[str, Any]:
    """A table as stored and hashed; without merge options when it has none, so the schemas stored before
    they existed keep their version hash (and a schema contract likewise)."""
    content = asdict(table)
    for optional in ("merge_options", "schema_contract"):
        if not content[optional]:
            del content[optional]
    return content
