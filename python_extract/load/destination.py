"""dlt's system tables in a dataset of the lakehouse: written by the load step, read to restore.
Their names and row layouts are the contract's (`DATASET_TABLES`, python_extract/contract.py):

    _dlt_loads             one row per load, written last
    _dlt_version           one row per schema version
    _dlt_pipeline_state    one row per load: the state committed with it
    _sparkload_load_tables one row per load and table, before _dlt_loads

`_sparkload_load_tables` is sparkload's own: one row per table a load's resources covered, also with
0 rows (a resource that yielded nothing), so a `replace` model can tell "this load emptied my table"
from "this load was for other tables". The extractor notes the covered tables in the package
(`record_coverage`); the load step writes them before the `_dlt_loads` row.

Restoring: the state is the newest `_dlt_pipeline_state` row of the pipeline whose load has a row in
`_dlt_loads` (any status: dbt may advance a status after applying a load; a load without its row never
completed). The schema is the newest `_dlt_version` row of the schema name. Every write checks first
that its row is not there yet, so a retried load writes each row once.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

from ..contract import (
    DATASET_TABLES, ICEBERG_COMMIT_PROPERTIES, LOAD_ID, LOAD_STATUS_ABORTED, LOAD_STATUS_COMPLETED, LOAD_TABLES_TABLE,
    LOADS_TABLE, STATE_TABLE, VERSION_TABLE, layout,
)
from ..lakehouse import session_format
from ..normalize.schema import ENGINE_VERSION, Schema
from ..state import State, compress, decompress, state_hash
from .sql import ident, literal, qualified, tblproperties

COVERAGE_FILE = "covered_tables.json"
DDL = {table: ", ".join(f"{ident(column)} {kind}" for column, kind in layout(table).items()) for table in DATASET_TABLES}
_ensured: set = set()
_versions_written: set = set()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def _exists(spark, dataset: str, table: str) -> bool:
    return spark.catalog.tableExists(f"{dataset}.{table}")


def ensure_dataset(spark, dataset: str) -> None:
    """Create the dataset and its system tables once per process."""
    key = (id(spark), dataset)
    if key in _ensured and _exists(spark, dataset, LOADS_TABLE):
        return
    spark.sql(f"create schema if not exists {ident(dataset)}")
    fmt = session_format(spark)
    # one commit per load each: their manifests are merged early (contract.ICEBERG_COMMIT_PROPERTIES)
    options = tblproperties(ICEBERG_COMMIT_PROPERTIES if fmt == "iceberg" else {})
    for table, ddl in DDL.items():
        spark.sql(f"create table if not exists {qualified(dataset, table)} ({ddl}) using {fmt}{options}")
    _ensured.add(key)


def _append(spark, dataset: str, table: str, row: tuple) -> None:
    spark.createDataFrame([row], DDL[table]).writeTo(qualified(dataset, table)).append()


def _has(spark, dataset: str, table: str, column: str, value: str) -> bool:
    sql = f"select 1 from {qualified(dataset, table)} where {ident(column)} = {literal(value)} limit 1"
    return bool(spark.sql(sql).take(1))


def write_schema_version(spark, dataset: str, schema: Schema) -> None:
    version_hash = schema.version_hash()
    key = (id(spark), dataset, version_hash)
    if key in _versions_written or _has(spark, dataset, VERSION_TABLE, "version_hash", version_hash):
        _versions_written.add(key)
        return
    body = json.dumps(schema.to_dict(), sort_keys=True)
    _append(spark, dataset, VERSION_TABLE, (schema.version, ENGINE_VERSION, _now(), schema.name, version_hash, body))
    _versions_written.add(key)


def write_state(spark, dataset: str, load_id: str, state: State, retry: bool = True) -> None:
    """The state row of `load_id`; `retry=False` (no earlier attempt) skips the existence check."""
    if retry and _has(spark, dataset, STATE_TABLE, LOAD_ID, load_id):
        return
    row = (int(float(load_id) * 1e6), ENGINE_VERSION, state["pipeline_name"], compress(state), _now(),
           state_hash(state), load_id, f"state_{load_id}")
    _append(spark, dataset, STATE_TABLE, row)


def record_coverage(package_root: Path, tables: Iterable[str]) -> None:
    """Note in a sealed package the tables its resources covered (rows or not)."""
    (Path(package_root) / COVERAGE_FILE).write_text(json.dumps(sorted(set(tables))))


def load_tables(package) -> Dict[str, int]:
    """{table: rows} a package's load covered: its tables with rows, and the noted tables without."""
    counts = dict(package.row_counts())
    path = Path(package.root) / COVERAGE_FILE
    for table in json.loads(path.read_text()) if path.exists() else []:
        counts.setdefault(table, 0)
    return counts


def write_load_tables(spark, dataset: str, load_id: str, counts: Dict[str, int], retry: bool = True) -> None:
    """The `_sparkload_load_tables` rows of `load_id`, replacing any an earlier attempt wrote (`retry=False`: no
    earlier attempt, nothing to replace)."""
    if not counts:
        return
    if retry:
        spark.sql(f"delete from {qualified(dataset, LOAD_TABLES_TABLE)} where `load_id` = {literal(load_id)}")
    rows = [(load_id, table, int(n)) for table, n in sorted(counts.items())]
    spark.createDataFrame(rows, DDL[LOAD_TABLES_TABLE]).writeTo(qualified(dataset, LOAD_TABLES_TABLE)).append()


def complete_load(spark, dataset: str, load_id: str, schema: Schema, retry: bool = True) -> None:
    """Write the `_dlt_loads` row (status LOAD_STATUS_COMPLETED): from now on the load is visible to dbt."""
    if retry and _has(spark, dataset, LOADS_TABLE, "load_id", load_id):
        return
    _append(spark, dataset, LOADS_TABLE, (load_id, schema.name, LOAD_STATUS_COMPLETED, _now(), schema.version_hash()))


def abort_load(spark, dataset: str, load_id: str) -> Optional[int]:
    """Mark a completed load aborted (status LOAD_STATUS_ABORTED): models skip it from now on, so a load a
    model refused no longer blocks the loads after it. Returns its status before, None if no such
    load; aborting an aborted load changes nothing."""
    if not _exists(spark, dataset, LOADS_TABLE):
        return None
    where = f"`load_id` = {literal(load_id)}"
    found = spark.sql(f"select `status` from {qualified(dataset, LOADS_TABLE)} where {where}").take(1)
    if not found:
        return None
    if found[0]["status"] != LOAD_STATUS_ABORTED:
        spark.sql(f"update {qualified(dataset, LOADS_TABLE)} set `status` = {LOAD_STATUS_ABORTED} where {where}")
    return found[0]["status"]


def read_state(spark, dataset: str, pipeline_name: str) -> Optional[Dict[str, Any]]:
    """The newest state of `pipeline_name` whose load is complete, with its load id; None if none."""
    if not _exists(spark, dataset, STATE_TABLE) or not _exists(spark, dataset, LOADS_TABLE):
        return None
    sql = (
        f"select s.`state`, s.{ident(LOAD_ID)} from {qualified(dataset, STATE_TABLE)} s "
        f"where s.`pipeline_name` = {literal(pipeline_name)} and exists (select 1 from {qualified(dataset, LOADS_TABLE)} l "
        f"where l.`load_id` = s.{ident(LOAD_ID)}) order by s.{ident(LOAD_ID)} desc limit 1"
    )
    found = spark.sql(sql).take(1)
    if not found:
        return None
    state = decompress(found[0]["state"])
    state["_load_id"] = found[0][LOAD_ID]
    return state


def read_schema(spark, dataset: str, schema_name: str) -> Optional[Schema]:
    if not _exists(spark, dataset, VERSION_TABLE):
        return None
    sql = (f"select `schema` from {qualified(dataset, VERSION_TABLE)} where `schema_name` = {literal(schema_name)} "
           f"order by `version` desc, `inserted_at` desc limit 1")
    found = spark.sql(sql).take(1)
    return Schema.from_dict(json.loads(found[0]["schema"])) if found else None


def list_loads(spark, dataset: str, schema_name: Optional[str] = None) -> List[Dict[str, Any]]:
    if not _exists(spark, dataset, LOADS_TABLE):
        return []
    where = f" where `schema_name` = {literal(schema_name)}" if schema_name else ""
    rows = spark.sql(f"select * from {qualified(dataset, LOADS_TABLE)}{where} order by `load_id`").collect()
    return [r.asDict() for r in rows]


def count_rows_by_load(spark, dataset: str, tables: List[str]) -> Dict[str, Dict[str, int]]:
    """{load_id: {table: rows}} over the given staging tables."""
    counts: Dict[str, Dict[str, int]] = {}
    for table in tables:
        if not _exists(spark, dataset, table):
            continue
        sql = f"select {ident(LOAD_ID)} as load_id, count(*) as n from {qualified(dataset, table)} group by {ident(LOAD_ID)}"
        for r in spark.sql(sql).collect():
            counts.setdefault(r["load_id"], {})[table] = r["n"]
    return counts


def drop_tables(spark, dataset: str, tables: List[str]) -> List[str]:
    dropped = []
    for table in tables:
        if _exists(spark, dataset, table):
            spark.sql(f"drop table {qualified(dataset, table)}")
            dropped.append(table)
    return dropped
