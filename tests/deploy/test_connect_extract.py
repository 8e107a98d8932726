"""The extractor over Spark Connect (issue 38): docs/deployments.md's "The extractor over Spark Connect" run
as written (`SPARKLOAD_SPARK_REMOTE=sc://... python extract.py`) in processes that cannot start a JVM
(JAVA_HOME points nowhere), against a real `sparkload lakehouse serve --connect` over the run's lakehouse:
a load lands with its `_dlt_loads` row; the server SIGKILLed while the next load lands leaves that load
without its `_dlt_loads` row (invisible to dbt), and the rerun on a new server completes it once; `dbt run`
over `method: connect` then merges both."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from python_extract.lakehouse import LakehouseConfig
from python_extract.runtime.processes import free_port

from ..support.skeleton import LOAD_1, LOAD_2
from ..support.tables import rows
from ..support.doc_commands import Foreground, command_line, readme_block
from ..support.shared_servers import ConnectServer

SECTION = "Spark Connect"
UPSERTED = [
    {"id": 1, "name": "Ann", "address__city": "Oslo"},
    {"id": 2, "name": "Bobby", "address__city": "Rome"},
    {"id": 3, "name": "Cid", "address__city": "Lima"},
]
# the docs' extract.py, with the test's loads, a hook that holds the load once its table landed (while the
# test kills the server) and a last line saying what happened and whether pyspark ever had a JVM here
EXTRACT = """\
import json, os, sys, time
from pathlib import Path
import python_extract as sl

pipeline = sl.pipeline(pipeline_name=os.environ["TEST_PIPELINE"], dataset_name=os.environ["TEST_PIPELINE"])
gate = os.environ.get("TEST_GATE")
if gate:
    def hold(package, table):
        print("landed", table, flush=True)
        while not Path(gate).exists():
            time.sleep(0.1)
    pipeline.hooks.register("table_landed", hold)
data = json.loads(os.environ["TEST_LOAD"])
try:
    info = pipeline.run(data, table_name="customers", write_disposition="merge", primary_key="id") if data else pipeline.load()
    found = {"ok": True, "load_ids": info.load_ids}
except Exception as e:
    found = {"ok": False, "error": str(e)}
from pyspark import SparkContext
found.update(jvm=SparkContext._gateway is not None, session=type(pipeline._spark).__module__)
print("RESULT " + json.dumps(found), flush=True)
"""


def _no_java(path: Path) -> dict:
    return {"JAVA_HOME": str(path / "no-java"), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def _extraction(lakehouse, names, port: int, cwd: Path, load: list, **env: str) -> tuple:
    """The docs' command line (argv, env) running the test's extract.py on `load` ([]: land what is pending)."""
    (cwd / "extract.py").write_text(EXTRACT)
    argv, docs_env = command_line(readme_block(SECTION, "SPARKLOAD_SPARK_REMOTE=").strip(),
                                  {".sparkload": str(lakehouse.home), "15002": str(port)})
    return argv, {**docs_env, **_no_java(cwd), "TEST_PIPELINE": names.staging, "TEST_LOAD": json.dumps(load), **env}


def _result(output: str) -> dict:
    found = json.loads(next(line for line in reversed(output.splitlines()) if line.startswith("RESULT "))[7:])
    assert not found["jvm"] and found["session"].startswith("pyspark.sql.connect"), found  # no JVM in the client
    return found


def _extract(lakehouse, names, port: int, cwd: Path, load: list) -> dict:
    argv, env = _extraction(lakehouse, names, port, cwd, load)
    done = subprocess.run(argv, env={**os.environ, **env}, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = _result(done.stdout)
    assert found["ok"], found
    return found


def _dbt_run(project: Path) -> None:
    """`dbt run` over the docs' `method: connect` profile, in a process that cannot start a JVM."""
    env = {**os.environ, **_no_java(project)}
    env.pop("DBT_TARGET_PATH", None)  # an xdist worker's (tests/support/run_setup.py): this project writes its own target/
    done = subprocess.run([str(Path(sys.executable).parent / "dbt"), "run", "--project-dir", str(project),
                           "--profiles-dir", str(project)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]


def _project(path: Path, names, port: int) -> Path:
    """A dbt project of one sparkload model over the test's staging table, on the docs' connect profile."""
    (path / "models").mkdir(parents=True)
    (path / "dbt_project.yml").write_text("name: shop\nprofile: shop\nconfig-version: 2\n")
    (path / "models" / "customers.sql").write_text(textwrap.dedent("""\
        {{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id') }}
        select * from {{ source('raw', 'customers') }}
        """))
    (path / "models" / "sources.yml").write_text(yaml.safe_dump(
        {"version": 2, "sources": [{"name": "raw", "schema": names.staging, "tables": [{"name": "customers"}]}]}))
    profile = yaml.safe_load(readme_block(SECTION, "# profiles.yml (connect)"))
    profile["shop"]["outputs"]["connect"].update(port=port, schema=names.target)
    (path / "profiles.yml").write_text(yaml.safe_dump(profile))
    return path


@pytest.mark.extended("delta")
@pytest.mark.each_format  # landing differs per format (embedded Iceberg registers the files instead)
def test_extractor_over_connect__lands_without_a_jvm_and_a_load_the_killed_server_interrupted_lands_once_on_rerun(
        spark, lakehouse, names, tmp_path, watchdog):
    port = free_port()
    project = _project(tmp_path / "shop", names, port)
    loads = f"select `load_id` from `{names.staging}`.`_dlt_loads` order by `load_id`"
    staged = f"select `_dlt_load_id`, count(*) as n from `{names.staging}`.customers group by 1 order by 1"
    server = ConnectServer(lakehouse, port, tmp_path, watchdog)  # `spark` first: this process owns the H2 catalog

    # load 1 lands over the server
    first = _extract(lakehouse, names, port, tmp_path, LOAD_1)["load_ids"]
    assert [r["load_id"] for r in rows(spark, loads)] == first

    # load 2: the server is killed once its table landed, before its `_dlt_loads` row
    gate = tmp_path / "gate"
    argv, env = _extraction(lakehouse, names, port, tmp_path, LOAD_2, TEST_GATE=str(gate))
    interrupted = Foreground(argv, env, cwd=tmp_path)
    try:
        interrupted.wait_for_line(r"^landed customers", timeout=120)
        server.kill()
        gate.touch()
        assert interrupted.popen.wait(120) == 0
    finally:
        interrupted.kill() if interrupted.popen.poll() is None else None
    failed = _result("\n".join(interrupted.lines))
    assert not failed["ok"] and f"Spark Connect server sc://127.0.0.1:{port} does not answer" in failed["error"], failed
    assert "\n" not in failed["error"]
    assert [r["load_id"] for r in rows(spark, loads)] == first  # no half load: dbt sees load 1 only

    # the rerun on a new server completes the pending load: its `_dlt_loads` row once, its rows once
    again = ConnectServer(lakehouse, port, tmp_path, watchdog)
    try:
        second = _extract(lakehouse, names, port, tmp_path, [])["load_ids"]
        assert len(second) == 1 and second[0] > first[0]
        assert [r["load_id"] for r in rows(spark, loads)] == first + second
        assert rows(spark, staged, drop=()) == [{"_dlt_load_id": first[0], "n": 2}, {"_dlt_load_id": second[0], "n": 2}]
        _dbt_run(project)  # both loads, merged over the server (one dbt run: each costs seconds)
        assert rows(spark, f"select * from `{names.target}`.customers order by id") == UPSERTED
    finally:
        again.stop()


@pytest.mark.parametrize("value, message", [
    ("http://h:1", "spark_remote: 'http://h:1' is not a Spark Connect URL; expected sc://host:port"),
    ("sc://h", "spark_remote: 'sc://h' is not sc://host:port[/;key=value;...]"),
    ("sc://h:x", "spark_remote: 'sc://h:x' is not sc://host:port[/;key=value;...] (its port is no number)"),
    ("sc://h:1/db", "spark_remote: 'sc://h:1/db' is not sc://host:port[/;key=value;...]"),
    ("sc://h:1/;tokn=x", "spark_remote: parameter 'tokn=x' of 'sc://h:1/;tokn=x' is not one of token=..."),
])
def test_spark_remote__a_value_that_is_no_connect_url_is_refused_in_one_line(value, message, tmp_path):
    import python_extract as sl
    from python_extract.errors import LakehouseConfigError

    for make in (lambda: LakehouseConfig.from_env({"SPARKLOAD_SPARK_REMOTE": value}, home=tmp_path),
                 lambda: sl.pipeline(pipeline_name="p", home=tmp_path, spark_remote=value)):
        with pytest.raises(LakehouseConfigError) as raised:
            make()
        assert message in str(raised.value) and "\n" not in str(raised.value)


def test_spark_remote__a_connect_url_with_parameters_is_taken_from_the_dlt_files(tmp_path, monkeypatch):
    (tmp_path / ".dlt").mkdir()
    (tmp_path / ".dlt" / "config.toml").write_text('[lakehouse]\nspark_remote = "sc://h:15002/;use_ssl=true;token=t"\n')
    monkeypatch.chdir(tmp_path)
    assert LakehouseConfig.from_env({}).spark_remote == "sc://h:15002/;use_ssl=true;token=t"


def test_spark_remote__spark_conf_beside_it_is_refused_for_it_is_the_servers(tmp_path):
    import python_extract as sl
    from python_extract.errors import LakehouseConfigError

    pipeline = sl.pipeline(pipeline_name="p", home=tmp_path, spark_remote="sc://127.0.0.1:1",
                           spark_conf={"spark.driver.memory": "4g"})
    with pytest.raises(LakehouseConfigError, match=r"^spark_conf \(spark.driver.memory\) is for an embedded session; "
                       r"with spark_remote=sc://127.0.0.1:1 the server's settings apply"):
        pipeline.spark


def test_extractor_over_connect__a_server_not_there_fails_the_run_in_one_line_naming_it(tmp_path):
    import python_extract as sl
    from python_extract.lakehouse.remote import ServerUnreachable

    port = free_port()
    pipeline = sl.pipeline(pipeline_name="p", home=tmp_path, spark_remote=f"sc://127.0.0.1:{port}")
    with pytest.raises(ServerUnreachable) as raised:
        pipeline.run([{"id": 1}], table_name="t")
    assert str(raised.value).startswith(f"Spark Connect server sc://127.0.0.1:{port} does not answer (")
    assert "\n" not in str(raised.value)
    assert list((tmp_path / "pipelines" / "p").glob("**/*.parquet")) == []  # refused before extracting
