"""`method: connect`: dbt's statements over Spark Connect, pyspark's gRPC client, with no JVM in the dbt process.

A profile names the server either as `host` (+ `port`, default 15002, `token`, `use_ssl`) or as one
`url: sc://host:port/;token=...;use_ssl=true`; `profile_problem` refuses a mix of the two, a missing
server and any key of another method, in one line. The statements run on one remote session per dbt
process and server (python_extract/connect_client.py: `session`, built from `pyspark.sql.connect` directly: never the classic
`SparkSession.builder`, which would start a JVM, and no process-wide environment variable is set), through
dbt-spark's session cursor with its `SparkSession.builder.getOrCreate()` swapped for that session.
Bound parameters (dbt seeds over a server: `%s`, see seeds.py) reach Spark as the statement's positional
parameters, never formatted into its text.

A server that stops answering (killed, restarted, unreachable) fails the statement within seconds, with one
line naming the server (`ServerUnreachable`), rather than after the client's default of ten minutes of retries.
"""
from __future__ import annotations

import urllib.parse
from typing import Any, Dict, Mapping, Optional, Tuple

from dbt_common.exceptions import DbtRuntimeError

from python_extract.connect_client import DEFAULT_PORT, host_port, shown, url_problem

CONNECT = "connect"
SERVER_KEYS = ("host", "port", "token", "use_ssl")
PROFILE_KEYS = ("method", "schema", "database", "url", *SERVER_KEYS, "server_side_parameters")


def profile_problem(data: Mapping[str, Any]) -> Optional[str]:
    """What is wrong with a `method: connect` profile's keys (as written), in one line; None when nothing.

    >>> profile_problem({"method": "connect", "schema": "a", "url": "sc://h:1", "port": 2})
    'method: connect takes either url or host/port/token/use_ssl, not both: remove port (the url holds it)'
    """
    unknown = [key for key in data if key not in PROFILE_KEYS]
    if unknown:
        return (f"method: connect does not take {', '.join(unknown)}; its keys are {', '.join(PROFILE_KEYS)} "
                "(lakehouse settings belong to the server: `sparkload lakehouse serve --connect`)")
    if data.get("url") is not None:
        both = [key for key in SERVER_KEYS if data.get(key) is not None]
        if both:
            return (f"method: connect takes either url or host/port/token/use_ssl, not both: remove {', '.join(both)} "
                    "(the url holds it)")
        return url_problem(data["url"], "url", port_required=False)
    if not data.get("host"):
        return "method: connect needs the server: host (and port, default 15002) or url: sc://host:port"
    if data.get("use_ssl") is not None and not isinstance(data["use_ssl"], bool):
        return f"use_ssl: {data['use_ssl']!r} is not a boolean; expected true or false"
    if data.get("token") is not None and data.get("use_ssl") is False:
        return "token is sent over TLS only (pyspark's Connect client): remove use_ssl: false, or the token"
    return None


def server_url(host: str, port: int, token: Optional[str], use_ssl: bool) -> str:
    """The `sc://` URL of a host/port/token/use_ssl profile (values escaped as pyspark unescapes them)."""
    params = (["use_ssl=true"] if use_ssl else []) + (
        [f"token={urllib.parse.quote(token, safe='')}"] if token is not None else [])
    return f"sc://{host}:{port}" + ("/;" + ";".join(params) if params else "")


def from_profile(data: Dict[str, Any]) -> Dict[str, Any]:
    """A `method: connect` profile's keys, checked (`profile_problem`), with `host` and `port` filled in from
    its url, or the default port."""
    problem = profile_problem(data)
    if problem:
        raise DbtRuntimeError(problem)
    if data.get("url") is not None:
        host, port = host_port(data["url"])
        return {**data, "host": host, "port": port}
    return {**data, "port": data.get("port", DEFAULT_PORT)}


def url_of(creds) -> Tuple[str, str]:
    """The URL a `method: connect` profile connects to, and the same with its token hidden."""
    url = creds.url or server_url(creds.host, creds.port, creds.token, creds.use_ssl)
    return url, shown(url)
