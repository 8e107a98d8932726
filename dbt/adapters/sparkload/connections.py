"""Credentials and connections of the `sparkload` adapter.

Everything dbt-spark offers (`thrift`, `http`, `odbc`, `session`) works unchanged; `embedded` adds a
SparkSession built by the lakehouse factory (`python_extract.lakehouse`) from the profile's
`lakehouse_dir`, `table_format`, `master`, `jars_dir` and `spark_conf`, so dbt sees exactly the tables
the extractor landed. No server is involved.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.connections import SparkConnectionManager, SparkCredentials
from dbt_common.exceptions import DbtRuntimeError

logger = AdapterLogger("sparkload")

EMBEDDED = "embedded"
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
        from python_extract.lakehouse import LakehouseConfig

        return LakehouseConfig.from_env(
            home=self.lakehouse_dir,
            table_format=self.table_format,
            master=self.master,
            jars_dir=self.jars_dir,
            spark_conf=dict(self.spark_conf) or None,
        )


class SparkloadConnectionManager(SparkConnectionManager):
    TYPE = "sparkload"

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        creds = connection.credentials
        if connection.state == ConnectionState.OPEN or creds.method != EMBEDDED:
            return super().open(connection)
        from dbt.adapters.spark.session import Connection as SessionConnection
        from dbt.adapters.spark.session import SessionConnectionWrapper

        from python_extract.lakehouse import LakehouseConfigError, get_session, session_format

        try:
            session = get_session(creds.lakehouse_config())
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
