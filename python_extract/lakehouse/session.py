"""The lakehouse factory: one configured SparkSession for the extractor, the dbt adapter and tests.

`get_session(config)` returns the process's SparkSession, building it on first use:
- `delta` (the default): Delta extensions + DeltaCatalog over Spark's Hive metastore, kept in an H2 file
  database under `home/catalog` (`metastore_conf`; `AUTO_SERVER` lets many JVMs share it);
- `iceberg`: an Iceberg JdbcCatalog on an H2 file database under `home/catalog` as Spark's default
  catalog (`AUTO_SERVER` lets many JVMs share it), metadata caching off so a long-lived JVM never reads
  stale snapshots written by another.

The format is pinned: the first session (or thrift server) of a lakehouse records its format in
`home/lakehouse.json`, and every later start keeps it (an unset `table_format` resolves to it); asking for
the other format, or its jars missing, fails with one line instead of writing new tables in another format.
The chosen format is logged with its reason and recorded in the session conf under
`spark.sparkload.table_format`, where `session_format` reads it back.

A warehouse on S3 (`warehouse: s3a://bucket/path`, for Spark and the Iceberg catalog alike) adds the
S3A connector's jars (`jars.sets_of`) and its settings; credentials go onto the Hadoop
configuration of the running JVM before the SparkSession exists, never onto a command line or a log.

One process holds one lakehouse session: `get_session` with the settings the running session was built
from returns it; with another lakehouse's (home, warehouse, catalog, master, static spark_conf, or a
table format other than the running one) it raises `LakehouseMismatch` naming what differs. A session
the process did not build (a platform's) is used as it is.

Errors: `LakehouseConfigError` (from `choose_format`) when the format's jars cannot be found or the
lakehouse's pinned format differs from the one asked for; `LakehouseMismatch` (above).
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from ..errors import LakehouseConfigError, LakehouseMismatch
from . import class_archive
from .config import DEFAULT_FORMAT, FORMAT_RECORD, ICEBERG_CATALOG, LakehouseConfig, pinned_format
from .jars import jars_for, jdbc_drivers, sets_of

log = logging.getLogger("sparkload.lakehouse")

FORMAT_CONF = "spark.sparkload.table_format"
IDENTITY_CONF = "spark.sparkload.lakehouse"  # lakehouse_identity of the settings the session was built from
CLASS_PATH = "spark.driver.extraClassPath"
DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
_SESSION = None
QUIET_LOG4J = Path(__file__).resolve().parents[1] / "log4j2-quiet.properties"


def quiet_log_options(conf: Dict[str, str]) -> Optional[str]:
    """The driver's `spark.driver.extraJavaOptions` with the quiet log4j configuration, so a JVM started with
    `conf` logs nothing on the terminal (its errors come back as exceptions: the CLI prints one line, the
    adapter trims them); None when a log4j configuration is already chosen (in SPARK_SUBMIT_OPTS or the
    driver's options), which wins. Passed to the JVM on its command line (spark-submit's `--conf`), never
    through this process's environment, which another thread (dbt's) may be reading."""
    options = conf.get(class_archive.DRIVER_OPTIONS, "")
    if "log4j2.configurationFile" in f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} {options}":
        return None
    return f"{options} -Dlog4j2.configurationFile={QUIET_LOG4J.as_uri()}".strip()


@dataclass(frozen=True)
class FormatChoice:
    table_format: str
    reason: str
    jars: List[str] = field(default_factory=list)


def pin_format(config: LakehouseConfig, choice: FormatChoice) -> None:
    """Record the format at the lakehouse's first start; a no-op afterwards (first writer wins)."""
    record = config.home / FORMAT_RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(record, "x") as f:
            json.dump({"table_format": choice.table_format, "reason": choice.reason,
                       "recorded_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}, f)
    except FileExistsError:
        pass


def choose_format(config: LakehouseConfig) -> FormatChoice:
    """Which table format the session gets, with the jars that provide it: the lakehouse's pinned format
    when it has one (another one asked for is an error), else the configured one, else delta. Decided by
    the settings and the lakehouse alone: which jars or networks are at hand never changes it."""
    pinned = pinned_format(config)
    if pinned and config.table_format not in (None, pinned):
        raise LakehouseConfigError(
            f"the lakehouse {config.home} holds {pinned} tables (its format since its first use, recorded in "
            f"{config.home / FORMAT_RECORD}); table_format={config.table_format} would switch formats: "
            f"use table_format {pinned} (or leave it unset) here, or another lakehouse home for {config.table_format}"
        )
    if pinned:
        fmt, reason = pinned, f"pinned: the lakehouse's format since its first use ({config.home / FORMAT_RECORD})"
    elif config.table_format:
        fmt, reason = config.table_format, f"table_format is {config.table_format}"
    else:
        fmt, reason = DEFAULT_FORMAT, f"a new lakehouse with no table_format set: {DEFAULT_FORMAT}, the default"
    jars = jars_for(config, sets_of(config, fmt))
    return FormatChoice(fmt, f"{reason}; jars from {config.jars_dir or config.jars_cache}", jars=jars)


def spark_conf(config: LakehouseConfig, choice: FormatChoice, pin: bool = True) -> Dict[str, str]:
    """Every static setting of a session about to start (no secret among them), as
    `SparkSession.builder.config` pairs. Starting one pins the lakehouse's format (`pin_format`; `pin`
    False: only the settings, for what a session would get)."""
    if pin:
        pin_format(config, choice)
    conf = {
        "spark.master": config.master,
        "spark.app.name": config.app_name,
        "spark.sql.warehouse.dir": config.warehouse_uri,
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "4",
        # file listings in parallel (Delta's VACUUM lists a table's files with it): Spark's default of
        # 10000 tasks made a VACUUM of a 7-file table take 20-50 s, 3-5 s with 4
        "spark.sql.sources.parallelPartitionDiscovery.parallelism": "4",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        FORMAT_CONF: choice.table_format,
    }
    if choice.jars:
        conf["spark.jars"] = ",".join(choice.jars)
    conf.update(s3_conf(config))
    catalog_uri = config.catalog_jdbc_uri(choice.table_format)
    if choice.table_format == "delta":
        conf.update({
            "spark.sql.extensions": DELTA_EXTENSION,
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
            "spark.sql.catalogImplementation": "hive",
            # a table created without USING (dbt-spark's models and seeds without `file_format`, a DataFrame's
            # saveAsTable) is a Delta table, as every table of the lakehouse: Spark's default under Hive
            # support is a Hive text table, which splits a value holding a newline into two rows
            "spark.sql.sources.default": "delta",
            "spark.sql.legacy.createHiveTableByDefault": "false",
            # a table's state is rebuilt from its log in this many tasks (Delta's default, 50, made every
            # statement on a small table run 50-task stages)
            "spark.databricks.delta.snapshotPartitions": "2",
            # the checksum file of each commit keeps its counts, protocol and metadata (what a reader takes
            # from it), but not the table's file list: Delta 3.3 reads that list from the log, never from the
            # checksum, and building it ran a Spark job for every new table (50 new tables of 20 rows landed in
            # 15.5-17.4 s instead of 19.2-19.4 s)
            "spark.databricks.delta.allFilesInCrc.enabled": "false",
            # a long-lived JVM (the thrift and warm servers, a test run) keeps the logs of this many tables, not
            # 10000: a test run's worker ran out of its 1 GiB heap with Delta's default
            "spark.databricks.delta.delta.log.cacheSize": "64",
            **metastore_conf(catalog_uri),
        })
        conf[CLASS_PATH] = ":".join(jdbc_drivers(choice.jars))
    else:
        cat = f"spark.sql.catalog.{ICEBERG_CATALOG}"
        conf.update({
            "spark.sql.extensions": ICEBERG_EXTENSION,
            "spark.sql.catalogImplementation": "in-memory",
            "spark.sql.defaultCatalog": ICEBERG_CATALOG,
            cat: "org.apache.iceberg.spark.SparkCatalog",
            f"{cat}.catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog",
            f"{cat}.uri": catalog_uri,
            f"{cat}.jdbc.schema-version": "V1",
            f"{cat}.warehouse": config.warehouse_uri,
            f"{cat}.cache-enabled": "false",
        })
    conf.update(config.spark_conf)
    if CLASS_PATH in config.spark_conf and choice.table_format == "delta":
        conf[CLASS_PATH] = ":".join(jdbc_drivers(choice.jars) + [config.spark_conf[CLASS_PATH]])
    return conf


# The classes of the Hive 2.3 metastore's object model (package.jdo of Spark's hive-metastore jar)
METASTORE_CLASSES = tuple(f"org.apache.hadoop.hive.metastore.model.M{name}" for name in (
    "Database", "FieldSchema", "Type", "Table", "Constraint", "SerDeInfo", "Order", "ColumnDescriptor", "StringList",
    "StorageDescriptor", "Partition", "Index", "Role", "RoleMap", "GlobalPrivilege", "DBPrivilege", "TablePrivilege",
    "PartitionPrivilege", "TableColumnPrivilege", "PartitionColumnPrivilege", "PartitionEvent", "MasterKey",
    "DelegationToken", "TableColumnStatistics", "PartitionColumnStatistics", "VersionTable", "ResourceUri", "Function",
    "NotificationLog", "NotificationNextId"))


def metastore_conf(catalog_uri: str) -> Dict[str, str]:
    """The Hive metastore of a delta lakehouse on the catalog database (`LakehouseConfig.catalog_jdbc_uri`):
    Spark's built-in Hive 2.3 client; no Derby, which admits one JVM at a time. DataNucleus (the metastore's
    ORM) creates the schema's missing tables when the metastore starts (`autoStartClassNames`), all of them,
    before any transaction: left to create each table on first use, it did so on a second connection while
    the first held the transaction that needed it, and on PostgreSQL the `ALTER TABLE ... ADD CONSTRAINT`
    waited for ever on that transaction's locks (the first `create table` of a fresh catalog hung).
    `datanucleus.mapping.Schema`: H2 also has an INFORMATION_SCHEMA.ROLES table, which DataNucleus would
    otherwise take for the metastore's ROLES."""
    driver = "org.postgresql.Driver" if catalog_uri.startswith("jdbc:postgresql:") else "org.h2.Driver"
    conf = {
        "spark.hadoop.javax.jdo.option.ConnectionURL": catalog_uri,
        "spark.hadoop.javax.jdo.option.ConnectionDriverName": driver,
        "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
        "spark.hadoop.datanucleus.autoStartMechanism": "Classes",
        "spark.hadoop.datanucleus.autoStartClassNames": ",".join(METASTORE_CLASSES),
        "spark.hadoop.hive.metastore.schema.verification": "false",
    }
    if driver == "org.h2.Driver":
        conf.update({"spark.hadoop.javax.jdo.option.ConnectionUserName": "sa",
                     "spark.hadoop.javax.jdo.option.ConnectionPassword": "",
                     "spark.hadoop.datanucleus.mapping.Schema": "PUBLIC"})
    return conf


def s3_conf(config: LakehouseConfig) -> Dict[str, str]:
    """The S3A connector's settings for an S3 warehouse (none otherwise); credentials are not among them."""
    if not config.on_s3:
        return {}
    conf = {"spark.hadoop.fs.s3a.path.style.access": str(config.s3_path_style).lower()}
    endpoint = config.s3_endpoint or (f"https://s3.{config.s3_region}.amazonaws.com" if config.s3_region else None)
    if endpoint:
        conf["spark.hadoop.fs.s3a.endpoint"] = endpoint
        conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] = str(not endpoint.startswith("http://")).lower()
    if config.s3_region:
        conf["spark.hadoop.fs.s3a.endpoint.region"] = config.s3_region  # hadoop-aws >= 3.3.2 reads it
    return conf


def s3_credentials_conf(config: LakehouseConfig) -> Dict[str, str]:
    """Hadoop settings holding the S3 credentials given in the settings (none: S3A's default chain)."""
    if not (config.on_s3 and config.s3_access_key_id and config.s3_secret_access_key):
        return {}
    conf = {"fs.s3a.access.key": config.s3_access_key_id, "fs.s3a.secret.key": config.s3_secret_access_key}
    if config.s3_session_token:
        conf["fs.s3a.session.token"] = config.s3_session_token
        conf["fs.s3a.aws.credentials.provider"] = "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"
    return conf


def lakehouse_identity(config: LakehouseConfig) -> Dict[str, str]:
    """What makes a session serve `config`'s lakehouse: where its tables and catalog are, its Spark master
    and the static settings asked for (a running JVM can change none of them)."""
    identity = {"home": str(config.home), "warehouse": config.warehouse_uri, "catalog": config.catalog_uri or "under home",
                "master": config.master}
    identity.update({f"spark_conf {key}": str(value) for key, value in sorted(config.spark_conf.items())})
    return identity


def _check_same_lakehouse(session, config: LakehouseConfig) -> None:
    """Raise `LakehouseMismatch` when the running session, built by `get_session`, serves another lakehouse
    than `config` (one JVM holds one session; reusing it would read and write the other lakehouse's tables)."""
    recorded = session.conf.get(IDENTITY_CONF, None)
    if not recorded:
        return  # a session this process did not build (a platform's): its lakehouse is the platform's
    running = json.loads(recorded)
    wanted = lakehouse_identity(config)
    differs = [f"{key} {wanted.get(key, '(unset)')} (running: {running.get(key, '(unset)')})"
               for key in sorted(set(running) | set(wanted)) if running.get(key) != wanted.get(key)]
    running_format = session_format(session)
    if config.table_format not in (None, running_format):
        differs.append(f"table_format {config.table_format} (running: {running_format})")
    if differs:
        raise LakehouseMismatch(
            f"this process runs the SparkSession of lakehouse {running.get('home')} and was asked for a different "
            f"one: {'; '.join(differs)}; a process holds one lakehouse session: use the same settings, or another "
            "process for the other lakehouse")


def get_session(config: Optional[LakehouseConfig] = None):
    """The process's SparkSession, built from `config` (default: `LakehouseConfig.from_env()`) on first
    use; later calls with the same settings return it, with another lakehouse's raise `LakehouseMismatch`.

    >>> spark = get_session(LakehouseConfig.from_env(home="lake"))   # doctest: +SKIP
    >>> get_session(LakehouseConfig.from_env(home="lake")) is spark   # doctest: +SKIP
    True
    """
    global _SESSION
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    config = config or LakehouseConfig.from_env()
    if _SESSION is not None and _SESSION.sparkContext._jsc is not None:
        _check_same_lakehouse(_SESSION, config)
        return _SESSION
    active = SparkSession.getActiveSession()
    if active is None and SparkContext._active_spark_context is not None:
        # a platform's session created in another thread (getActiveSession is per thread)
        active = SparkSession.builder.getOrCreate()
    if active is not None:
        _check_same_lakehouse(active, config)
        _SESSION = active
        return active
    choice = choose_format(config)
    config.home.mkdir(parents=True, exist_ok=True)
    # the context first: secrets reach its Hadoop configuration over py4j, never a command line, and
    # before the session's shared state copies that configuration (executors get it with their tasks)
    conf = {**spark_conf(config, choice), IDENTITY_CONF: json.dumps(lakehouse_identity(config))}
    archive = class_archive.handed(config, conf)
    if archive is not None:
        conf[class_archive.DRIVER_OPTIONS] = class_archive.with_archive(conf, archive)
    # the JVM's start-up lines (WARN NativeCodeLoader, the loopback address, ...) stay off the terminal
    # on every path, the API's and the adapter's too; the `sparkload` command's --debug shows them
    quiet = quiet_log_options(conf) if not log.isEnabledFor(logging.DEBUG) else None
    if quiet is not None:
        conf[class_archive.DRIVER_OPTIONS] = quiet
    context = SparkContext.getOrCreate(SparkConf().setAll(list(conf.items())))
    hadoop = context._jsc.hadoopConfiguration()
    for key, value in s3_credentials_conf(config).items():
        hadoop.set(key, value)
    session = SparkSession.builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    if archive is not None and not class_archive.confirm_mapped(archive, session._jvm.java.lang.ProcessHandle.current().pid()):
        log.warning("sparkload lakehouse: the JVM did not map its class archive %s (damaged, or trained for another "
                    "JVM) and runs without it; the archive is removed: `sparkload lakehouse setup` trains a new one", archive)
        archive = None
    _SESSION = session
    log.info("sparkload lakehouse: table format %s (%s); home %s; warehouse %s; %s", choice.table_format,
             choice.reason, config.home, config.warehouse_uri,
             "JVM classes from its class archive" if archive is not None else
             "no class archive for this JVM and jar set (`sparkload lakehouse setup` trains one)")
    return session


def session_format(session) -> str:
    """The table format of a session: recorded by `get_session`, else read off its extensions (platforms)."""
    recorded = session.conf.get(FORMAT_CONF, None)
    if recorded:
        return recorded
    extensions = session.conf.get("spark.sql.extensions", "") or ""
    if "iceberg" in extensions.lower():
        return "iceberg"
    return "delta"
