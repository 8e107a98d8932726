"""The schema of a pipeline: tables, their columns with data types, and dlt's hints.

Data types follow dlt's names (text, bigint, double, bool, decimal, timestamp, date, json, binary);
`spark_type` and `arrow_type` map them for landing. A column keeps its first inferred type; a later
value of another type is coerced when dlt would (anything into text, int into double or decimal, an
ISO string into timestamp) and otherwise goes to a variant column `name__v_<type>`, so no value is
lost. Strings that look like ISO timestamps make a new column `timestamp` (dlt's `iso_timestamp`
detection).

Column hints kept for the dbt side: `primary_key`, `merge_key`, `hard_delete`, `dedup_sort`,
`nullable`; table hints: `write_disposition`, `merge_strategy`, `parent`, `resource`. The schema is
versioned by a content hash (`version_hash`) and a counter (`version`) bumped when the hash changes.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any, Dict, List, Optional, Tuple

ENGINE_VERSION = 1
DLT_COLUMNS = {
    "_dlt_id": "text", "_dlt_load_id": "text", "_dlt_parent_id": "text",
    "_dlt_list_idx": "bigint", "_dlt_root_id": "text",
}
SPARK_TYPES = {
    "text": "string", "bigint": "bigint", "double": "double", "bool": "boolean",
    "decimal": "decimal(38,9)", "timestamp": "timestamp", "date": "date", "json": "string", "binary": "binary",
}
COLUMN_HINTS = ("primary_key", "merge_key", "hard_delete", "dedup_sort", "nullable", "data_type")
_PY_TYPES = {
    str: "text", int: "bigint", float: "double", bool: "bool", Decimal: "decimal",
    dt.datetime: "timestamp", dt.date: "date", dict: "json", list: "json", tuple: "json", bytes: "binary",
}
_ISO_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def infer_type(value: Any) -> Optional[str]:
    if value is None:
        return None
    found = _PY_TYPES.get(type(value))
    if found is not None:
        return found
    for py, data_type in ((bool, "bool"), (int, "bigint"), (float, "double"), (Decimal, "decimal"),
                          (dt.datetime, "timestamp"), (dt.date, "date"), (dict, "json"), (list, "json"),
                          (tuple, "json"), (bytes, "binary")):
        if isinstance(value, py):
            return data_type
    return "text"


def parse_timestamp(value: str) -> Optional[dt.datetime]:
    """An ISO 8601 string as a UTC-aware datetime (naive means UTC); None if it is not one."""
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed.replace(tzinfo=dt.timezone.utc) if parsed.tzinfo is None else parsed


def spark_type(data_type: str) -> str:
    return SPARK_TYPES[data_type]


def arrow_type(data_type: str):
    import pyarrow as pa

    return {
        "text": pa.string(), "json": pa.string(), "bigint": pa.int64(), "double": pa.float64(), "bool": pa.bool_(),
        "decimal": pa.decimal128(38, 9), "timestamp": pa.timestamp("us", tz="UTC"), "date": pa.date32(),
        "binary": pa.binary(),
    }[data_type]


def _json_default(value: Any) -> Any:
    return value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else str(value)


def _coerce(known: str, seen: str, value: Any) -> Any:
    """`value` (of type `seen`) as `known`, or raise ValueError when dlt would make a variant."""
    if known == "text":
        return json.dumps(value, default=_json_default) if seen == "json" else (
            value.isoformat() if seen in ("timestamp", "date") else str(value))
    if known == "double" and seen == "bigint":
        return float(value)
    if known == "decimal" and seen == "bigint":
        return Decimal(value)
    if known == "timestamp" and seen == "text":
        parsed = parse_timestamp(value)
        if parsed is not None:
            return parsed
    raise ValueError(f"cannot coerce {seen} to {known}")


@dataclass
class Table:
    name: str
    columns: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    write_disposition: str = "append"
    merge_strategy: Optional[str] = None
    parent: Optional[str] = None
    resource: Optional[str] = None

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

    def table(self, name: str, **hints: Any) -> Table:
        table = self.tables.get(name)
        if table is None:
            table = self.tables[name] = Table(name=name, **hints)
        return table

    def set_column_hints(self, table: str, column: str, hints: Dict[str, Any]) -> None:
        meta = self.table(table).columns.setdefault(column, {"data_type": None, "nullable": True})
        meta.update({k: v for k, v in hints.items() if k in COLUMN_HINTS})
        self._types.pop(table, None)

    def coerce_row(self, table: str, row: Dict[str, Any]) -> Dict[str, Any]:
        """Types `row` (in place) against the table's columns, adding new columns and variants as
        they appear. The loop is the extractor's hot path: values whose Python type matches the
        column's type are left alone."""
        types = self._types.get(table)
        if types is None:
            types = self._types[table] = {c: m.get("data_type") for c, m in self.tables[table].columns.items()}
        get_type = types.get
        odd = [name for name, value in row.items() if get_type(name) != _PY_TYPES.get(type(value))]
        for name in odd:
            value = row[name]
            if value is None:
                del row[name]
                continue
            target, value = self._coerce_value(table, name, value)
            if target != name:
                del row[name]
            row[target] = value
        return row

    def _coerce_value(self, table: str, name: str, value: Any) -> Tuple[str, Any]:
        columns, types = self.tables[table].columns, self._types[table]
        seen = DLT_COLUMNS.get(name) or infer_type(value)
        known = types.get(name)
        if known == seen:
            return name, value
        if known is None:
            if seen == "text" and _ISO_TIMESTAMP.match(value) and parse_timestamp(value) is not None:
                seen, value = "timestamp", parse_timestamp(value)
            columns.setdefault(name, {"nullable": True})["data_type"] = types[name] = seen
            return name, self._json(seen, value)
        try:
            return name, _coerce(known, seen, value)
        except ValueError:
            variant = f"{name}__v_{seen}"
            if variant not in columns:
                columns[variant] = {"data_type": seen, "nullable": True, "variant": True}
                types[variant] = seen
            return variant, self._json(seen, value)

    @staticmethod
    def _json(data_type: str, value: Any) -> Any:
        return json.dumps(value, default=_json_default, sort_keys=True) if data_type == "json" else value

    def typed_columns(self, table: str) -> Dict[str, str]:
        """Columns with a known data type (a column only ever None has none yet), in order."""
        return {c: m["data_type"] for c, m in self.tables[table].columns.items() if m.get("data_type")}

    def to_dict(self) -> Dict[str, Any]:
        return {
            "name": self.name, "version": self.version, "version_hash": self.version_hash(),
            "engine_version": ENGINE_VERSION, "tables": {k: asdict(v) for k, v in self.tables.items()},
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Schema":
        schema = cls(name=data["name"], tables={k: Table(**v) for k, v in data["tables"].items()},
                     version=data.get("version", 0))
        schema.stored_hash = data.get("version_hash")
        return schema

    def version_hash(self) -> str:
        content = {k: asdict(v) for k, v in self.tables.items()}
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]

    def bump_version(self) -> bool:
        """Bump `version` when the content changed since it was last bumped; True if it did."""
        current = self.version_hash()
        if current == self.stored_hash:
            return False
        self.version, self.stored_hash = self.version + 1, current
        return True
