"""The lakehouse factory: one configured SparkSession for the extractor, the dbt adapter and tests.

`get_session(config)` returns the process's SparkSession, building it on first use:
- `delta`: Delta extensions + DeltaCatalog over a Hive metastore in Derby under `home/metastore_db`
  (one JVM at a time; the extractor and a later `dbt run` share it in turn);
- `iceberg`: an Iceberg JdbcCatalog on an H2 file database under `home/catalog` as Spark's default
  catalog (`AUTO_SERVER` lets two JVMs share it), metadata caching off so a long-lived JVM never reads
  stale snapshots written by another.
- `auto`: delta when its jars resolve, else iceberg.

The chosen format is logged with its reason and recorded in the session conf under
`spark.sparkload.table_format`, where `session_format` reads it back.

Errors: `LakehouseConfigError` (from `choose_format`) when the format's jars cannot be found.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .config import ICEBERG_CATALOG, LakehouseConfig, LakehouseConfigError
from .jars import _delta_missing_message, catalog_driver_jars, delta_jars, maven_reachable, provision_iceberg

log = logging.getLogger("sparkload.lakehouse")

FORMAT_CONF = "spark.sparkload.table_format"
DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
_SESSION = None


@dataclass(frozen=True)
class FormatChoice:
    table_format: str
    reason: str
    jars: List[str] = field(default_factory=list)
    packages: Optional[str] = None


def choose_format(config: LakehouseConfig) -> FormatChoice:
    """Which table format the session gets, with the jars or Maven coordinates that provide it."""
    if config.table_format in ("delta", "auto"):
        found = delta_jars(config.jars_dir)
        if found:
            return FormatChoice("delta", f"Delta jars found in {config.jars_dir}", jars=found)
        if config.delta_maven and maven_reachable():
            return FormatChoice("delta", f"Delta from Maven ({config.delta_maven})", packages=config.delta_maven)
        if config.table_format == "delta":
            raise LakehouseConfigError(_delta_missing_message(config))
    jars = provision_iceberg(config.jars_cache) + catalog_driver_jars(config.iceberg_catalog_uri)
    reason = (
        "table_format is iceberg"
        if config.table_format == "iceberg"
        else "auto: no Delta jars (SPARKLOAD_JARS unset or empty, Maven unreachable), so Iceberg"
    )
    return FormatChoice("iceberg", f"{reason}; jars from {config.jars_cache}", jars=jars)


def spark_conf(config: LakehouseConfig, choice: FormatChoice) -> Dict[str, str]:
    """Every static setting of the session, as `SparkSession.builder.config` pairs."""
    home = config.home
    conf = {
        "spark.master": config.master,
        "spark.app.name": config.app_name,
        "spark.sql.warehouse.dir": config.warehouse.as_uri(),
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "4",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        FORMAT_CONF: choice.table_format,
    }
    if choice.jars:
        conf["spark.jars"] = ",".join(choice.jars)
    if choice.packages:
        conf["spark.jars.packages"] = choice.packages
    if choice.table_format == "delta":
        conf.update({
            "spark.sql.extensions": DELTA_EXTENSION,
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
            "spark.sql.catalogImplementation": "hive",
            # the metastore's Derby only: set on Iceberg lakehouses it broke the thrift server's execution Derby
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={home}",
            "spark.hadoop.javax.jdo.option.ConnectionURL":
                f"jdbc:derby:;databaseName={config.metastore};create=true",
        })
    else:
        cat = f"spark.sql.catalog.{ICEBERG_CATALOG}"
        conf.update({
            "spark.sql.extensions": ICEBERG_EXTENSION,
            "spark.sql.catalogImplementation": "in-memory",
            "spark.sql.defaultCatalog": ICEBERG_CATALOG,
            cat: "org.apache.iceberg.spark.SparkCatalog",
            f"{cat}.catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog",
            f"{cat}.uri": config.iceberg_catalog_uri,
            f"{cat}.jdbc.schema-version": "V1",
            f"{cat}.warehouse": config.warehouse.as_uri(),
            f"{cat}.cache-enabled": "false",
        })
    conf.update(config.spark_conf)
    return conf


def get_session(config: Optional[LakehouseConfig] = None):
    """The process's SparkSession, built from `config` (default: `LakehouseConfig.from_env()`)."""
    global _SESSION
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if _SESSION is not None and _SESSION.sparkContext._jsc is not None:
        return _SESSION
    active = SparkSession.getActiveSession()
    if active is None and SparkContext._active_spark_context is not None:
        # a platform's session created in another thread (getActiveSession is per thread)
        active = SparkSession.builder.getOrCreate()
    if active is not None:
        _SESSION = active
        return active
    config = config or LakehouseConfig.from_env()
    choice = choose_format(config)
    config.home.mkdir(parents=True, exist_ok=True)
    builder = SparkSession.builder
    for key, value in spark_conf(config, choice).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    _SESSION = session
    log.info("sparkload lakehouse: table format %s (%s); home %s", choice.table_format, choice.reason, config.home)
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
