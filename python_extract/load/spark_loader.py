"""Load stage: lands a load package's tables into staging tables of the lakehouse, then writes its
state row, then marks the load complete with its `_dlt_loads` row (written last, status 0).

Reads a `LoadPackage`; writes `<dataset>._dlt_version` (when the schema is new), `<dataset>.<table>`
(created on first use with the session's table format, new columns added with ALTER TABLE ADD COLUMNS),
`<dataset>._dlt_pipeline_state` and `<dataset>._dlt_loads`. A table whose landing may have been
interrupted first loses the rows of this load id, so landing a package twice never duplicates rows.
Writers of other pipelines may land into the same dataset at the same time: a step that loses a race
(a commit conflict, a table another writer created first) is retried, which the rules above make safe.
Raises `PipelineStepFailed(step='load', load_id, table)`.
"""
from __future__ import annotations

import logging
import random
import time
from typing import Callable, Optional

from ..errors import PipelineStepFailed
from ..hooks import Hooks
from ..lakehouse import session_format
from ..normalize.schema import spark_type
from ..packages import LoadPackage, PackageStorage
from .destination import LOADS_TABLE, STATE_TABLE, VERSION_TABLE, complete_load, ensure_dataset, write_schema_version, write_state
from .sql import ident, literal, qualified

log = logging.getLogger("sparkload.load")
# staging tables are written once per load and read soon after: snappy writes faster than Iceberg's zstd default
TABLE_PROPERTIES = {"iceberg": {"write.parquet.compression-codec": "snappy"}}
# what another writer of the same dataset can make a step fail with; the step is then run again
CONFLICTS = ("CommitFailedException", "CommitStateUnknownException", "TableAlreadyExistsException",
             "ConcurrentAppendException", "ConcurrentModificationException", "already exists")
ATTEMPTS = 6


def _retrying(step: Callable[[bool], None], what: str) -> None:
    """Run `step(again)` (`again`: an earlier attempt may have written) until no conflict stops it."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            step(attempt > 1)
            return
        except Exception as e:  # noqa: BLE001 - only the conflicts above are retried
            if attempt == ATTEMPTS or not any(marker in str(e) for marker in CONFLICTS):
                raise
            log.warning("%s lost a race with another writer (attempt %d): %s", what, attempt, str(e).splitlines()[0][:200])
            time.sleep(random.uniform(0.2, 1.0) * attempt)


def _spark_schema(package: LoadPackage, table: str) -> str:
    columns = package.schema.typed_columns(table)
    return ", ".join(f"{ident(c)} {spark_type(t)}" for c, t in columns.items())


def land_table(spark, package: LoadPackage, table: str) -> None:
    """Append the package's rows of `table`; a retried landing first removes what the attempt wrote."""
    dataset, fmt = package.dataset, session_format(spark)
    name = qualified(dataset, table)
    df = spark.read.schema(_spark_schema(package, table)).parquet(str(package.table_dir(table)))
    if not spark.catalog.tableExists(f"{dataset}.{table}"):
        # a new table is created with the rows in one atomic statement (a retry finds it and goes on below)
        package.mark_landing(table)
        create = df.writeTo(name).using(fmt)
        for key, value in TABLE_PROPERTIES.get(fmt, {}).items():
            create = create.tableProperty(key, value)
        create.create()
        return
    existing = {f.name for f in spark.table(name).schema.fields}
    new = [f for f in df.schema.fields if f.name not in existing]
    if new:
        cols = ", ".join(f"{ident(f.name)} {f.dataType.simpleString()}" for f in new)
        spark.sql(f"alter table {name} add columns ({cols})")
    if package.landing_started(table):
        spark.sql(f"delete from {name} where `_dlt_load_id` = {literal(package.load_id)}")
    package.mark_landing(table)
    target_fields = spark.table(name).schema.fields
    have = set(df.columns)
    aligned = df.selectExpr(*[
        ident(f.name) if f.name in have else f"cast(null as {f.dataType.simpleString()}) as {ident(f.name)}"
        for f in target_fields
    ])
    aligned.writeTo(name).append()


def unland_package(spark, package: LoadPackage) -> None:
    """Delete the rows `package` landed so far (it never completed: no `_dlt_loads` row), before it is
    quarantined."""
    for table in package.landing_tables():
        if spark.catalog.tableExists(f"{package.dataset}.{table}"):
            spark.sql(f"delete from {qualified(package.dataset, table)} where `_dlt_load_id` = {literal(package.load_id)}")


def load_package(spark, storage: PackageStorage, package: LoadPackage, hooks: Optional[Hooks] = None) -> LoadPackage:
    """Land every table of `package`, then its state row, then complete it; returns the package, now
    in loaded/."""
    hooks = hooks or Hooks()
    dataset, load_id = package.dataset, package.load_id
    step = VERSION_TABLE
    try:
        _retrying(lambda again: ensure_dataset(spark, dataset), f"load {load_id} dataset {dataset}")
        schema = package.schema
        _retrying(lambda again: write_schema_version(spark, dataset, schema), f"load {load_id} {VERSION_TABLE}")
        for table in package.tables():
            step = table
            if not package.is_landed(table):
                _retrying(lambda again: land_table(spark, package, table), f"load {load_id} table {table}")
                package.mark_landed(table)
                hooks.emit("table_landed", package=package, table=table)
        hooks.emit("tables_landed", package=package)
        state = package.state
        if state is not None:
            step = STATE_TABLE
            retry = package.landing_started(STATE_TABLE)
            package.mark_landing(STATE_TABLE)
            _retrying(lambda again: write_state(spark, dataset, load_id, state, retry=retry or again), f"load {load_id} {STATE_TABLE}")
            hooks.emit("state_written", package=package)
        step = LOADS_TABLE
        retry = package.landing_started(LOADS_TABLE)
        package.mark_landing(LOADS_TABLE)
        _retrying(lambda again: complete_load(spark, dataset, load_id, schema, retry=retry or again), f"load {load_id} {LOADS_TABLE}")
    except PipelineStepFailed:
        raise
    except Exception as e:  # noqa: BLE001 - rewrapped with the load and table named
        raise PipelineStepFailed("load", f"{type(e).__name__}: {str(e)[:2000]}", load_id=load_id, table=step) from e
    hooks.emit("load_completed", package=package)
    log.info("load %s complete: %s", load_id, ", ".join(package.tables()) or "state only")
    return storage.complete(package)
