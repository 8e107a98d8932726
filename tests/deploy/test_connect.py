"""dbt over Spark Connect (issue 38): `sparkload lakehouse serve --connect` as docs/deployments.md runs it
(section "Spark Connect", a real foreground process over the run's lakehouse: the run's `connect_server`),
and dbt as a separate process on the section's `method: connect` profile, with JAVA_HOME pointing nowhere so
that any attempt to start a JVM fails: `dbt debug` passes, the extractor lands loads, `dbt run` merges them
on the server, and `build` on two threads (a seed, the model, its tests, a snapshot), `show` and `docs
generate` work; the server killed (SIGKILL to the command) during a `dbt run` leaves no JVM or port behind,
fails the run with one line naming the server, and the rerun on a new server is correct. The profile's
mistakes are refused in one line (no server needed)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Optional

import pytest
import yaml

from python_extract.runtime.processes import free_port, port_open

from ..support.skeleton import LOAD_1, LOAD_2
from ..support.skeleton import customers_pipeline as _pipeline
from ..support.skeleton import run_customers as _run
from ..support.tables import rows
from ..support.doc_commands import Foreground, readme_block
from ..support.shared_servers import ConnectServer

REPO = Path(__file__).resolve().parents[2]
SECTION = "Spark Connect"
UPSERTED = [
    {"id": 1, "name": "Ann", "address__city": "Oslo"},
    {"id": 2, "name": "Bobby", "address__city": "Rome"},
    {"id": 3, "name": "Cid", "address__city": "Lima"},
]
# text a formatted statement would break: quotes, a backslash, % signs (the %-placeholders' escape), unicode, NULL
SEED_CSV = "id,note\n1,O'Brien says \"hi\"\n2,100% and %s and %%\n3,back\\slash Ærø 東京\n4,\n"
SEED_ROWS = [(1, "O'Brien says \"hi\""), (2, "100% and %s and %%"), (3, "back\\slash Ærø 東京"), (4, None)]

# runs dbt in a fresh process and reports whether pyspark ever had a JVM gateway there
PROBE = """
import json, sys
from dbt.cli.main import dbtRunner
result = dbtRunner().invoke(sys.argv[1:])
from pyspark import SparkContext
shown = None
if sys.argv[1] == "show" and result.success:
    shown = [[None if v is None else str(v) for v in row] for row in result.result.results[0].agate_table.rows]
print(json.dumps({"success": result.success, "error": str(result.exception or ""), "jvm": SparkContext._gateway is not None,
                  "connect_client": "pyspark.sql.connect.session" in sys.modules, "shown": shown}))
"""


def _project(path: Path, names, port: int) -> Path:
    """A dbt project of one sparkload model over the test's staging table, a seed, a snapshot of the seed and
    the docs' profile with two threads (the seed and the model run side by side in `dbt build`)."""
    (path / "models").mkdir(parents=True)
    (path / "seeds").mkdir()
    (path / "snapshots").mkdir()
    table_format = os.environ["SPARKLOAD_TABLE_FORMAT"]  # dbt-spark's snapshots need the format named
    (path / "dbt_project.yml").write_text(textwrap.dedent(f"""\
        name: shop
        profile: shop
        config-version: 2
        seeds: {{shop: {{+column_types: {{id: int, note: string}}}}}}
        snapshots: {{shop: {{+file_format: {table_format}}}}}
        """))
    (path / "models" / "customers.sql").write_text(
        "{{ config(materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id') }}\n"
        "select * from {{ source('raw', 'customers') }}\n")
    (path / "models" / "schema.yml").write_text(yaml.safe_dump({
        "version": 2,
        "sources": [{"name": "raw", "schema": names.staging, "tables": [{"name": "customers"}]}],
        "models": [{"name": "customers", "columns": [{"name": "id", "data_tests": ["unique", "not_null"]}]}],
    }))
    (path / "seeds" / "notes.csv").write_text(SEED_CSV)
    (path / "snapshots" / "notes_history.sql").write_text(
        "{% snapshot notes_history %}\n"
        "{{ config(target_schema=target.schema, unique_key='id', strategy='check', check_cols='all') }}\n"
        "select * from {{ ref('notes') }}\n{% endsnapshot %}\n")
    profile = yaml.safe_load(readme_block(SECTION, "# profiles.yml (connect)"))
    profile["shop"]["outputs"]["connect"].update(port=port, schema=names.target, threads=2)
    (path / "profiles.yml").write_text(yaml.safe_dump(profile))
    return path


def _dbt(project: Path, *args: str, expect_success: bool = True, env: Optional[dict] = None) -> dict:
    """`dbt <args>` in a new process that cannot start a JVM (JAVA_HOME points nowhere)."""
    env = {**os.environ, **(env or {}), "JAVA_HOME": str(project / "no-java"), "PYTHONPATH": str(REPO)}
    env.pop("DBT_TARGET_PATH", None)  # an xdist worker's (tests/support/run_setup.py): this project writes its own target/
    cli = [*args, "--project-dir", str(project), "--profiles-dir", str(project)]
    done = subprocess.run([sys.executable, "-c", PROBE, *cli], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["success"] is expect_success, done.stdout[-4000:]
    assert not found["jvm"] and (found["connect_client"] or args[0] == "deps"), found  # over Spark Connect, no JVM
    found["output"] = done.stdout
    return found


@pytest.mark.extended("delta")
@pytest.mark.each_format  # the server's catalog and table format differ per format
def test_dbt_over_connect__debugs_merges_builds_snapshots_shows_and_documents_without_a_jvm(
        spark, lakehouse, names, connect_server, tmp_path):
    project = _project(tmp_path / "shop", names, connect_server.port)
    pipeline = _pipeline(lakehouse, names)
    final = f"select * from `{names.target}`.customers order by id"
    debugged = _dbt(project, "debug")
    assert "All checks passed!" in debugged["output"], debugged["output"][-3000:]

    # load 1 builds the table, load 2 is merged into it, both on the server
    _run(pipeline, LOAD_1)
    _dbt(project, "run")
    _run(pipeline, LOAD_2)
    # build, on two threads: the seed and the model side by side, then the model's tests and the seed's snapshot
    built = _dbt(project, "build")
    assert "PASS=5 WARN=0 ERROR=0 SKIP=0" in built["output"], built["output"][-3000:]
    assert rows(spark, final) == UPSERTED
    seeded = spark.sql(f"select id, note from `{names.target}`.notes order by id").collect()
    assert [tuple(r) for r in seeded] == SEED_ROWS
    history = spark.sql(f"select id, note, dbt_valid_to from `{names.target}`.notes_history order by id").collect()
    assert [tuple(r) for r in history] == [(*row, None) for row in SEED_ROWS]

    shown = _dbt(project, "show", "--inline", "select id, name from {{ ref('customers') }} order by id")
    assert shown["shown"] == [["1", "Ann"], ["2", "Bobby"], ["3", "Cid"]]
    _dbt(project, "docs", "generate")
    catalog = json.loads((project / "target" / "catalog.json").read_text())
    documented = {node["metadata"]["name"]: sorted(node["columns"]) for node in catalog["nodes"].values()}
    assert set(documented["customers"]) >= {"id", "name", "address__city", "_dlt_load_id"}


# the package alone over the wire is tests/deploy/test_readme.py's (thrift); over connect, the test above's
@pytest.mark.extended
def test_the_package_alone__on_dbt_spark_session_with_spark_remote__merges_loads_without_a_jvm(
        spark, lakehouse, names, connect_server, tmp_path):
    """dbt-spark's `method: session` takes pyspark's `SparkSession.builder.getOrCreate()`, which pyspark 3.5
    turns into a Spark Connect session when SPARK_REMOTE is set: the package alone (`type: spark`) then runs
    on the server, as dbt Cloud-like setups of plain dbt-spark do (docs/deployments.md, "Spark Connect").
    One format: the package alone reads the format off `_dlt_loads` as over thrift, tested on both there."""
    project = _project(tmp_path / "shop", names, connect_server.port)
    (project / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO)}]}))
    session = yaml.safe_load(readme_block(SECTION, "# profiles.yml (dbt-spark, method: session)"))
    session["shop"]["outputs"]["remote"].update(schema=names.target)
    (project / "profiles.yml").write_text(yaml.safe_dump(session))
    remote = {"SPARK_REMOTE": f"sc://127.0.0.1:{connect_server.port}"}
    pipeline = _pipeline(lakehouse, names)

    _dbt(project, "deps", env=remote)
    _run(pipeline, LOAD_1)
    _run(pipeline, LOAD_2)
    _dbt(project, "run", env=remote)  # both loads, in their order
    assert rows(spark, f"select * from `{names.target}`.customers order by id") == UPSERTED


@pytest.mark.extended
@pytest.mark.each_format
def test_dbt_over_connect__server_killed_mid_run_fails_naming_it_and_the_rerun_is_correct(
        spark, lakehouse, names, tmp_path, watchdog):
    port = free_port()
    project = _project(tmp_path / "shop", names, port)
    pipeline = _pipeline(lakehouse, names)
    _run(pipeline, LOAD_1)
    _run(pipeline, LOAD_2)
    server = ConnectServer(lakehouse, port, tmp_path, watchdog)
    env = {**os.environ, "JAVA_HOME": str(project / "no-java")}
    run = Foreground([str(Path(sys.executable).parent / "dbt"), "run", "--project-dir", str(project),
                      "--profiles-dir", str(project)], env, cwd=project)
    try:
        run.wait_for_line(r"START sql sparkload model", timeout=120)
        os.killpg(server.command.popen.pid, signal.SIGKILL)  # the command only: its JVM dies with it
        assert server.command.leftovers([port]) == []
        assert run.popen.wait(120) == 1
    finally:
        run.kill() if run.popen.poll() is None else None
    errors = [line for line in run.lines if "does not answer" in line]
    assert errors and f"Spark Connect server sc://127.0.0.1:{port} does not answer" in errors[0], "\n".join(run.lines[-30:])

    # the rerun, on a new server at the same address, applies both loads as one uninterrupted run would
    again = ConnectServer(lakehouse, port, tmp_path, watchdog)
    try:
        _dbt(project, "run")
        assert rows(spark, f"select * from `{names.target}`.customers order by id") == UPSERTED
    finally:
        again.stop()
    assert not port_open("127.0.0.1", port)


@pytest.mark.parametrize("outputs, message", [
    ({"url": "sc://h:1", "port": 2}, "takes either url or host/port/token/use_ssl, not both: remove port"),
    ({"host": "h", "lakehouse_dir": "x"}, "method: connect does not take lakehouse_dir; its keys are"),
    ({}, "method: connect needs the server: host (and port, default 15002) or url: sc://host:port"),
    ({"url": "http://h:1"}, "url: 'http://h:1' is not a Spark Connect URL; expected sc://host:port"),
    ({"url": "sc://h:1/;tokn=x"}, "url: parameter 'tokn=x' of 'sc://h:1/;tokn=x' is not one of token=..."),
    ({"host": "h", "token": "t", "use_ssl": False}, "token is sent over TLS only"),
    ({"host": "h", "use_ssl": "yes"}, "use_ssl: 'yes' is not a boolean"),
])
def test_connect_profile__a_mistake_is_refused_in_one_line(outputs, message):
    from dbt_common.exceptions import DbtRuntimeError

    from dbt.adapters.sparkload.connections import SparkloadCredentials

    with pytest.raises(DbtRuntimeError) as raised:
        SparkloadCredentials.from_dict({"method": "connect", "schema": "analytics", **outputs})
    assert message in raised.value.msg and "\n" not in raised.value.msg


def test_connect_profile__url_or_host_port_token_name_the_same_server():
    from dbt.adapters.sparkload.connect import url_of
    from dbt.adapters.sparkload.connections import SparkloadCredentials

    by_keys = SparkloadCredentials.from_dict({"method": "connect", "schema": "a", "host": "h", "token": "a;b=c"})
    by_url = SparkloadCredentials.from_dict({"method": "connect", "schema": "a", "url": "sc://h:15002/;token=a%3Bb%3Dc"})
    assert (by_keys.host, by_keys.port) == (by_url.host, by_url.port) == ("h", 15002)
    assert url_of(by_keys) == ("sc://h:15002/;token=a%3Bb%3Dc", "sc://h:15002/;token=***")
    assert url_of(by_url)[1] == "sc://h:15002/;token=***"
