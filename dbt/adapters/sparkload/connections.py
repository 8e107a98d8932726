"""Credentials and connections of the `sparkload` adapter.

Everything dbt-spark offers (`thrift`, `http`, `odbc`, `session`) works unchanged; `embedded` adds a
SparkSession built by the lakehouse factory (`python_extract.lakehouse`) from the profile's
`lakehouse_dir`, `table_format`, `master`, `jars_dir` and `spark_conf`, so dbt sees exactly the tables
the extractor landed. No server is involved.

A relative `lakehouse_dir` is relative to the dbt project directory, as dbt resolves the paths of a
project, wherever dbt is started from.

Only what a connection uses is imported: the lakehouse's settings and session modules (never the
extractor, numpy or pyarrow), and pyspark only when a session is built.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Generator, Optional, Tuple

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.connections import PyhiveConnectionWrapper, SparkConnectionManager, SparkCredentials
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.sparkload.errors import concise

logger = AdapterLogger("sparkload")

EMBEDDED = "embedded"
IN_PROCESS = ("embedded", "session")  # statements run on a SparkSession in this process
METHODS = ("embedded", "session", "thrift", "http", "odbc")
_reported = False  # the table format is logged at info once per process, at debug afterwards


@dataclass
class SparkloadCredentials(SparkCredentials):
    method: str = None  # type: ignore[assignment]
    lakehouse_dir: Optional[str] = None
    table_format: Optional[str] = None
    master: Optional[str] = None
    jars_dir: Optional[str] = None
    spark_conf: Dict[str, str] = field(default_factory=dict)

    @classmethod
    def __pre_deserialize__(cls, data: Any) -> Any:
        data = super().__pre_deserialize__(data)
        if data.get("method") == EMBEDDED and not data.get("host"):
            data["host"] = EMBEDDED  # dbt-spark requires a host; the embedded lakehouse has none
        return data

    def __post_init__(self) -> None:
        if self.method is not None and self.method not in METHODS:
            raise DbtRuntimeError(
                f"method: {self.method!r} is not supported; expected one of {', '.join(METHODS)}"
            )
        super().__post_init__()

    @property
    def type(self) -> str:
        return "sparkload"

    def _connection_keys(self) -> Tuple[str, ...]:
        return ("method", "host", "port", "schema", "lakehouse_dir", "table_format", "master")

    def lakehouse_config(self):
        from python_extract.lakehouse.config import LakehouseConfig

        return LakehouseConfig.from_env(
            home=self.lakehouse_dir,
            table_format=self.table_format,
            master=self.master,
            jars_dir=self.jars_dir,
            spark_conf=dict(self.spark_conf) or None,
        )


class _BackoffPolling(PyhiveConnectionWrapper):
    """dbt-spark's thrift statement wrapper, polling a running statement after 0.05 s and then at
    doubling waits up to the profile's `poll_interval`: dbt-spark sleeps the whole interval (default
    5 s, an int) before its first look, which made every DDL statement over thrift cost seconds. Also
    fetches the (empty) result of DDL, which PyHive cannot."""

    FIRST_WAIT = 0.05

    def execute(self, sql: str, bindings=None) -> None:
        self._next_wait = self.FIRST_WAIT
        return super().execute(sql, bindings)

    def fetchall(self):
        try:
            return super().fetchall()
        except TypeError:
            # Spark's thrift server answers DDL with a result schema but no column data, on which PyHive's
            # fetch fails (so dbt-spark's run_query of an `alter table` failed over thrift): no rows
            return []

    @property
    def poll_interval(self) -> float:  # read by dbt-spark before each sleep
        wait = self._next_wait
        self._next_wait = min(wait * 2, self._max_wait)
        return wait

    @poll_interval.setter
    def poll_interval(self, value: float) -> None:
        self._max_wait, self._next_wait = value, self.FIRST_WAIT


def _project_dir(profile) -> Optional[str]:
    """The dbt project's directory: the run's project (`dbt run`, ...), else dbt's --project-dir flag
    (`dbt debug` connects with the profile alone)."""
    root = getattr(profile, "project_root", None)
    if root:
        return root
    try:
        from dbt.flags import get_flags
    except ImportError:  # dbt-core absent: no project
        return None
    return getattr(get_flags(), "PROJECT_DIR", None)


class SparkloadConnectionManager(SparkConnectionManager):
    TYPE = "sparkload"

    def __init__(self, profile, mp_context) -> None:
        super().__init__(profile, mp_context)
        creds, project_root = profile.credentials, _project_dir(profile)
        if getattr(creds, "lakehouse_dir", None) and project_root and not Path(creds.lakehouse_dir).expanduser().is_absolute():
            creds.lakehouse_dir = str((Path(project_root) / creds.lakehouse_dir).resolve())

    @staticmethod
    def spark_session(creds: SparkloadCredentials):
        """The in-process SparkSession of `method: embedded` (the lakehouse's) or `session`."""
        if creds.method == EMBEDDED:
            from python_extract.lakehouse.session import get_session, quiet_jvm

            with quiet_jvm():
                return get_session(creds.lakehouse_config())
        from pyspark.sql import SparkSession

        return SparkSession.builder.getOrCreate()

    @contextmanager
    def exception_handler(self, sql: str) -> Generator[None, None, None]:
        """dbt-spark's handler (which logs the whole error at debug), then the error without its Java
        stack trace and with a materialization's own message first (errors.py)."""
        try:
            with super().exception_handler(sql):
                yield
        except DbtRuntimeError as e:
            if e.msg == concise(e.msg):
                raise
            raise DbtRuntimeError(concise(e.msg)) from e
        except Exception as e:  # noqa: BLE001 - dbt-spark re-raises pyspark errors without args as they are
            raise DbtRuntimeError(concise(str(e) or type(e).__name__)) from e

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        creds = connection.credentials
        if connection.state == ConnectionState.OPEN:
            return connection
        if creds.method != EMBEDDED:
            return cls._open_server(connection)
        return cls._open_embedded(connection)

    @classmethod
    def _open_server(cls, connection: Connection) -> Connection:
        super().open(connection)
        handle, creds = connection.handle, connection.credentials
        if type(handle) is PyhiveConnectionWrapper:
            connection.handle = _BackoffPolling(handle.handle, poll_interval=creds.poll_interval,
                                                query_timeout=creds.query_timeout, query_retries=creds.query_retries)
        return connection

    @classmethod
    def _open_embedded(cls, connection: Connection) -> Connection:
        from dbt.adapters.spark.session import Connection as SessionConnection
        from dbt.adapters.spark.session import SessionConnectionWrapper

        from python_extract.lakehouse.config import LakehouseConfigError
        from python_extract.lakehouse.session import session_format

        creds = connection.credentials
        try:
            session = cls.spark_session(creds)
        except LakehouseConfigError as e:
            raise DbtRuntimeError(f"sparkload embedded lakehouse: {e}") from e
        for key, value in creds.server_side_parameters.items():
            session.conf.set(key, value)
        global _reported
        report = logger.debug if _reported else logger.info
        report(f"sparkload embedded lakehouse: table format {session_format(session)}, home {creds.lakehouse_config().home}")
        _reported = True
        connection.handle = SessionConnectionWrapper(
            SessionConnection(server_side_parameters=creds.server_side_parameters)
        )
        connection.state = ConnectionState.OPEN  # type: ignore[assignment]
        return connection
