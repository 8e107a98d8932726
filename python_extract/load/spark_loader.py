"""Load stage: lands a load package's tables into staging tables of the lakehouse, and beside them writes
its schema version, its state row and the tables its resources covered (`_sparkload_load_tables`), then
marks the load complete with its `_dlt_loads` row (written last, status 0, once all the others committed).

Reads a `LoadPackage`; writes `<dataset>._dlt_version` (when the schema is new), `<dataset>.<table>`
(created on first use with the session's table format, new columns added with ALTER TABLE ADD COLUMNS),
`<dataset>._dlt_pipeline_state` and `<dataset>._dlt_loads`. An Iceberg table in a local warehouse takes
the package's Parquet files as they are (linked into `<table>/data/load-<load_id>-<attempt>/` and registered with
Iceberg's `add_files`); other tables get the rows appended by Spark. Over Spark Connect (`lakehouse/remote.py`: no JVM in
this process) every table gets its rows by Spark, which the server reads from the package's folder. A table whose landing may have been
interrupted first loses the rows of this load id, so landing a package twice never duplicates rows.
Writers of other pipelines may land into the same dataset at the same time: a step that loses a race
(a commit conflict, a table another writer created first) is retried, which the rules above make safe.
Raises `PipelineStepFailed(step='load', load_id, table)`.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import random
import re
import shutil
import time
from concurrent.futures import as_completed
from pathlib import Path
from typing import Callable, Dict, List, Optional
from urllib.parse import unquote, urlparse

from ..contract import ICEBERG_COMMIT_PROPERTIES, INTEGER_PRECISIONS, LOAD_ID
from ..errors import PipelineStepFailed
from ..hooks import Hooks
from ..lakehouse import session_format
from ..lakehouse.abandoned import abandoned_table, clear_abandoned_create
from ..lakehouse.delta_log import log_dir as delta_log_dir
from ..lakehouse.locations import local_folder
from ..lakehouse.java_errors import exception_line
from ..lakehouse.remote import explained, is_remote
from ..normalize.schema import arrow_of_spark
from ..packages import LoadPackage, PackageStorage
from . import threads
from .destination import (
    LOAD_TABLES_TABLE, LOADS_TABLE, STATE_TABLE, VERSION_TABLE, complete_load, ensure_dataset, load_tables, write_load_tables,
    write_schema_version, write_state,
)
from .sql import ident, literal, qualified, tblproperties

log = logging.getLogger("sparkload.load")
# staging tables are written once per load and read soon after: snappy writes faster than Iceberg's zstd default
TABLE_PROPERTIES = {"iceberg": {"write.parquet.compression-codec": "snappy", **ICEBERG_COMMIT_PROPERTIES}}
# what another writer of the same dataset can make a step fail with; the step is then run again
# (Iceberg's JDBC catalog reports two writers creating one namespace at once as an UncheckedSQLException
# around the catalog database's unique-key violation; Delta's optimistic concurrency names the conflict:
# files added, read files deleted, the table's metadata or protocol changed by another commit)
CONFLICTS = ("CommitFailedException", "CommitStateUnknownException", "TableAlreadyExistsException",
             "ConcurrentAppendException", "ConcurrentModificationException", "ConcurrentDeleteReadException",
             "ConcurrentDeleteDeleteException", "ConcurrentTransactionException", "MetadataChangedException",
             "ProtocolChangedException", "already exists", "UncheckedSQLException",
             "Unique index or primary key violation")
ATTEMPTS = 6


def _retrying(spark, step: Callable[[bool], None], what: str) -> None:
    """Run `step(again)` (`again`: an earlier attempt may have written) until no conflict stops it."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            step(attempt > 1)
            return
        except Exception as e:  # noqa: BLE001 - only the conflicts above are retried
            abandoned = abandoned_table(str(e))
            if attempt < ATTEMPTS and abandoned and clear_abandoned_create(
                    str(e), lambda: spark.catalog.tableExists(abandoned[0].replace("`", ""))):
                continue  # a killed process's creation of the table: gone now
            if attempt == ATTEMPTS or not any(marker in str(e) for marker in CONFLICTS):
                raise
            log.warning("%s lost a race with another writer (attempt %d): %s", what, attempt, str(e).splitlines()[0][:200])
            time.sleep(random.uniform(0.2, 1.0) * attempt)


def _spark_schema(package: LoadPackage, table: str) -> str:
    return ", ".join(f"{ident(c)} {t}" for c, t in package.schema.spark_types(table).items())


def land_table(spark, package: LoadPackage, table: str) -> None:
    """Append the package's rows of `table`; a retried landing first removes what the attempt wrote.

    Iceberg tables in a local warehouse take the package's Parquet files as they are (linked into the
    table's data folder and registered with Iceberg's `add_files`: one commit, no rewrite; a new unpartitioned
    table is created in that commit); otherwise Spark reads them and appends (a new table is created with its
    rows in one statement)."""
    dataset, fmt = package.dataset, session_format(spark)
    name = qualified(dataset, table)
    exists = spark.catalog.tableExists(f"{dataset}.{table}")
    local_iceberg = fmt == "iceberg" and _local_warehouse(spark)
    if not exists and local_iceberg and not _partition_columns(package, table):
        package.mark_landing(table)
        if _create_with_files(spark, package, table):  # the table with its rows in one commit
            return
    if not exists and not local_iceberg:
        # a new table is created with the rows in one atomic statement (a retry finds it and goes on below)
        package.mark_landing(table)
        create = _package_rows(spark, package, table).writeTo(name).using(fmt)
        partition = _partition_columns(package, table)  # the `partition` column hint (issue 35)
        if partition:
            from pyspark.sql.functions import col
            create = create.partitionedBy(*[col(c) for c in partition])
        for key, value in TABLE_PROPERTIES.get(fmt, {}).items():
            create = create.tableProperty(key, value)
        create.create()
        return
    _ensure_columns(spark, package, table, name, exists, fmt)
    if exists and package.landing_started(table):
        spark.sql(f"delete from {name} where {ident(LOAD_ID)} = {literal(package.load_id)}")
    package.mark_landing(table)
    data_dir = _local_data_dir(spark, name) if fmt == "iceberg" and not _partition_columns(package, table) else None
    if data_dir is not None:
        unfit = _unfit_for_registration(spark, package, table, name)
        if unfit is None:
            _add_files(spark, package, table, name, data_dir)
            return
        log.warning("%s: the package's files are rewritten by Spark, not registered as they are: %s", name, unfit)
    rows = _package_rows(spark, package, table)
    have = {f.name: f.dataType for f in rows.schema.fields}
    # the table's columns in its order and types (`unfit_table` let through only types that store without
    # loss; Delta casts no type on append, Iceberg does); a column the rows lack is NULL
    aligned = rows.selectExpr(*[
        ident(f.name) if have.get(f.name) == f.dataType else f"cast({ident(f.name) if f.name in have else 'null'} as {f.dataType.simpleString()}) as {ident(f.name)}"
        for f in spark.table(name).schema.fields
    ])
    aligned.writeTo(name).append()


INTEGERS = tuple(spark for _, spark in INTEGER_PRECISIONS)  # narrowest first
DIGITS = {spark: len(str(2 ** (bits - 1))) for bits, spark in INTEGER_PRECISIONS}  # the decimal digits each holds
DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")


def _stores_without_loss(rows: str, column: str) -> bool:
    """Whether Spark stores a value of type `rows` in a column of type `column` without loss (and without
    its ANSI store assignment refusing it): the same type, any value as text, a wider number, a date as
    a timestamp."""
    if rows == column or column == "string":
        return True
    if rows in INTEGERS:
        if column in INTEGERS:
            return INTEGERS.index(column) >= INTEGERS.index(rows)
        decimal = DECIMAL.fullmatch(column)
        return column == "double" and rows != "bigint" or bool(decimal and int(decimal[1]) - int(decimal[2]) >= DIGITS[rows])
    if rows == "float":
        return column == "double"
    narrow, wide = DECIMAL.fullmatch(rows), DECIMAL.fullmatch(column)
    if narrow and wide:
        return int(wide[2]) >= int(narrow[2]) and int(wide[1]) - int(wide[2]) >= int(narrow[1]) - int(narrow[2])
    return rows == "date" and column in ("timestamp", "timestamp_ntz")


def unfit_table(spark, package: LoadPackage, table: str) -> Optional[str]:
    """Why the dataset's existing `table` cannot take the package's rows, else None: a table made or changed
    outside the pipeline with a column of a type the rows do not store in without loss, a required column
    the rows lack, or a partition column the rows lack (its rows would all land with it NULL)."""
    name = f"{package.dataset}.{table}"
    # the table's schema (no Spark job), not `catalog.listColumns` (two jobs, 70-90 ms a Delta table), which is
    # asked only for the partition columns of a table with a column the rows lack
    fields = {f.name: f for f in spark.table(name).schema.fields}
    rows = package.schema.spark_types(table)
    for column, kind in rows.items():
        found = fields.get(column)
        declared = found is not None and _declared_type(found)
        if found is not None and not _stores_without_loss(kind, declared):
            return (f"column {column} is {declared} in the lakehouse's table {name} and {kind} in the load's rows, "
                    f"which do not store in it without loss")
    lacking = [f for f in fields.values() if f.name not in rows]
    for field in lacking:
        if not field.nullable:
            return f"the lakehouse's table {name} requires column {field.name} (NOT NULL), which the load's rows lack"
    partitions = {c.name for c in spark.catalog.listColumns(name) if c.isPartition} if lacking else set()
    for field in lacking:
        if field.name in partitions:
            return (f"the lakehouse's table {name} is partitioned by column {field.name}, which the load's rows lack "
                    f"(every row would land with it NULL)")
    return None


def _declared_type(field) -> str:
    """A column's type as declared (`varchar(10)`, which Spark reads as a string and checks on write), as
    `catalog.listColumns` gives it."""
    return field.metadata.get("__CHAR_VARCHAR_TYPE_STRING") or field.dataType.simpleString()


def _broken_delta_commit(spark, name: str) -> Optional[str]:
    """A commit file of a local Delta table, since its last checkpoint, that is not JSON line by line, else
    None: Delta reads such a line as no action at all (a commit's files vanish from the table) and commits
    on top of it. (Not checked on object storage.)"""
    try:
        log_dir = delta_log_dir(spark, name)
    except ValueError:  # on object storage
        return None
    try:
        checkpoint = json.loads((log_dir / "_last_checkpoint").read_text())["version"]
    except (OSError, ValueError, KeyError):
        checkpoint = -1
    for commit in sorted(log_dir.glob("[0-9]*.json")):
        if int(commit.stem) <= checkpoint:
            continue
        for number, line in enumerate(commit.read_text(errors="replace").splitlines(), 1):
            try:
                json.loads(line)
            except ValueError:
                return (f"the lakehouse's table {name} has a corrupt commit: line {number} of {commit} is not JSON "
                        "(restore the file, or restore the table to the version before it)")
    return None


def refuse_unfit_tables(spark, package: LoadPackage) -> None:
    """Before anything of the package lands: a table it cannot land in fails the load, naming the table,
    the column and the load; nothing is landed. (One table after another: checked on the load's threads they
    took longer, 3.3 s against 2.1 s for 50 Iceberg tables, 21.6 against 18.6 s on Delta: the checks contend
    for the driver's two cores and the catalog.)"""
    delta = session_format(spark) == "delta"
    for table in package.tables():
        if package.is_landed(table):
            continue
        try:
            if not spark.catalog.tableExists(f"{package.dataset}.{table}"):
                continue
            unfit = unfit_table(spark, package, table)
            # after the table's columns were read: a commit this Delta Lake cannot read failed that read, naming it
            broken = _broken_delta_commit(spark, f"{package.dataset}.{table}") if delta and not unfit else None
        except Exception as e:  # noqa: BLE001 - e.g. a Delta table whose protocol or log this Delta Lake cannot read
            if any(marker in str(e) for marker in CONFLICTS):
                raise
            raise PipelineStepFailed("load", f"the lakehouse's table {package.dataset}.{table} cannot be read: {exception_line(e)}; "
                                     "nothing of the load was landed", load_id=package.load_id, table=table) from e
        if broken:
            raise PipelineStepFailed("load", f"{broken}; nothing of the load was landed", load_id=package.load_id, table=table)
        if unfit:
            raise PipelineStepFailed("load", f"{unfit}; the table was made or changed outside this pipeline: change or "
                                     "drop it, or load into another dataset. Nothing of the load was landed",
                                     load_id=package.load_id, table=table)


def _package_rows(spark, package: LoadPackage, table: str):
    # an absolute path: a Spark Connect server resolves a relative one against its own working directory
    return spark.read.schema(_spark_schema(package, table)).parquet(str(package.table_dir(table).resolve()))


def _ensure_columns(spark, package: LoadPackage, table: str, name: str, exists: bool, fmt: str) -> None:
    """Create the table (empty) or add the package's new columns to it."""
    if not exists:
        partition = ", ".join(ident(c) for c in _partition_columns(package, table))
        spark.sql(f"create table {name} ({_spark_schema(package, table)}) using {fmt}"
                  + (f" partitioned by ({partition})" if partition else "")
                  + tblproperties(TABLE_PROPERTIES.get(fmt, {})))
        return
    existing = {f.name for f in spark.table(name).schema.fields}
    new = [(c, t) for c, t in package.schema.spark_types(table).items() if c not in existing]
    if new:
        spark.sql(f"alter table {name} add columns ({', '.join(f'{ident(c)} {t}' for c, t in new)})")


def _partition_columns(package: LoadPackage, table: str) -> List[str]:
    """The columns of `table` with the `partition` hint: a new staging table is partitioned by them."""
    meta = package.schema.tables.get(table)
    return meta.column_hint("partition") if meta is not None else []


def _local_warehouse(spark) -> bool:
    """Whether the (Iceberg) warehouse is on this machine's file system, so the package's files can be registered
    as they are; never over Spark Connect (the server's file system; and registering calls the JVM here)."""
    if is_remote(spark):
        return False
    catalog = spark.conf.get("spark.sql.defaultCatalog", None)
    warehouse = spark.conf.get(f"spark.sql.catalog.{catalog}.warehouse", None) if catalog else None
    return bool(warehouse) and urlparse(warehouse).scheme in ("", "file")


def _local_data_dir(spark, name: str) -> Optional[Path]:
    """The data folder of an Iceberg table when it lives on the local file system, else None (over Spark Connect
    always: see `_local_warehouse`). Read off the table Iceberg's catalog loads (a few ms), not `describe table
    extended` (50-150 ms a table in a load of 50 existing tables on 4 threads)."""
    if is_remote(spark):
        return None
    folder = local_folder(_iceberg_table(spark, name).location())
    return folder / "data" if folder is not None else None


def _iceberg_table(spark, name: str):
    """The Iceberg table `name` (`dataset`.`table`) of the session's catalog, as Iceberg's Java API gives it."""
    # by the catalog's name: a thread of the load's pool resolves an unqualified name in spark_catalog
    return spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
        spark._jsparkSession, f"{ident(spark.conf.get('spark.sql.defaultCatalog'))}.{name}")


def _narrower_int(found, want) -> bool:
    """An int8 or int16 Parquet column where the table has int: Iceberg has no tinyint or smallint (a
    column of a bigint with precision 8 or 16 is an int there) and reads them as int."""
    import pyarrow as pa

    return want == pa.int32() and found in (pa.int8(), pa.int16())


def _unfit_for_registration(spark, package: LoadPackage, table: str, name: str, schema=None) -> Optional[str]:
    """Why the package's Parquet files of `table` cannot be registered as they are, else None.

    Iceberg reads a registered file by column name, with the table's types (its Spark `schema`, read off
    table `name` when not given): every column of every part must carry exactly the Parquet type Spark would
    write for the table's column, and a column the part lacks must be nullable. Otherwise (e.g. a table
    another writer created with other types) the rows go through Spark, whose casts or errors then apply."""
    import pyarrow.parquet as pq

    fields = {f.name: f for f in (schema or spark.table(name).schema).fields}
    for part in sorted(package.table_dir(table).glob("*.parquet")):
        schema = pq.read_schema(part)
        for column in schema:
            field = fields.get(column.name)
            if field is None:
                return f"column {column.name} of {part.name} is not a column of the table"
            want = arrow_of_spark(field.dataType.simpleString())
            if want is None or (column.type != want and not _narrower_int(column.type, want)):
                return f"column {column.name} is {column.type} in {part.name}, {field.dataType.simpleString()} in the table"
        missing = [f for f in fields.values() if f.name not in schema.names and not f.nullable]
        if missing:
            return f"column {missing[0].name} is required by the table and missing from {part.name}"
    return None


def _add_files(spark, package: LoadPackage, table: str, name: str, data_dir: Path,
               register: Optional[Callable[[Path], None]] = None) -> None:
    """Link the package's Parquet parts of `table` into a new folder of the table's own and register them
    (`register(folder)`: one commit that also creates the table; by default appended to the existing table).

    Each attempt takes a folder of its own (`load-<load_id>-<attempt>`): a file an earlier attempt
    registered stays where older snapshots (and readers of them) find it; an earlier attempt's folder no
    snapshot references (killed between linking and committing) is deleted after this attempt committed.
    Hard links (copies across file systems) keep the files when the package is deleted; their time is
    set to now, so no orphan-file removal takes them for old before they are committed."""
    attempt = re.compile(rf"load-{re.escape(package.load_id)}-(\d+)")
    earlier = {d: int(m.group(1)) for d in data_dir.glob(f"load-{package.load_id}-*") if (m := attempt.fullmatch(d.name))}
    target = data_dir / f"load-{package.load_id}-{1 + max(earlier.values(), default=0)}"
    parts = sorted(package.table_dir(table).glob("*.parquet"))
    if not parts:
        return
    _link(parts, target)
    if register is not None:
        register(target)
    elif not _append_files(spark, name, target):
        catalog = spark.conf.get("spark.sql.defaultCatalog")
        source = "`parquet`.`" + target.as_uri() + "`"
        spark.sql(f"call {ident(catalog)}.system.add_files(table => {literal(name)}, source_table => {literal(source)}, "
                  "check_duplicate_files => false, parallelism => 4)").collect()
    if earlier:
        referenced = {Path(unquote(urlparse(r[0]).path)).parent.name for r in spark.sql(
            f"select file_path from {name}.all_data_files where file_path like {literal(f'%/load-{package.load_id}-%')}").collect()}
        for folder in earlier:
            if folder.name not in referenced:
                shutil.rmtree(folder, ignore_errors=True)


NAME_MAPPING = "schema.name-mapping.default"


def _append_files(spark, name: str, folder: Path) -> bool:
    """Register the Parquet files of `folder` with the unpartitioned Iceberg table `name` in one append commit,
    as `add_files` does (the table's metrics settings; a name mapping, set on the table first if it has none,
    reads the files' columns by name) but in this process: `add_files` runs two Spark jobs a table (footers,
    then a staged manifest), most of a small table's landing. False for a partitioned table (the caller then
    calls `add_files`)."""
    iceberg = spark._jvm.org.apache.iceberg
    table = _iceberg_table(spark, name)
    if not table.spec().isUnpartitioned():
        return False
    mapping_json = table.properties().get(NAME_MAPPING)
    if mapping_json is None:
        mapping = iceberg.mapping.MappingUtil.create(table.schema())
        table.updateProperties().set(NAME_MAPPING, iceberg.mapping.NameMappingParser.toJson(mapping)).commit()
    else:
        mapping = iceberg.mapping.NameMappingParser.fromJson(mapping_json)
    _append_folder(spark, table, table, folder, mapping)
    return True


def _append_folder(spark, table, updates, folder: Path, mapping) -> None:
    """One append, to `updates` (Iceberg table `table`, or a transaction creating it), of the Parquet files of
    `folder`, with their metrics read from their footers by the table's metrics settings and their columns by
    name (`mapping`)."""
    jvm = spark._jvm
    iceberg = jvm.org.apache.iceberg
    files = iceberg.data.TableMigrationUtil.listPartition(
        jvm.java.util.HashMap(), folder.as_uri(), "parquet", table.spec(), spark._jsc.hadoopConfiguration(),
        iceberg.MetricsConfig.forTable(table), mapping)
    append = updates.newAppend()
    for data_file in files:
        append.appendFile(data_file)
    append.commit()


def _create_with_files(spark, package: LoadPackage, table: str) -> bool:
    """Create the new unpartitioned Iceberg table `table` with the package's Parquet files in one commit of
    one transaction: the table, its properties, the name mapping that reads the files' columns by name, and
    the append (created by SQL, then mapped, then appended, a new table took three commits: 162 against
    99 ms a table, measured on 60 small tables in one process). The table's schema is what a `create table`
    of the package's columns makes. False, with nothing created, when the files do not fit that schema or the
    table's location is not on this machine (the caller then creates the table and has Spark write the rows). Another writer creating the table first
    makes the commit fail with Iceberg's "already exists", which the caller's retry takes as a conflict."""
    from pyspark.sql.types import StructType

    jvm = spark._jvm
    iceberg = jvm.org.apache.iceberg
    schema = iceberg.spark.SparkSchemaUtil.convert(jvm.org.apache.spark.sql.types.StructType.fromDDL(_spark_schema(package, table)))
    # the Spark schema of the table as Iceberg keeps it (e.g. a tinyint is an int), against which the files are checked
    spark_schema = StructType.fromJson(json.loads(iceberg.spark.SparkSchemaUtil.convert(schema).json()))
    if _unfit_for_registration(spark, package, table, qualified(package.dataset, table), spark_schema) is not None:
        return False
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog(spark.conf.get("spark.sql.defaultCatalog"))
    namespace = jvm.org.apache.iceberg.catalog.Namespace.of(_java_strings(spark, [package.dataset]))
    properties = jvm.java.util.HashMap()
    for key, value in TABLE_PROPERTIES["iceberg"].items():
        properties.put(key, value)
    create = catalog.icebergCatalog().newCreateTableTransaction(
        iceberg.catalog.TableIdentifier.of(namespace, table), schema, iceberg.PartitionSpec.unpartitioned(), properties)
    new = create.table()
    folder = local_folder(new.location())
    if folder is None:  # e.g. a dataset whose location is on object storage: nothing committed, Spark writes
        return False
    mapping = iceberg.mapping.MappingUtil.create(new.schema())  # the ids the table assigned
    create.updateProperties().set(NAME_MAPPING, iceberg.mapping.NameMappingParser.toJson(mapping)).commit()

    def register(folder: Path) -> None:
        _append_folder(spark, new, create, folder, mapping)
        create.commitTransaction()

    if any(package.table_dir(table).glob("*.parquet")):
        _add_files(spark, package, table, qualified(package.dataset, table), folder / "data", register)
    else:
        create.commitTransaction()  # no rows: the table alone
    return True


def _java_strings(spark, values: List[str]):
    array = spark._sc._gateway.new_array(spark._jvm.java.lang.String, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array


def _link(parts, target: Path) -> None:
    target.mkdir(parents=True)
    for part in parts:
        try:
            os.link(part, target / part.name)
        except OSError:  # another file system
            shutil.copyfile(part, target / part.name)
        os.utime(target / part.name)


def unland_package(spark, package: LoadPackage) -> None:
    """Delete the rows `package` landed so far (it never completed: no `_dlt_loads` row), before it is
    quarantined."""
    for table in package.landing_tables():
        if spark.catalog.tableExists(f"{package.dataset}.{table}"):
            spark.sql(f"delete from {qualified(package.dataset, table)} where {ident(LOAD_ID)} = {literal(package.load_id)}")


def load_package(spark, storage: PackageStorage, package: LoadPackage, hooks: Optional[Hooks] = None) -> LoadPackage:
    """Land the schema version, every table, the state row and the covered tables of `package` at once
    (independent commits; none is visible to dbt before the load completes), then complete it with its
    `_dlt_loads` row; returns the package, now in loaded/. A step that fails fails the load, naming the
    first failed step in the order above, once the others have finished: a rerun lands again."""
    hooks = hooks or Hooks()
    dataset, load_id = package.dataset, package.load_id
    schema, state = package.schema, package.state
    step = LOADS_TABLE  # ensure_dataset creates the dataset and its system tables
    try:
        _retrying(spark, lambda again: ensure_dataset(spark, dataset), f"load {load_id} dataset {dataset}")
        refuse_unfit_tables(spark, package)
        steps: Dict[str, Callable[[], None]] = {
            VERSION_TABLE: lambda: _retrying(spark, lambda again: write_schema_version(spark, dataset, schema), f"load {load_id} {VERSION_TABLE}")}
        for table in package.tables():
            if not package.is_landed(table):
                steps[table] = functools.partial(_land_marked, spark, package, table)
        if state is not None:
            steps[STATE_TABLE] = functools.partial(_write_once, spark, package, STATE_TABLE, lambda retry: write_state(
                spark, dataset, load_id, state, retry=retry))
        steps[LOAD_TABLES_TABLE] = functools.partial(_write_once, spark, package, LOAD_TABLES_TABLE, lambda retry: write_load_tables(
            spark, dataset, load_id, load_tables(package), retry=retry))
        tables = set(package.tables())
        futures = {threads.submit(run): name for name, run in steps.items()}
        failed: Dict[str, BaseException] = {}
        for future in as_completed(futures):
            name = futures[future]
            if future.exception() is not None:
                failed[name] = future.exception()
            elif name in tables and not failed:
                hooks.emit("table_landed", package=package, table=name)
        if failed:
            step = next(name for name in steps if name in failed)
            raise failed[step]
        hooks.emit("tables_landed", package=package)
        if state is not None:
            hooks.emit("state_written", package=package)
        step = LOADS_TABLE
        _write_once(spark, package, LOADS_TABLE, lambda retry: complete_load(spark, dataset, load_id, schema, retry=retry))
    except PipelineStepFailed:
        raise
    except Exception as e:  # noqa: BLE001 - rewrapped with the load and table named
        why = explained(spark, e, package.root)
        raise PipelineStepFailed("load", f"{type(why).__name__}: {str(why)[:2000]}", load_id=load_id, table=step) from e
    hooks.emit("load_completed", package=package)
    log.info("load %s complete: %s", load_id, ", ".join(package.tables()) or "state only")
    return storage.complete(package)


def _land_marked(spark, package: LoadPackage, table: str) -> None:
    _retrying(spark, lambda again: land_table(spark, package, table), f"load {package.load_id} table {table}")
    package.mark_landed(table)


def _write_once(spark, package: LoadPackage, step: str, write: Callable[[bool], None]) -> None:
    """`write(retry)` of a row-writing step, marked as started first: `retry` says an earlier attempt (a killed
    run, or a lost race) may have written, so the step checks before it writes again."""
    retry = package.landing_started(step)
    package.mark_landing(step)
    _retrying(spark, lambda again: write(retry or again), f"load {package.load_id} {step}")
