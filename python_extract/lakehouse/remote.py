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

import threading
import urllib.parse
from typing import Any, Dict, Optional

from ..errors import LakehouseConfigError, SparkloadError

URL_PARAMETERS = ("token", "use_ssl", "user_id", "user_agent", "session_id")  # pyspark's ChannelBuilder's
# the client's default (15 retries up to 60 s apart) waits ten minutes for a gone server; a load fails fast
RETRY_POLICY = {"max_retries": 4, "max_backoff": 2000}
# gRPC's words for a server that is gone, and Spark's for one shutting down
UNREACHABLE = ("StatusCode.UNAVAILABLE", "failed to connect to all addresses", "Connection refused", "Socket closed",
               "Cannot call methods on a stopped SparkContext", "SparkContext was shut down")
FORMAT_CONF = "spark.sparkload.table_format"

_sessions: Dict[str, Any] = {}
_lock = threading.Lock()


class ServerUnreachable(SparkloadError):
    """The Spark Connect server of `spark_remote` did not answer."""


def url_problem(url: str) -> Optional[str]:
    """What is wrong with a `spark_remote` value, in one line; None when it is a Spark Connect URL.

    >>> url_problem("http://h:1")
    "spark_remote='http://h:1' is not a Spark Connect URL; expected sc://host:port, e.g. sc://127.0.0.1:15002"
    """
    text = str(url)
    expected = "expected sc://host:port, e.g. sc://127.0.0.1:15002"
    if not text.startswith("sc://"):
        return f"spark_remote={text!r} is not a Spark Connect URL; {expected}"
    parsed = urllib.parse.urlparse("http" + text[2:])
    try:
        port = parsed.port
    except ValueError:
        port = None
    if not parsed.hostname or port is None or parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        return f"spark_remote={text!r} is not sc://host:port[/;key=value;...]; {expected}"
    for part in filter(None, parsed.params.split(";")):
        key, sep, _ = part.partition("=")
        if not sep or key not in URL_PARAMETERS:
            return f"spark_remote={text!r}: parameter {part!r} is not one of {', '.join(f'{k}=...' for k in URL_PARAMETERS)}"
    return None


def shown(url: str) -> str:
    """`url` with its token hidden, for messages and logs."""
    import re

    return re.sub(r"(token=)[^;]*", r"\1***", url)


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
    with _lock:
        session = _sessions.get(url)
        if session is None:
            from pyspark.sql.connect.session import SparkSession as RemoteSession

            session = RemoteSession(connection=url)
            session._client._retry_policy.update(RETRY_POLICY)  # no public setter in pyspark 3.5
            _sessions[url] = session
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
    text = str(error)
    if any(mark in text for mark in UNREACHABLE):
        first = next((line.strip() for line in text.splitlines() if "details" in line), text.splitlines()[0] if text else "")
        return ServerUnreachable(f"Spark Connect server {shown(url)} does not answer ({first}); check that it runs "
                                 "(`sparkload lakehouse serve --connect`) and spark_remote (SPARKLOAD_SPARK_REMOTE)")
    return error


def server_url(spark) -> str:
    """The URL a session of `remote_session` was made for, its token hidden."""
    return shown(next((url for url, session in _sessions.items() if session is spark), "sc://(unknown)"))


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
