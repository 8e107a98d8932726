"""The dbt connection handle of `method: connect` (connect.py): imported only when such a connection opens,
as it brings pyspark (without a JVM) and gRPC.

Errors: `ServerUnreachable` (a DbtRuntimeError) naming the server, one line.
"""
from __future__ import annotations

import re
from typing import Any, List, Mapping, Optional, Sequence

from dbt.adapters.spark.session import Connection as SessionConnection
from dbt.adapters.spark.session import Cursor, SessionConnectionWrapper
from dbt_common.exceptions import DbtRuntimeError

from python_extract import connect_client
from python_extract.connect_client import shown

_PLACEHOLDER = re.compile(r"%([s%])")



class ServerUnreachable(DbtRuntimeError):
    """The Spark Connect server did not answer."""


def open_handle(url: str, server_side_parameters: Mapping[str, str]) -> "ConnectConnectionWrapper":
    """A dbt connection handle on `url`'s session, with the profile's `server_side_parameters` set on it."""
    session = connect_client.session(url)
    try:
        for key, value in server_side_parameters.items():
            session.conf.set(key, value)
    except Exception as e:  # noqa: BLE001 - the first request: the server's absence shows here
        raise unreachable_or(url, e) from e
    return ConnectConnectionWrapper(_Connection(session, url))


def unreachable_or(url: str, error: Exception) -> Exception:
    """`ServerUnreachable` naming the server when `error` says it did not answer; else `error`."""
    why = connect_client.unreachable(error)
    if why is None:
        return error
    return ServerUnreachable(f"Spark Connect server {shown(url)} does not answer ({why}); check that it "
                             "runs (`sparkload lakehouse serve --connect`) and the profile's host/port or url")


class _Cursor(Cursor):
    """dbt-spark's session cursor on a remote session."""

    def __init__(self, session, url: str) -> None:
        super().__init__()
        self._session, self._url = session, url

    def execute(self, sql: str, *parameters: Any) -> None:
        args: Optional[List[Any]] = None
        if parameters:  # `%s` placeholders and `%%` of a %-formatted statement as Spark's positional parameters
            sql, args = _PLACEHOLDER.sub(lambda m: "?" if m.group(1) == "s" else "%", sql), list(parameters)
        try:
            self._df = self._session.sql(sql, args=args)
        except Exception as e:  # noqa: BLE001 - the caller's exception handler shortens what is not ours
            raise unreachable_or(self._url, e) from e

    def fetchall(self):
        try:
            return super().fetchall()
        except Exception as e:  # noqa: BLE001 - as in execute
            raise unreachable_or(self._url, e) from e


class _Connection(SessionConnection):
    def __init__(self, session, url: str) -> None:
        super().__init__()
        self._session, self._url = session, url

    def cursor(self) -> Cursor:
        return _Cursor(self._session, self._url)


class ConnectConnectionWrapper(SessionConnectionWrapper):
    """dbt-spark's session wrapper, binding parameters as values, not as quoted text (dbt-spark's
    `_fix_binding` quotes a string without escaping it)."""

    def execute(self, sql: str, bindings: Optional[Sequence[Any]] = None) -> None:
        if sql.strip().endswith(";"):
            sql = sql.strip()[:-1]
        assert self._cursor, "Cursor not available"
        self._cursor.execute(sql, *(bindings or ()))
