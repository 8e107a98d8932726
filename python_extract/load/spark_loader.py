"""Load stage: lands a load package's tables into staging tables of the lakehouse, then marks the load
complete with its `_dlt_loads` row (written last, status 0).

Reads a `LoadPackage`; writes `<dataset>.<table>` (created on first use with the session's table format,
new columns added as they appear) and `<dataset>._dlt_loads`. A table whose landing may have been
interrupted first loses the rows of this load id, so landing a package twice never duplicates rows.
Raises `PipelineStepFailed(step='load', load_id, table)`.
"""
from __future__ import annotations

import datetime as dt
import logging

from ..errors import PipelineStepFailed
from ..lakehouse import session_format
from ..normalize.schema import spark_type
from ..packages import LoadPackage, PackageStorage
from .sql import ident, literal, qualified

log = logging.getLogger("sparkload.load")

LOADS_TABLE = "_dlt_loads"
LOADS_DDL = "`load_id` string, `schema_name` string, `status` bigint, `inserted_at` timestamp, `schema_version_hash` string"


def _table_exists(spark, dataset: str, table: str) -> bool:
    return spark.catalog.tableExists(f"{dataset}.{table}")


def _spark_schema(package: LoadPackage, table: str) -> str:
    columns = package.schema.tables[table].columns
    return ", ".join(f"{ident(c)} {spark_type(meta['data_type'] or 'text')}" for c, meta in columns.items())


def ensure_dataset(spark, dataset: str) -> None:
    spark.sql(f"create schema if not exists {ident(dataset)}")
    fmt = session_format(spark)
    spark.sql(f"create table if not exists {qualified(dataset, LOADS_TABLE)} ({LOADS_DDL}) using {fmt}")


def land_table(spark, package: LoadPackage, table: str) -> None:
    """Append the package's rows of `table`; a retried landing first removes what the attempt wrote."""
    dataset, fmt = package.dataset, session_format(spark)
    name = qualified(dataset, table)
    df = spark.read.schema(_spark_schema(package, table)).json(str(package.table_file(table)))
    if not _table_exists(spark, dataset, table):
        df.limit(0).writeTo(f"{ident(dataset)}.{ident(table)}").using(fmt).create()
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
    aligned.writeTo(f"{ident(dataset)}.{ident(table)}").append()


def complete_load(spark, package: LoadPackage) -> None:
    """Write the `_dlt_loads` row (status 0): from now on the load is visible to dbt."""
    loads = qualified(package.dataset, LOADS_TABLE)
    already = spark.sql(f"select 1 from {loads} where `load_id` = {literal(package.load_id)}").take(1)
    if already:
        return
    schema = package.schema
    row = [(package.load_id, schema.name, 0, dt.datetime.now(dt.timezone.utc).replace(tzinfo=None), schema.version_hash())]
    spark.createDataFrame(row, LOADS_DDL).writeTo(loads).append()


def load_package(spark, storage: PackageStorage, package: LoadPackage) -> LoadPackage:
    """Land every table of `package`, then complete it; returns the package, now in loaded/."""
    ensure_dataset(spark, package.dataset)
    tables = package.tables()
    for table in tables:
        if package.is_landed(table):
            continue
        try:
            land_table(spark, package, table)
        except Exception as e:  # noqa: BLE001 - rewrapped with the load and table named
            raise PipelineStepFailed("load", str(e), load_id=package.load_id, table=table) from e
        package.mark_landed(table)
    try:
        complete_load(spark, package)
    except Exception as e:  # noqa: BLE001
        raise PipelineStepFailed("load", str(e), load_id=package.load_id, table=LOADS_TABLE) from e
    log.info("load %s complete: %s", package.load_id, ", ".join(tables))
    return storage.complete(package)
