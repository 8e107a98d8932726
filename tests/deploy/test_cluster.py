"""The "Cluster" example of docs/deployments.md on a 1-master/2-worker standalone cluster on loopback, run as written
(ports swapped for free ones), with the lakehouse a multi-machine deployment would have: its catalog (Delta's
Hive metastore, Iceberg's JDBC catalog) on a real PostgreSQL server (`SPARKLOAD_CATALOG_URI`) and its warehouse in an S3 bucket of the
run's moto_server (`SPARKLOAD_WAREHOUSE=s3a://...`, credentials in `AWS_*` for every JVM: the cluster's
executors write the files). The extractor lands two loads through
a session on the master (its own JVM), the thrift server runs on the master (another JVM), and dbt's
merge of the extractor's loads runs there. The master's and workers' JSON status and the thrift
server's REST API show both workers ran executors and the merge's tasks. Nothing is left running
afterwards, also when the test fails."""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from python_extract.runtime.cluster import executors_by_worker, fetch_json
from python_extract.runtime.processes import free_port

from ..support.dbt import Dbt
from ..support.paths import REPO
from ..support.s3_server import shared_s3_server, without_aws_env
from ..support.postgres import PostgresServer
from ..support.doc_commands import Foreground, command_line, readme_blocks

pytestmark = pytest.mark.each_format  # the catalog on PostgreSQL is each format's own (a Hive metastore for Delta)

PIPELINE = Path(__file__).parents[1] / "support" / "cluster_pipeline.py"
THRIFT_APP = "sparkload thrift server"


def _land_two_loads(line, replace, names, lakehouse_env, cwd, watchdog):
    argv, env = command_line(line, {**replace, "pipeline.py": f"{PIPELINE} {names.staging}"})
    env = {**without_aws_env(os.environ), **lakehouse_env, **env, "PYTHONPATH": str(REPO), "SPARK_LOCAL_IP": "127.0.0.1"}
    with subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as process:
        watchdog.guard_group(process.pid)  # with its JVM, gone even if this pytest is killed
        try:
            stdout, stderr = process.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            raise
    assert process.returncode == 0, f"{stdout[-3000:]}\n{stderr[-3000:]}"
    found = re.search(r"master (\S+) app id (\S+)", stdout)
    return found.group(1), found.group(2)


def _app_dirs(run_dir, app_id, gone=False, timeout=120.0):
    """The workers' work directories of `app_id`; with `gone`, polled until none is left or `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        found = sorted(str(p) for p in run_dir.glob(f"worker-*/{app_id}"))
        if not (gone and found) or time.monotonic() > deadline:
            return found
        time.sleep(1.0)


def _query(port, sql):
    from pyhive import hive

    with hive.connect(host="127.0.0.1", port=port) as conn:
        cursor = conn.cursor()
        cursor.execute(sql)
        return cursor.fetchall()


def _catalog_tables(pg, delta):
    """(schema, table) of every table the catalog database holds: the Hive metastore's or Iceberg's."""
    import psycopg2

    with psycopg2.connect(host="127.0.0.1", port=pg.port, user="postgres", dbname="postgres") as db:
        with db.cursor() as cursor:
            cursor.execute('select d."NAME", t."TBL_NAME" from "TBLS" t join "DBS" d on d."DB_ID" = t."DB_ID"' if delta
                           else "select table_namespace, table_name from iceberg_tables")
            return set(cursor.fetchall())


@pytest.mark.extended
def test_cluster__extractor_and_dbt_merge_run_on_both_workers_into_an_s3_bucket(names, dbt_deps, tmp_path, monkeypatch, request,
                                                                                watchdog):
    master_port, webui_port, thrift_port, app_ui_port = (free_port() for _ in range(4))
    replace = {"7077": str(master_port), "8080": str(webui_port), "10000": str(thrift_port)}
    start_line, pipeline_line, serve_line = readme_blocks("Cluster")[0].strip().splitlines()
    s3 = shared_s3_server(request)
    prefix = f"cluster-{names.staging}"
    lakehouse_env = {"SPARKLOAD_HOME": str(tmp_path / "lake"), **s3.lakehouse_env("sparkload-lake", prefix, credentials="aws")}
    pg = PostgresServer().start()
    watchdog.guard_pidfile(pg.data / "postmaster.pid")  # every process here ends even if this pytest is killed
    lakehouse_env["SPARKLOAD_CATALOG_URI"] = pg.jdbc_url
    cluster = server = None
    try:
        argv, env = command_line(start_line, replace)
        # a finished app's work directory (its copies of the jars) goes 5 s after the app ended
        cluster = Foreground([*argv, "--app-data-ttl", "5"], {**env, **lakehouse_env}, cwd=tmp_path)
        watchdog.guard_group(cluster.popen.pid)
        ready = cluster.wait_for_line(r"spark master (spark://\S+) ready .* UI (http://\S+); logs (\S+);", timeout=300)
        master_url, master_ui, run_dir = ready.group(1), ready.group(2), Path(ready.group(3))

        # loads 1 and 2 land through a session on the cluster (a separate process, as in docs/deployments.md)
        app_master, extract_app = _land_two_loads(pipeline_line, replace, names, lakehouse_env, tmp_path, watchdog)
        assert app_master == master_url

        argv, env = command_line(serve_line, replace)
        server = Foreground([*argv, "--conf", "spark.ui.enabled=true", "--conf", f"spark.ui.port={app_ui_port}",
                             # wait for both executors, keep 4 shuffle tasks per stage and hand them to
                             # whichever executor is free, so that both get work
                             "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
                             "--conf", "spark.sql.adaptive.coalescePartitions.enabled=false",
                             "--conf", "spark.locality.wait=0"],
                            {**env, **lakehouse_env}, cwd=tmp_path)
        watchdog.guard_group(server.popen.pid)
        server.wait_for_line(rf"thrift server listening on 127\.0\.0\.1:{thrift_port}", timeout=300)

        monkeypatch.setenv("SPARKLOAD_THRIFT_PORT", str(thrift_port))
        Dbt(names, "thrift").run("skeleton_customers")
        assert _query(thrift_port, f"select id, name, address__city from {names.target}.skeleton_customers order by id") == [
            (1, "Ann", "Oslo"), (2, "Bobby", "Rome"), (3, "Cid", "Lima"),
        ]
        delta = os.environ["SPARKLOAD_TABLE_FORMAT"] == "delta"
        assert {(names.staging, "customers"), (names.target, "skeleton_customers")} <= _catalog_tables(pg, delta)
        keys = s3.keys("sparkload-lake", prefix + "/")
        for schema, table in ((names.staging, "customers"), (names.target, "skeleton_customers")):
            # Delta: <schema>.db/<table>/ (Spark's warehouse layout); Iceberg: <schema>/<table>/data/
            files = f"{prefix}/{schema}.db/{table}/" if delta else f"{prefix}/{schema}/{table}/data/"
            assert any(k.startswith(files) and k.endswith(".parquet") for k in keys), (files, keys)
        assert not list((tmp_path / "lake").rglob("warehouse/**/*.parquet"))

        status = fetch_json(f"{master_ui}/json/", timeout=120)
        workers = sorted(w["id"] for w in status["workers"])
        assert status["aliveworkers"] == 2 and len(workers) == 2
        apps = {a["name"]: a for a in status["activeapps"]}
        thrift_app = apps[THRIFT_APP]["id"]
        assert apps[THRIFT_APP]["cores"] == 2
        assert [a["cores"] for a in status["completedapps"] if a["id"] == extract_app] == [2]
        # executor count 2: one executor on each worker, for the extractor and for the thrift server
        assert executors_by_worker(master_ui, extract_app) == {w: 1 for w in workers}
        assert executors_by_worker(master_ui, thrift_app) == {w: 1 for w in workers}
        executors = fetch_json(f"http://127.0.0.1:{app_ui_port}/api/v1/applications/{thrift_app}/executors", timeout=120)  # a loaded machine answers slowly
        ran_tasks = sorted(e["hostPort"] for e in executors if e["id"] != "driver" and e["totalTasks"] > 0)
        assert len(ran_tasks) == 2, executors
        # the workers removed the finished extractor's work directories (jar copies), not the running server's
        assert _app_dirs(run_dir, extract_app, gone=True) == []
        assert len(_app_dirs(run_dir, thrift_app)) == 2
    except BaseException:
        for command in (server, cluster):
            if command is not None:
                command.kill()
        pg.stop()
        raise

    assert server.interrupt() == 0
    assert cluster.interrupt() == 0
    pg.stop()
    assert not run_dir.exists(), f"the cluster's temporary run dir {run_dir} outlived it"
    assert server.leftovers([thrift_port, app_ui_port]) == []
    assert cluster.leftovers([master_port, webui_port]) == []
