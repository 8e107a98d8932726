"""The Spark Thrift JDBC/ODBC server (HiveThriftServer2) over the lakehouse, for dbt's `method: thrift`.

`start_thrift_server(config, host, port)` launches pyspark's own
`spark-submit --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2` with the lakehouse's
Spark settings (`session.spark_conf`: warehouse, catalog, table format, master, extra conf), so the
server sees exactly the tables the extractor and the embedded adapter see. It returns once the server
answers a query; `ThriftServer.stop()` ends its process group and checks the port is free.

What the server needs beyond `spark_conf`:
- the format jars on the driver class path too: the server resolves the catalog on its session
  threads, whose class loader does not see `spark.jars`;
- the catalog's `default` namespace: PyHive (dbt-spark's thrift client) runs `USE default` on connect;
- its operation logs and working files under `run_dir` (a temporary one by default, removed when the
  server is stopped; kept when it died by itself: processes.py).
`spark.sql.catalogImplementation=in-memory` (the Iceberg lakehouse) works: no Hive metastore is used.

Errors: `SparkProcessError` (did not start, died, did not stop), `LakehouseConfigError` (jars).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence

from ..lakehouse.config import LakehouseConfig
from .processes import LOOPBACK, RunDir, SparkProcess, SparkProcessError, conf_args, free_port, spark_script
from ..lakehouse.session import choose_format, spark_conf

THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


@dataclass
class SparkServer:
    """A server JVM over the lakehouse (thrift here, Spark Connect in connect.py), stopped with its group."""
    host: str
    port: int
    catalog: str
    process: SparkProcess
    run_dir: Optional[RunDir] = None

    @property
    def log(self) -> Path:
        return self.process.log

    def wait(self) -> int:
        """Block until the server exits by itself; its exit code."""
        return self.process.popen.wait()

    def stop(self) -> None:
        was_running = self.process.running_or_told_to_stop()
        self.process.stop(ports=[self.port], host=self.host)
        if self.run_dir is not None:
            self.run_dir.remove_if_clean([self.process], was_running)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class ThriftServer(SparkServer):
    """The thrift server (`start_thrift_server`)."""


def server_conf(config: LakehouseConfig, role: str = "thrift server", extra_jars: Sequence[str] = ()) -> Dict[str, str]:
    """A server's Spark settings: the lakehouse's, `extra_jars` beside its jars, plus what the server needs
    (module docstring); `role` names it in the Spark UI."""
    conf = spark_conf(config, choose_format(config))
    jars = [jar for jar in conf.get("spark.jars", "").split(",") if jar] + list(extra_jars)
    extra = conf.get("spark.driver.extraClassPath")
    if jars:
        conf["spark.jars"] = ",".join(jars)
        conf["spark.driver.extraClassPath"] = ":".join(jars + ([extra] if extra else []))
    if "spark.app.name" not in config.spark_conf:
        conf["spark.app.name"] = f"{config.app_name} {role}"
    return conf


def thrift_server_conf(config: LakehouseConfig) -> Dict[str, str]:
    """The thrift server's Spark settings (`server_conf`)."""
    return server_conf(config, "thrift server")


def start_thrift_server(
    config: LakehouseConfig,
    host: str = LOOPBACK,
    port: Optional[int] = None,
    run_dir: Optional[Path] = None,
    timeout: float = 180.0,
) -> ThriftServer:
    """Start the thrift server over `config`'s lakehouse on host:port (a free port when None).

    >>> with start_thrift_server(LakehouseConfig.from_env(home="/data/lake"), port=10000) as server:
    ...     pass   # dbt profile: type spark, method thrift, host 127.0.0.1, port 10000
    """
    port = port or free_port(host)
    files = RunDir.of(run_dir, prefix=f"sparkload-thrift-{port}-")
    run_dir = files.path
    conf = thrift_server_conf(config)
    config.home.mkdir(parents=True, exist_ok=True)
    cmd = [
        spark_script("spark-submit"), "--class", THRIFT_SERVER_CLASS, *conf_args(conf), "spark-internal",
        "--hiveconf", f"hive.server2.thrift.bind.host={host}",
        "--hiveconf", f"hive.server2.thrift.port={port}",
        "--hiveconf", f"hive.server2.logging.operation.log.location={run_dir / 'operation_logs'}",
        # the Hive sessions' resource folders (by default /tmp/<session id>_resources; the server's own stays
        # there after it stops) go under run_dir with the rest of the server's files
        "--hiveconf", f"hive.downloaded.resources.dir={run_dir / 'resources'}/${{hive.session.id}}_resources",
    ]
    return launch(ThriftServer, "thrift server", host, port, cmd, conf, files, "thrift-server.log",
                  _ensure_default_namespace, timeout)


def launch(kind, what: str, host: str, port: int, cmd, conf: Dict[str, str], files, log_name: str, ready,
           timeout: float):
    """Start `cmd` as a server of class `kind` in `files`' folder, wait for its port and for `ready(server,
    timeout=...)` (its first real answer); a server that fails to start is stopped, its log kept."""
    env = {"SPARK_LOCAL_IP": host} if host == LOOPBACK else {}
    process = SparkProcess(f"{what} on {host}:{port}", cmd, files.path / log_name, env=env, cwd=files.path)
    server = kind(host, port, conf.get("spark.sql.defaultCatalog", "spark_catalog"), process, run_dir=files)
    try:
        process.wait_for_port(host, port, timeout)
        ready(server, timeout=60.0)
    except BaseException:
        server.run_dir = None  # the error names its log: keep it
        server.stop()
        raise
    return server


def _ensure_default_namespace(server: ThriftServer, timeout: float) -> None:
    """Create `default` in the server's default catalog; this is also the first real query it answers."""
    from pyhive import hive

    deadline = time.monotonic() + timeout
    while True:
        try:
            # `USE <catalog>` (PyHive's connect) switches to the catalog without needing a namespace
            with hive.connect(host=server.host, port=server.port, database=server.catalog) as conn:
                cursor = conn.cursor()
                cursor.execute("create namespace if not exists `default`")
                cursor.close()
            return
        except Exception as e:  # noqa: BLE001 - retried until the deadline, then reported with the log
            if server.process.popen.poll() is not None or time.monotonic() > deadline:
                raise SparkProcessError(
                    f"{server.process.name} does not answer queries: {e}; log {server.log}:\n{server.process.log_tail()}"
                ) from e
            time.sleep(1.0)
