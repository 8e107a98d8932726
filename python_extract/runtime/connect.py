"""The Spark Connect server over the lakehouse, for dbt's `method: connect` (and any Spark Connect client).

`start_connect_server(config, host, port)` launches pyspark's own
`spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer` with the lakehouse's Spark
settings (`serve.server_conf`: warehouse, catalog, table format, master, extra conf) and the
`spark-connect_2.12` jar (`lakehouse/jars.py`, set `connect`, fetched by `sparkload lakehouse setup --jars
connect`), so a client sees exactly the tables the extractor and the embedded adapter see. It returns once
the server answers a query (when pyspark's Connect client is installed, the `connect` extra; else once it
listens); `ConnectServer.stop()` ends its process group and checks the port is free.

Spark 3.5's Connect server has no bind-address setting: it listens on every interface of the machine, and
authenticates nobody (a `token` is for the proxies of managed Spark). `host` is only the address clients
are told and readiness is checked on. Keep the port behind a firewall.

Errors: `SparkProcessError` (did not start, died, did not stop), `LakehouseConfigError` (jars).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Dict, Optional

from ..lakehouse.config import LakehouseConfig
from ..lakehouse.jars import jars_for
from .processes import LOOPBACK, RunDir, SparkProcessError, conf_args, free_port, spark_script
from .serve import SparkServer, launch, server_conf

CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
from ..connect_client import DEFAULT_PORT  # noqa: F401 - the server listens where clients look by default


class ConnectServer(SparkServer):
    """The Spark Connect server (`start_connect_server`)."""

    @property
    def url(self) -> str:
        """The address a client connects to: `SparkSession.builder.remote(url)`, dbt's `url:`."""
        return f"sc://{self.host}:{self.port}"


def connect_server_conf(config: LakehouseConfig, port: int) -> Dict[str, str]:
    """The Connect server's Spark settings: the thrift server's (`server_conf`), its jar, its port."""
    conf = server_conf(config, "connect server", extra_jars=jars_for(config, ["connect"]))
    conf["spark.connect.grpc.binding.port"] = str(port)
    return conf


def start_connect_server(
    config: LakehouseConfig,
    host: str = LOOPBACK,
    port: Optional[int] = None,
    run_dir: Optional[Path] = None,
    timeout: float = 180.0,
) -> ConnectServer:
    """Start the Spark Connect server over `config`'s lakehouse on `port` (a free one when None).

    >>> with start_connect_server(LakehouseConfig.from_env(home="/data/lake"), port=15002) as server:
    ...     pass   # dbt profile: type sparkload, method connect, url sc://127.0.0.1:15002
    """
    port = port or free_port(host)
    files = RunDir.of(run_dir, prefix=f"sparkload-connect-{port}-")
    conf = connect_server_conf(config, port)
    config.home.mkdir(parents=True, exist_ok=True)
    cmd = [spark_script("spark-submit"), "--class", CONNECT_SERVER_CLASS, *conf_args(conf), "spark-internal"]
    return launch(ConnectServer, "Spark Connect server", host, port, cmd, conf, files, "connect-server.log", _answers,
                  timeout)


def _answers(server: ConnectServer, timeout: float) -> None:
    """Wait until the server runs a query, with pyspark's Connect client when it is installed."""
    try:
        from pyspark.sql.connect.session import SparkSession as RemoteSession
    except ImportError:  # the `connect` extra is for clients; a server alone is ready when it listens
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            session = RemoteSession(connection=server.url)
            try:
                session.sql("select 1").collect()
            finally:
                session.stop()
            return
        except Exception as e:  # noqa: BLE001 - retried until the deadline, then reported with the log
            if server.process.popen.poll() is not None or time.monotonic() > deadline:
                raise SparkProcessError(
                    f"{server.process.name} does not answer queries: {e}; log {server.log}:\n{server.process.log_tail()}"
                ) from e
            time.sleep(1.0)
