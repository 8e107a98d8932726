"""The extractor's session on a Spark Connect server (`spark_remote: sc://host:port`, SPARKLOAD_SPARK_REMOTE).

`remote_session(config)` returns this process's pyspark Connect session on the server the setting names,
created on first use from `pyspark.sql.connect` directly: never the classic `SparkSession.builder`, so no
JVM starts here and nothing of py4j is loaded (the `connect` extra's gRPC client talks to the server). The
server holds the lakehouse (its warehouse, catalog and table format: `sparkload lakehouse serve --connect`);
the session answers the table format the server records (`spark.sparkload.table_format`), and a
`table_format` set here that differs from it is refused.

The load step lands a package's Parquet parts with statements the server runs (`spark.read.parquet(path)`
into one append or one create per table), so the server reads the package where the client wrote it: a
path both see (a local lakehouse, a shared file system). A server that cannot read it fails the load in
one line naming the folder (`unreadable_package`).

Errors: `LakehouseConfigError` (a `spark_remote` that is not `sc://host:port[/;key=value...]`, a format
other than the server's, `spark_conf` beside it); `ServerUnreachable` (a `LakehouseError`: the server does not answer), one line each.
"""
from __future__ import annotations

from typing import Optional

from .. import connect_client
from ..connect_client import shown
from ..errors import LakehouseConfigError, SparkloadError

FORMAT_CONF = "spark.sparkload.table_format"



class ServerUnreachable(SparkloadError):
    """The Spark Connect server of `spark_remote` did not answer."""


def url_problem(url: str) -> Optional[str]:
    """What is wrong with a `spark_remote` value, in one line; None when it is a Spark Connect URL (a port given).

    >>> url_problem("http://h:1")
    "spark_remote: 'http://h:1' is not a Spark Connect URL; expected sc://host:port, e.g. sc://127.0.0.1:15002"
    """
    return connect_client.url_problem(url, "spark_remote")


def is_remote(spark) -> bool:
    """Whether `spark` is a Spark Connect session (no JVM behind it in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def remote_session(config):
    """The process's Connect session on `config.spark_remote`, checked to answer and to hold the format asked for."""
    url = config.spark_remote
    if config.spark_conf:
        raise LakehouseConfigError(f"spark_conf ({', '.join(sorted(config.spark_conf))}) is for an embedded session; with "
                                   f"spark_remote={shown(url)} the server's settings apply: set them where it starts "
                                   "(`sparkload lakehouse serve --connect --conf KEY=VALUE`)")
    session = connect_client.session(url)
    try:
        running = session.conf.get(FORMAT_CONF, None)
    except Exception as e:  # noqa: BLE001 - the first request: the server's absence shows here
        raise unreachable_or(url, e) from e
    if config.table_format is not None and running not in (None, config.table_format):
        raise LakehouseConfigError(f"table_format={config.table_format} but the Spark Connect server {shown(url)} holds "
                                   f"{running} tables; leave table_format unset with spark_remote (the server's wins)")
    return session


def unreachable_or(url: str, error: BaseException) -> BaseException:
    """`ServerUnreachable` naming the server when `error` says it did not answer; else `error`."""
    why = connect_client.unreachable(error)
    if why is None:
        return error
    return ServerUnreachable(f"Spark Connect server {shown(url)} does not answer ({why}); check that it runs "
                             "(`sparkload lakehouse serve --connect`) and spark_remote (SPARKLOAD_SPARK_REMOTE)")


def server_url(spark) -> str:
    """The URL a session of `remote_session` was made for, its token hidden."""
    return connect_client.url_of_session(spark) or "sc://(unknown)"


def explained(spark, error: BaseException, package_root=None) -> BaseException:
    """A failed statement's error, said in one line when it is the Connect server's: `ServerUnreachable`, or a
    `LakehouseError` naming the package folder the server cannot read; else `error` itself."""
    if not is_remote(spark):
        return error
    url = server_url(spark)
    why = unreachable_or(url, error)
    if why is error and "PATH_NOT_FOUND" in str(error) and package_root is not None:
        return PackageUnreadable(f"the Spark Connect server {url} cannot read the load package's files under "
                                 f"{package_root}: run it where that path is the same folder (a local lakehouse, a "
                                 "shared file system), or point --pipelines-dir at such a folder")
    return why


class PackageUnreadable(SparkloadError):
    """The Spark Connect server does not see the folder the load package was written to."""
