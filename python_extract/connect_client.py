"""Spark Connect, client side, for the extractor (`spark_remote`, lakehouse/remote.py) and the adapter's
`method: connect` (dbt/adapters/sparkload/connect*.py) alike: the `sc://` URL's check, its token hidden in
messages, one session per URL in a process (pyspark's client: no JVM), and how a gone server is told.

Imports nothing beyond the standard library until a session is asked for (the adapter imports this when
it reads a profile).
"""
from __future__ import annotations

import re
import threading
import urllib.parse
from typing import Any, Dict, Optional

URL_PARAMETERS = ("token", "use_ssl", "user_id", "user_agent", "session_id")  # pyspark's ChannelBuilder's
DEFAULT_PORT = 15002  # Spark Connect's
EXPECTED = "expected sc://host:port, e.g. sc://127.0.0.1:15002"
# the client's default (15 retries up to 60 s apart) waits ten minutes for a gone server; we fail fast
RETRY_POLICY = {"max_retries": 4, "max_backoff": 2000}
# gRPC's words for a server that is gone, and Spark's for one shutting down (a stop, or its starter's death,
# ends the SparkContext while the gRPC service still takes calls)
UNREACHABLE = ("StatusCode.UNAVAILABLE", "failed to connect to all addresses", "Connection refused", "Socket closed",
               "Cannot call methods on a stopped SparkContext", "SparkContext was shut down",
               'the return value of "org.apache.spark.SparkEnv$.get()" is null')  # a statement met its Spark stopping

_sessions: Dict[str, Any] = {}
_lock = threading.Lock()


def url_problem(url: Any, name: str, port_required: bool = True) -> Optional[str]:
    """What is wrong with the Spark Connect URL given as `name`, in one line; None when nothing.

    >>> url_problem("http://h:1", "url")
    "url: 'http://h:1' is not a Spark Connect URL; expected sc://host:port, e.g. sc://127.0.0.1:15002"
    >>> url_problem("sc://h", "url", port_required=False) is None
    True
    """
    text = str(url)
    if not text.startswith("sc://"):
        return f"{name}: {text!r} is not a Spark Connect URL; {EXPECTED}"
    parsed = urllib.parse.urlparse("http" + text[2:])
    try:
        port = parsed.port
    except ValueError:
        return f"{name}: {text!r} is not sc://host:port[/;key=value;...] (its port is no number); {EXPECTED}"
    if (not parsed.hostname or (port_required and port is None) or parsed.path not in ("", "/") or parsed.query
            or parsed.fragment):
        return f"{name}: {text!r} is not sc://host:port[/;key=value;...]; {EXPECTED}"
    for part in filter(None, parsed.params.split(";")):
        key, sep, _ = part.partition("=")
        if not sep or key not in URL_PARAMETERS:
            return f"{name}: parameter {part!r} of {text!r} is not one of {', '.join(f'{k}=...' for k in URL_PARAMETERS)}"
    return None


def host_port(url: str) -> tuple:
    """(host, port) of a checked URL, the default port where it names none."""
    parsed = urllib.parse.urlparse("http" + str(url)[2:])
    return parsed.hostname, parsed.port or DEFAULT_PORT


def shown(url: str) -> str:
    """`url` with its token hidden, for messages and logs."""
    return re.sub(r"(token=)[^;]*", r"\1***", url)


def session(url: str):
    """This process's Spark Connect session on `url` (created on first use, failing fast: RETRY_POLICY)."""
    with _lock:
        found = _sessions.get(url)
        if found is None:
            from pyspark.sql.connect.session import SparkSession as RemoteSession

            found = RemoteSession(connection=url)
            found._client._retry_policy.update(RETRY_POLICY)  # no public setter in pyspark 3.5
            # pyspark 3.5's reattachable execution releases each query's results from a class-wide thread pool that
            # the interpreter joins at exit: a process that had printed its result once hung there past 300 s in CI
            # (SPARK-52076, SPARK-55362: deadlocks fixed only in 4.x). Our statements are short and a lost stream
            # fails the statement, which the load's ledger makes safe to rerun: plain ExecutePlan, nothing to release.
            found._client.disable_reattachable_execute()
            _sessions[url] = found
        return found


def url_of_session(spark) -> Optional[str]:
    """The URL `spark` was made for by `session`, its token hidden; None for another session."""
    return next((shown(url) for url, found in _sessions.items() if found is spark), None)


def unreachable(error: BaseException) -> Optional[str]:
    """When `error` says the server did not answer: the line of it that says why; else None."""
    text = str(error)
    if not any(mark in text for mark in UNREACHABLE):
        return None
    return next((line.strip() for line in text.splitlines() if "details" in line),
                text.splitlines()[0].strip() if text else "")
