"""A Spark standalone cluster on one machine: a master and N workers started from pyspark's own classes
(`spark-class org.apache.spark.deploy.master.Master` / `org.apache.spark.deploy.worker.Worker`), for
development, CI and tests. Apps reach it through the lakehouse's `master` setting
(`SPARKLOAD_MASTER=spark://127.0.0.1:7077`): the extractor's session, the thrift server.

`start_cluster(workers=2, cores=1, memory="1g")` returns once every worker has registered with the
master. `StandaloneCluster.status()` is the master's JSON status (workers, active and completed apps),
`executors_by_worker(app_id)` reads the workers' JSON status to say where an app's executors ran, and
`stop()` ends workers (and their executors), then the master, and checks their ports are free.

Files: the master's and workers' logs, and one work directory per worker, under the run dir (`run_dir`,
else a temporary one, removed by a clean stop: see processes.py). A worker copies every jar of an app
into the app's work directory (about 115 MB for the Iceberg and S3 jars); a finished app's directory is
removed once nothing in it changed for `app_data_ttl` seconds (Spark's worker cleanup), so a long-running
cluster does not fill the disk one app at a time.

Errors: `SparkProcessError` (a daemon did not start, died, or did not stop).
"""
from __future__ import annotations

import json
import os
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from .processes import LOOPBACK, RunDir, SparkProcess, SparkProcessError, free_port, spark_script

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
DAEMON_MEMORY = "512m"  # heap of the master and worker daemons themselves; executors get `memory`
APP_DATA_TTL = 600  # seconds a finished app's work directory stays on a worker


def fetch_json(url: str, timeout: float = 5.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


def executors_by_worker(master_webui_url: str, app_id: str) -> Dict[str, int]:
    """How many executors of `app_id` each worker ran (running or finished), by worker id, read from
    the master's JSON status (the workers) and each worker's (`executors`, `finishedexecutors`)."""
    counts = {}
    for worker in fetch_json(f"{master_webui_url}/json/")["workers"]:
        status = fetch_json(f"{worker['webuiaddress']}/json/")
        runners = status.get("executors", []) + status.get("finishedexecutors", [])
        counts[worker["id"]] = sum(1 for e in runners if e.get("appid") == app_id)
    return counts


@dataclass
class StandaloneCluster:
    host: str
    port: int
    webui_port: int
    master: SparkProcess
    workers: List[SparkProcess] = field(default_factory=list)
    worker_webui_ports: List[int] = field(default_factory=list)
    run_dir: Optional[RunDir] = None

    @property
    def master_url(self) -> str:
        return f"spark://{self.host}:{self.port}"

    @property
    def webui_url(self) -> str:
        return f"http://{self.host}:{self.webui_port}"

    def status(self) -> Dict[str, Any]:
        """The master's JSON status: `workers`, `aliveworkers`, `activeapps`, `completedapps`, ..."""
        return fetch_json(f"{self.webui_url}/json/")

    def executors_by_worker(self, app_id: str) -> Dict[str, int]:
        return executors_by_worker(self.webui_url, app_id)

    def wait(self) -> int:
        """Block until the master or a worker exits by itself; its exit code."""
        while True:
            for process in (self.master, *self.workers):
                code = process.popen.poll()
                if code is not None:
                    return code
            time.sleep(0.5)

    def stop(self) -> None:
        processes = [*self.workers, self.master]
        were_running = all(p.running_or_told_to_stop() for p in processes)
        errors = []
        for process, ports in [*zip(self.workers, ([p] for p in self.worker_webui_ports)),
                               (self.master, [self.port, self.webui_port])]:
            try:
                process.stop(ports=ports, host=self.host)
            except SparkProcessError as e:
                errors.append(str(e))
        if errors:
            raise SparkProcessError("; ".join(errors))
        if self.run_dir is not None:
            self.run_dir.remove_if_clean(processes, were_running)

    def __enter__(self) -> "StandaloneCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_cluster(
    workers: int = 2,
    cores: int = 1,
    memory: str = "1g",
    host: str = LOOPBACK,
    port: Optional[int] = None,
    webui_port: Optional[int] = None,
    run_dir: Optional[Path] = None,
    timeout: float = 120.0,
    app_data_ttl: int = APP_DATA_TTL,
) -> StandaloneCluster:
    """Start a master on host:port (free ports when None) and `workers` workers of `cores` cores and
    `memory` each; return once all registered. A finished app's work directory on a worker is removed
    `app_data_ttl` seconds after its last change.

    >>> with start_cluster(workers=2, cores=1, memory="1g", port=7077) as cluster:
    ...     pass   # SPARKLOAD_MASTER=spark://127.0.0.1:7077 for the extractor and the thrift server
    """
    if app_data_ttl < 1:
        raise ValueError(f"app_data_ttl={app_data_ttl}: expected a number of seconds >= 1")
    port, webui_port = port or free_port(host), webui_port or free_port(host)
    files = RunDir.of(run_dir, prefix=f"sparkload-cluster-{port}-")
    run_dir = files.path
    env = {"SPARK_LOCAL_IP": host, "SPARK_DAEMON_MEMORY": DAEMON_MEMORY}
    cleanup = (f"-Dspark.worker.cleanup.enabled=true -Dspark.worker.cleanup.interval={min(app_data_ttl, 300)} "
               f"-Dspark.worker.cleanup.appDataTtl={app_data_ttl}")
    worker_env = {**env, "SPARK_WORKER_OPTS": f"{os.environ.get('SPARK_WORKER_OPTS', '')} {cleanup}".strip()}
    master = SparkProcess(
        f"spark master {host}:{port}",
        [spark_script("spark-class"), MASTER_CLASS, "--host", host, "--port", str(port), "--webui-port", str(webui_port)],
        run_dir / "master.log", env=env, cwd=run_dir,
    )
    cluster = StandaloneCluster(host, port, webui_port, master, run_dir=files)
    try:
        master.wait_for_port(host, port, timeout)
        for n in range(1, workers + 1):
            ui = free_port(host)
            work_dir = run_dir / f"worker-{n}"
            work_dir.mkdir(parents=True, exist_ok=True)
            cluster.workers.append(SparkProcess(
                f"spark worker {n} of {cluster.master_url}",
                [spark_script("spark-class"), WORKER_CLASS, "--host", host, "--webui-port", str(ui),
                 "--cores", str(cores), "--memory", memory, "--work-dir", str(work_dir), cluster.master_url],
                run_dir / f"worker-{n}.log", env=worker_env, cwd=work_dir,
            ))
            cluster.worker_webui_ports.append(ui)
        _wait_for_workers(cluster, workers, timeout)
    except BaseException:
        cluster.run_dir = None  # the error names its logs: keep them
        cluster.stop()
        raise
    return cluster


def _wait_for_workers(cluster: StandaloneCluster, expected: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    alive = 0
    while time.monotonic() < deadline:
        for process in (cluster.master, *cluster.workers):
            if process.popen.poll() is not None:
                raise SparkProcessError(f"{process.name} exited with code {process.popen.returncode}; "
                                        f"log {process.log}:\n{process.log_tail()}")
        try:
            alive = cluster.status().get("aliveworkers", 0)
        except OSError:
            alive = 0
        if alive >= expected:
            return
        time.sleep(0.5)
    raise SparkProcessError(f"only {alive} of {expected} workers registered with {cluster.master_url} "
                            f"within {timeout:.0f} s; logs in {cluster.master.log.parent}")
