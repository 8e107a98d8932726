"""The schema of a load: tables, their columns with data types, and dlt's table hints.

Data types follow dlt's names (text, bigint, double, bool, decimal, timestamp, date, json); `spark_type`
maps them to Spark SQL types for landing. A column keeps its first inferred type; a later value of
another type is coerced when it can be (int into double) and otherwise stored in a variant column
`name__v_<type>`, as dlt does, so no value is silently lost.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any, Dict, List, Optional

DLT_COLUMNS = {
    "_dlt_id": "text", "_dlt_load_id": "text", "_dlt_parent_id": "text",
    "_dlt_list_idx": "bigint", "_dlt_root_id": "text",
}
SPARK_TYPES = {
    "text": "string", "bigint": "bigint", "double": "double", "bool": "boolean",
    "decimal": "decimal(38,9)", "timestamp": "timestamp", "date": "date", "json": "string",
}


def infer_type(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, float):
        return "double"
    if isinstance(value, Decimal):
        return "decimal"
    if isinstance(value, dt.datetime):
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, (dict, list)):
        return "json"
    return "text"


def spark_type(data_type: str) -> str:
    return SPARK_TYPES[data_type]


@dataclass
class Table:
    name: str
    columns: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    write_disposition: str = "append"
    primary_key: List[str] = field(default_factory=list)
    merge_key: List[str] = field(default_factory=list)
    parent: Optional[str] = None


@dataclass
class Schema:
    name: str
    tables: Dict[str, Table] = field(default_factory=dict)

    def table(self, name: str, **hints: Any) -> Table:
        if name not in self.tables:
            self.tables[name] = Table(name=name, **hints)
        return self.tables[name]

    def coerce_row(self, table: str, row: Dict[str, Any]) -> Dict[str, Any]:
        """Types `row` against the table's columns, adding new columns as they appear."""
        columns = self.table(table).columns
        out: Dict[str, Any] = {}
        for name, value in row.items():
            seen = DLT_COLUMNS.get(name) or infer_type(value)
            if seen is None:
                columns.setdefault(name, {"data_type": None, "nullable": True})
                out[name] = None
                continue
            known = columns.get(name, {}).get("data_type")
            if known is None:
                columns[name] = {"data_type": seen, "nullable": True}
                out[name] = value
            elif known == seen or (known == "double" and seen == "bigint"):
                out[name] = value
            else:
                variant = f"{name}__v_{seen}"
                columns.setdefault(variant, {"data_type": seen, "nullable": True})
                out[variant] = value
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "tables": {k: asdict(v) for k, v in self.tables.items()}}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Schema":
        return cls(name=data["name"], tables={k: Table(**v) for k, v in data["tables"].items()})

    def version_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]
