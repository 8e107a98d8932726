"""The two sides of the extractor differential: the same resources run through the real dlt 1.31 into
duckdb, and through sparkload's extractor into staging tables on Spark; both read back in one shape.

A side runs a batch of resources (one per case) per load, so a whole suite of cases costs one dlt run
and one sparkload run per load. `tables(names)` returns {table: Table} with dlt type names and values
made comparable (timestamps as UTC, json parsed, decimals normalized).
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

SYSTEM = ("_dlt_id", "_dlt_parent_id", "_dlt_root_id", "_dlt_load_id")
# sized types as dlt names them: an integer narrower than 64 bits is bigint with that precision, a decimal keeps both
DUCK_TYPES = {"BIGINT": "bigint", "INTEGER": "bigint(32)", "SMALLINT": "bigint(16)", "TINYINT": "bigint(8)", "VARCHAR": "text", "DOUBLE": "double", "BOOLEAN": "bool", "DATE": "date",
              "TIMESTAMP WITH TIME ZONE": "timestamp", "JSON": "json", "BLOB": "binary", "TIME": "time"}
SPARK_TYPES = {"bigint": "bigint", "int": "bigint(32)", "smallint": "bigint(16)", "tinyint": "bigint(8)", "string": "text", "double": "double", "boolean": "bool", "date": "date",
               "timestamp": "timestamp", "binary": "binary"}


@dataclass
class Table:
    types: Dict[str, str]
    rows: List[Dict[str, Any]] = field(default_factory=list)


def comparable(value: Any, data_type: str) -> Any:
    if value is None:
        return None
    if data_type == "timestamp":
        if isinstance(value, str):
            value = dt.datetime.fromisoformat(value)
        value = value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)
        return value.isoformat()
    if data_type == "json":
        return json.dumps(json.loads(value) if isinstance(value, str) else value, sort_keys=True)
    if data_type.startswith("decimal"):
        return str(Decimal(value).normalize())
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float):
        return value + 0.0  # -0.0 and 0.0 are one value (duckdb keeps no sign of zero)
    return value


def _quiet_dlt() -> None:
    os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "CRITICAL")
    logging.getLogger("dlt").setLevel(logging.CRITICAL)


class DltSide:
    """One dlt pipeline into one duckdb file."""

    def __init__(self, home: Path, name: str):
        import dlt

        _quiet_dlt()
        self.db = home / f"dlt_{name}.duckdb"  # not the dataset name: duckdb would find both
        self.pipeline = dlt.pipeline(pipeline_name=name, destination=dlt.destinations.duckdb(str(self.db)),
                                     dataset_name=name, pipelines_dir=str(home / "dlt_pipelines"))
        self.dataset = name

    def run(self, resources: List[Any]) -> str:
        info = self.pipeline.run(resources)
        return info.loads_ids[-1] if info.loads_ids else ""

    def tables(self) -> Dict[str, Table]:
        import duckdb

        out: Dict[str, Table] = {}
        if not self.db.exists():
            return out
        with duckdb.connect(str(self.db), read_only=True) as con:
            listed = con.execute(
                "select table_name, column_name, data_type from information_schema.columns "
                "where table_schema = ? and table_name not like '\\_dlt%' escape '\\' order by ordinal_position",
                [self.dataset]).fetchall()
            for table, column, data_type in listed:
                kind = data_type.lower().replace(" ", "") if data_type.startswith("DECIMAL") else DUCK_TYPES.get(data_type, data_type)
                out.setdefault(table, Table({})).types[column] = kind
            for table, meta in out.items():
                cursor = con.execute(f'select * from "{self.dataset}"."{table}"')
                names = [d[0] for d in cursor.description]
                meta.rows = [{n: comparable(v, meta.types[n]) for n, v in zip(names, r)} for r in cursor.fetchall()]
        return out

    def resource_state(self, resource: str) -> Dict[str, Any]:
        for source in self.pipeline.state.get("sources", {}).values():
            if resource in source.get("resources", {}):
                return source["resources"][resource]
        return {}


class SparkloadSide:
    """One sparkload pipeline into one staging dataset."""

    def __init__(self, lakehouse: Any, home: Path, name: str):
        import python_extract as sl

        self.pipe = sl.pipeline(pipeline_name=name, dataset_name=name, lakehouse=lakehouse,
                                pipelines_dir=str(home / "sl_pipelines"))

    def run(self, resources: List[Any]) -> str:
        info = self.pipe.run(resources)
        return info.load_id or ""

    def tables(self, names: Optional[Iterable[str]] = None) -> Dict[str, Table]:
        spark, dataset = self.pipe.spark, self.pipe.dataset_name
        schema = self.pipe.default_schema
        wanted = set(names) if names is not None else None
        out: Dict[str, Table] = {}
        for table in schema.tables:
            if (wanted is not None and table not in wanted) or not spark.catalog.tableExists(f"{dataset}.{table}"):
                continue
            fields = spark.table(f"`{dataset}`.`{table}`").schema.fields
            declared = schema.typed_columns(table)
            types = {}
            for f in fields:
                simple = f.dataType.simpleString()
                types[f.name] = simple if simple.startswith("decimal") else (
                    "json" if declared.get(f.name) == "json" else SPARK_TYPES.get(simple, simple))
            # timestamps as UTC text: collect() would turn them into naive local datetimes
            select = ", ".join(
                f"date_format(`{n}`, \"yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX\") as `{n}`" if t == "timestamp" else f"`{n}`"
                for n, t in types.items())
            rows = spark.sql(f"select {select} from `{dataset}`.`{table}`").collect()
            out[table] = Table(types, [{n: comparable(v, types[n]) for n, v in r.asDict().items()} for r in rows])
        return out

    def resource_state(self, resource: str) -> Dict[str, Any]:
        self.pipe.sync_destination()
        for source in self.pipe.state.get("sources", {}).values():
            if resource in source.get("resources", {}):
                return source["resources"][resource]
        return {}
