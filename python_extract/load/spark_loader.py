"""Load stage: lands a load package's tables into staging tables of the lakehouse, then writes its
state row, then marks the load complete with its `_dlt_loads` row (written last, status 0).

Reads a `LoadPackage`; writes `<dataset>._dlt_version` (when the schema is new), `<dataset>.<table>`
(created on first use with the session's table format, new columns added with ALTER TABLE ADD COLUMNS),
`<dataset>._dlt_pipeline_state` and `<dataset>._dlt_loads`. A table whose landing may have been
interrupted first loses the rows of this load id, so landing a package twice never duplicates rows.
Raises `PipelineStepFailed(step='load', load_id, table)`.
"""
from __future__ import annotations

import logging
from typing import Optional

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


def _spark_schema(package: LoadPackage, table: str) -> str:
    columns = package.schema.typed_columns(table)
    return ", ".join(f"{ident(c)} {spark_type(t)}" for c, t in columns.items())


def land_table(spark, package: LoadPackage, table: str) -> None:
    """Append the package's rows of `table`; a retried landing first removes what the attempt wrote."""
    dataset, fmt = package.dataset, session_format(spark)
    name = qualified(dataset, table)
    df = spark.read.schema(_spark_schema(package, table)).parquet(str(package.table_dir(table)))
    if not spark.catalog.tableExists(f"{dataset}.{table}"):
        create = df.limit(0).writeTo(name).using(fmt)
        for key, value in TABLE_PROPERTIES.get(fmt, {}).items():
            create = create.tableProperty(key, value)
        create.create()
    else:
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


def load_package(spark, storage: PackageStorage, package: LoadPackage, hooks: Optional[Hooks] = None) -> LoadPackage:
    """Land every table of `package`, then its state row, then complete it; returns the package, now
    in loaded/."""
    hooks = hooks or Hooks()
    dataset, load_id = package.dataset, package.load_id
    step = VERSION_TABLE
    try:
        ensure_dataset(spark, dataset)
        schema = package.schema
        write_schema_version(spark, dataset, schema)
        for table in package.tables():
            step = table
            if not package.is_landed(table):
                land_table(spark, package, table)
                package.mark_landed(table)
                hooks.emit("table_landed", package=package, table=table)
        hooks.emit("tables_landed", package=package)
        state = package.state
        if state is not None:
            step = STATE_TABLE
            retry = package.landing_started(STATE_TABLE)
            package.mark_landing(STATE_TABLE)
            write_state(spark, dataset, load_id, state, retry=retry)
            hooks.emit("state_written", package=package)
        step = LOADS_TABLE
        retry = package.landing_started(LOADS_TABLE)
        package.mark_landing(LOADS_TABLE)
        complete_load(spark, dataset, load_id, schema, retry=retry)
    except PipelineStepFailed:
        raise
    except Exception as e:  # noqa: BLE001 - rewrapped with the load and table named
        raise PipelineStepFailed("load", f"{type(e).__name__}: {str(e)[:2000]}", load_id=load_id, table=step) from e
    hooks.emit("load_completed", package=package)
    log.info("load %s complete: %s", load_id, ", ".join(package.tables()) or "state only")
    return storage.complete(package)
