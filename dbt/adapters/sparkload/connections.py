"""Credentials and connections of the `sparkload` adapter.

Everything dbt-spark offers (`thrift`, `http`, `odbc`, `session`) works unchanged; `embedded` adds a
SparkSession built by the lakehouse factory (`python_extract.lakehouse`) from the profile's
`lakehouse_dir`, `table_format`, `master`, `jars_dir` and `spark_conf`, so dbt sees exactly the tables
the extractor landed. No server is involved, unless `warm: true`: then the dbt process starts no JVM
and runs its statements over thrift on the lakehouse's warm server (`python_extract.runtime.warm`),
started in the background by the first run and ending itself after `warm_idle_timeout` without queries.
`connect` runs them on a Spark Connect server (`sparkload lakehouse serve --connect`, or managed Spark's),
with no JVM in the dbt process (connect.py).

A relative `lakehouse_dir` is relative to the dbt project directory, as dbt resolves the paths of a
project, wherever dbt is started from.

dbt never creates a lakehouse (the extractor's first run does, or `sparkload lakehouse setup`): an
`embedded` profile whose lakehouse home holds none (no `lakehouse.json`, which a lakehouse's first
session writes) fails to connect, in `dbt debug` and `dbt run` alike, with one line naming the path
(`require_lakehouse`): a mistyped `lakehouse_dir` used to create an empty lakehouse there.

Only what a connection uses is imported: the lakehouse's settings and session modules (never the
extractor, numpy or pyarrow), and pyspark only when a session is built.
"""
from __future__ import annotations

import random
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Dict, Generator, Optional, Tuple, Union

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.connections import PyhiveConnectionWrapper, SparkConnectionManager, SparkCredentials
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.sparkload.connect import CONNECT
from dbt.adapters.sparkload.errors import concise

logger = AdapterLogger("sparkload")

EMBEDDED = "embedded"
IN_PROCESS = ("embedded", "session")  # statements run on a SparkSession in this process
METHODS = ("embedded", "session", "thrift", "http", "odbc", CONNECT)
_reported = False  # the table format is logged at info once per process, at debug afterwards
_verified: Dict[Tuple[str, int], int] = {}  # warm servers whose lakehouse this process checked: address -> pid


def runs_in_process(creds) -> bool:
    """Whether statements run on a SparkSession in this process (`embedded` without `warm`, `session`)."""
    return creds.method in IN_PROCESS and not getattr(creds, "warm", False)


@dataclass
class SparkloadCredentials(SparkCredentials):
    method: str = None  # type: ignore[assignment]
    lakehouse_dir: Optional[str] = None
    table_format: Optional[str] = None
    master: Optional[str] = None
    jars_dir: Optional[str] = None
    spark_conf: Dict[str, str] = field(default_factory=dict)
    warm: bool = False
    warm_idle_timeout: Optional[Union[int, str]] = None
    url: Optional[str] = None  # method: connect, instead of host/port/token/use_ssl

    @classmethod
    def __pre_deserialize__(cls, data: Any) -> Any:
        if data.get("method") == CONNECT:
            from dbt.adapters.sparkload.connect import from_profile

            data = from_profile(data)
        elif data.get("url") is not None:
            raise DbtRuntimeError(f"url applies to method: connect only (this profile has method: {data.get('method')}); "
                                  "remove it")
        data = super().__pre_deserialize__(data)
        known = [f.name for f in fields(cls)]
        for key in sorted(set(data) - set(known), key=str):  # dbt's schema lets unknown keys pass silently
            from python_extract.errors import did_you_mean

            raise DbtRuntimeError(f"unknown key {str(key)[:60]!r}{did_you_mean(key, known)}; expected one of {', '.join(known)}")
        if data.get("method") == EMBEDDED and not data.get("host"):
            data["host"] = EMBEDDED  # dbt-spark requires a host; the embedded lakehouse has none
        return data

    def __post_init__(self) -> None:
        if self.method is not None and self.method not in METHODS:
            raise DbtRuntimeError(
                f"method: {self.method!r} is not supported; expected one of {', '.join(METHODS)}"
            )
        if self.warm or self.warm_idle_timeout is not None:
            self._validate_warm()
        super().__post_init__()

    def _validate_warm(self) -> None:
        from python_extract.runtime.warm import WarmServerError, parse_idle_timeout

        if not isinstance(self.warm, bool):
            raise DbtRuntimeError(f"warm: {self.warm!r} is not a boolean; expected true or false")
        if self.method != EMBEDDED:
            raise DbtRuntimeError(f"warm applies to method: embedded only (this profile has method: {self.method}); "
                                  "remove warm and warm_idle_timeout")
        if not self.warm:
            raise DbtRuntimeError("warm_idle_timeout is set but warm is not true; add warm: true or remove it")
        try:
            parse_idle_timeout(self.idle_timeout_value)
        except WarmServerError as e:
            raise DbtRuntimeError(str(e)) from e

    @property
    def idle_timeout_value(self) -> Union[int, str]:
        from python_extract.runtime.warm import DEFAULT_IDLE_TIMEOUT

        return DEFAULT_IDLE_TIMEOUT if self.warm_idle_timeout is None else self.warm_idle_timeout

    @property
    def type(self) -> str:
        return "sparkload"

    def _connection_keys(self) -> Tuple[str, ...]:
        return ("method", "host", "port", "schema", "lakehouse_dir", "table_format", "master", "warm", "warm_idle_timeout")

    def lakehouse_config(self):
        from python_extract.lakehouse.config import LakehouseConfig

        return LakehouseConfig.from_env(
            home=self.lakehouse_dir,
            table_format=self.table_format,
            master=self.master,
            jars_dir=self.jars_dir,
            spark_conf=dict(self.spark_conf) or None,
        )


def require_lakehouse(creds: SparkloadCredentials) -> None:
    """Raise DbtRuntimeError, naming the path and where it came from, when the profile's lakehouse home
    holds no lakehouse; before any session or warm server starts, as either would create one there."""
    from python_extract.lakehouse.config import FORMAT_RECORD, LakehouseConfigError, pinned_format

    config = creds.lakehouse_config()
    try:
        if pinned_format(config) is not None:
            return
    except LakehouseConfigError as e:
        raise DbtRuntimeError(f"sparkload embedded lakehouse: {e}") from e
    home = config.home
    found = "does not exist" if not home.exists() else f"holds no lakehouse (no {FORMAT_RECORD}, which its first use writes)"
    named = ("the profile's lakehouse_dir (a relative one is relative to the dbt project directory)" if creds.lakehouse_dir
             else "SPARKLOAD_HOME, or a [lakehouse] home setting (the profile sets no lakehouse_dir; the default is ./.sparkload)")
    raise DbtRuntimeError(
        f"sparkload embedded lakehouse: {home} {found}; check that {named} names the lakehouse the extractor writes. "
        f"dbt never creates a lakehouse: the extractor does on its first run, or `sparkload lakehouse setup --home {home}`")


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


CREATE_ATTEMPTS = 5
IF_NOT_EXISTS = re.compile(r"\s*(/\*.*?\*/\s*)?create\s+(table|schema|database|namespace)\s+if\s+not\s+exists\b", re.I | re.S)
CREATE_RACES = ("DELTA_PROTOCOL_CHANGED", "DELTA_METADATA_CHANGED", "ProtocolChangedException", "MetadataChangedException",
                "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION", "TableAlreadyExistsException")


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
            from python_extract.lakehouse.session import get_session

            return get_session(creds.lakehouse_config())  # quiet by its JVM's options, dbt's environment untouched
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

    def add_query(self, sql: str, *args: Any, **kwargs: Any) -> Tuple[Connection, Any]:
        """dbt's, run again after a killed process's abandoned creation of the table a statement creates
        was cleared (python_extract/lakehouse/abandoned.py: Delta refuses a table over its folder), and
        an idempotent `create ... if not exists` again after it lost a race with another model's thread
        creating the same table (Delta's ProtocolChangedException: "multiple writers are writing to an
        empty directory"; the shared ledger is created by the first models of a run at once)."""
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                return super().add_query(sql, *args, **kwargs)
            except DbtRuntimeError as e:
                from python_extract.lakehouse.abandoned import abandoned_table, clear_abandoned_create

                found = abandoned_table(str(e.msg))
                if found is not None and attempt < CREATE_ATTEMPTS and clear_abandoned_create(
                        str(e.msg), lambda: self._table_listed(found[0])):
                    continue
                if attempt < CREATE_ATTEMPTS and IF_NOT_EXISTS.match(sql) and any(m in str(e.msg) for m in CREATE_RACES):
                    time.sleep(random.uniform(0.2, 1.0) * attempt)
                    continue
                raise
        raise AssertionError("unreachable")

    def _table_listed(self, quoted: str) -> bool:
        """Whether the catalog lists `schema`.`table` (as Delta quotes a name in its errors)."""
        schema, _, table = quoted.replace("`", "").rpartition(".")
        pattern = table.replace("\\", "\\\\").replace("'", "\\'")
        _, cursor = super().add_query(f"show tables in `{schema.replace('`', '``')}` like '{pattern}'")
        return bool(cursor.fetchall())

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        creds = connection.credentials
        if connection.state == ConnectionState.OPEN:
            return connection
        if creds.method == CONNECT:
            return cls._open_connect(connection)
        if creds.method != EMBEDDED:
            return cls._open_server(connection)
        require_lakehouse(creds)
        if creds.warm:
            return cls._open_warm(connection)
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
    def _open_connect(cls, connection: Connection) -> Connection:
        from dbt.adapters.sparkload.connect import url_of
        from dbt.adapters.sparkload.connect_session import open_handle

        url, shown = url_of(connection.credentials)
        connection.handle = open_handle(url, connection.credentials.server_side_parameters)
        connection.state = ConnectionState.OPEN  # type: ignore[assignment]
        logger.debug(f"sparkload: connected to the Spark Connect server {shown}")
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

    @classmethod
    def _open_warm(cls, connection: Connection) -> Connection:
        """A thrift connection to the lakehouse's warm server (started when none runs; replaced once when
        the recorded one does not answer), checked to serve this profile's lakehouse."""
        from dbt.adapters.exceptions import FailedToConnectError

        from python_extract.runtime.warm import WarmServerError, ensure_server, parse_idle_timeout

        creds = connection.credentials
        config = creds.lakehouse_config()
        idle = parse_idle_timeout(creds.idle_timeout_value)
        replace_pid = None
        for attempt in (1, 2):
            try:
                server = ensure_server(config, idle, say=logger.info, replace_pid=replace_pid)
            except WarmServerError as e:
                raise DbtRuntimeError(f"sparkload embedded lakehouse (warm): {e}; or remove `warm` from the profile "
                                      "to run the lakehouse in this process") from e
            connection.credentials = replace(creds, method="thrift", host=server.host, port=server.port,
                                             user=creds.user or "dbt", warm=False, warm_idle_timeout=None)
            try:
                cls._open_server(connection)
                break
            except FailedToConnectError as e:
                if attempt == 2:
                    raise
                logger.info(f"sparkload warm server: pid {server.pid} on {server.host}:{server.port} refused the "
                            f"connection ({e}); replacing it")
                replace_pid = server.pid
            finally:
                connection.credentials = creds
        first = _verified.get((server.host, server.port)) != server.pid
        if first:
            cls._verify_lakehouse(connection, config.home, server)
            _verified[(server.host, server.port)] = server.pid
        (logger.info if first else logger.debug)(
            f"sparkload embedded lakehouse: warm server pid {server.pid} on {server.host}:{server.port} "
            f"({'started by this run' if server.started else 'already running'}), home {config.home}")
        return connection

    @staticmethod
    def _verify_lakehouse(connection: Connection, home: Path, server) -> None:
        from python_extract.runtime.warm import HOME_CONF

        cursor = connection.handle.cursor()
        cursor.execute(f"set {HOME_CONF}")
        served = dict(cursor.fetchall()).get(HOME_CONF)
        if served != str(home):
            connection.handle.close()
            raise DbtRuntimeError(f"sparkload warm server pid {server.pid} on {server.host}:{server.port} serves "
                                  f"lakehouse {served}, not {home}; stop it with `sparkload lakehouse serve --stop "
                                  f"--home {home}` (its files are in {home / 'warm'})")
