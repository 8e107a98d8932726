"""dbt over Spark Connect (issue 38): `sparkload lakehouse serve --connect` as docs/deployments.md runs it
(section "Spark Connect", a real foreground process over the run's lakehouse, one per module), and dbt as a
separate process on the section's `method: connect` profile, with JAVA_HOME pointing nowhere so that any
attempt to start a JVM fails: the extractor lands loads, `dbt run` merges them on the server, and `seed`,
`test`, `show` and `docs generate` work; the server killed (SIGKILL to the command) during a `dbt run`
leaves no JVM or port behind, fails the run with one line naming the server, and the rerun on a new server
is correct. The profile's mistakes are refused in one line (no server needed)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from python_extract.servers.processes import free_port, port_open

from ..conftest import rows
from ..test_skeleton import LOAD_1, LOAD_2, _pipeline, _run
from .commands import Foreground, command_line, readme_block, readme_blocks

pytestmark = pytest.mark.each_format  # the server's catalog and table format differ per format

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


class ConnectServer:
    """The docs' `serve --connect` command, running."""

    def __init__(self, lakehouse, port: int, cwd: Path, watchdog):
        argv, env = command_line(readme_blocks(SECTION)[0].strip(), {".sparkload": str(lakehouse.home), "15002": str(port)})
        self.port = port
        self.command = Foreground(argv, env, cwd=cwd)
        watchdog.guard_group(self.command.popen.pid)
        try:
            self.command.wait_for_line(r"Spark Connect server at sc://127\.0\.0\.1:(\d+) ", timeout=300)
        except BaseException:
            self.command.kill()
            raise


@pytest.fixture(scope="module")
def connect_server(spark, lakehouse, tmp_path_factory, watchdog):
    # `spark` first: this process then owns the lakehouse's H2 catalog server and the Connect server joins it
    server = ConnectServer(lakehouse, free_port(), tmp_path_factory.mktemp("connect-server"), watchdog)
    yield server
    assert server.command.interrupt() == 0, "\n".join(server.command.lines[-30:])
    assert server.command.leftovers([server.port]) == []


def _project(path: Path, names, port: int) -> Path:
    """A dbt project of one sparkload model over the test's staging table, a seed, and the docs' profile."""
    (path / "models").mkdir(parents=True)
    (path / "seeds").mkdir()
    (path / "dbt_project.yml").write_text(textwrap.dedent("""\
        name: shop
        profile: shop
        config-version: 2
        seeds: {shop: {+column_types: {id: int, note: string}}}
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
    profile = yaml.safe_load(readme_block(SECTION, "# profiles.yml (connect)"))
    profile["shop"]["outputs"]["connect"].update(port=port, schema=names.target)
    (path / "profiles.yml").write_text(yaml.safe_dump(profile))
    return path


def _dbt(project: Path, *args: str, expect_success: bool = True) -> dict:
    """`dbt <args>` in a new process that cannot start a JVM (JAVA_HOME points nowhere)."""
    env = {**os.environ, "JAVA_HOME": str(project / "no-java"), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop("DBT_TARGET_PATH", None)  # an xdist worker's (tests/conftest.py): this project writes its own target/
    cli = [*args, "--project-dir", str(project), "--profiles-dir", str(project)]
    done = subprocess.run([sys.executable, "-c", PROBE, *cli], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["success"] is expect_success, done.stdout[-4000:]
    assert not found["jvm"] and found["connect_client"], found  # statements went over Spark Connect, no JVM here
    found["output"] = done.stdout
    return found


def test_dbt_over_connect__merges_loads_seeds_tests_shows_and_documents_without_a_jvm(
        spark, lakehouse, names, connect_server, tmp_path):
    project = _project(tmp_path / "shop", names, connect_server.port)
    pipeline = _pipeline(lakehouse, names)
    final = f"select * from `{names.target}`.customers order by id"

    # load 1 builds the table, load 2 is merged into it, both on the server
    _run(pipeline, LOAD_1)
    _dbt(project, "run")
    _run(pipeline, LOAD_2)
    _dbt(project, "run")
    assert rows(spark, final) == UPSERTED

    _dbt(project, "seed")
    seeded = spark.sql(f"select id, note from `{names.target}`.notes order by id").collect()
    assert [tuple(r) for r in seeded] == SEED_ROWS

    tested = _dbt(project, "test")
    assert "PASS=2 WARN=0 ERROR=0" in tested["output"], tested["output"][-3000:]
    shown = _dbt(project, "show", "--inline", "select id, name from {{ ref('customers') }} order by id")
    assert shown["shown"] == [["1", "Ann"], ["2", "Bobby"], ["3", "Cid"]]
    _dbt(project, "docs", "generate")
    catalog = json.loads((project / "target" / "catalog.json").read_text())
    documented = {node["metadata"]["name"]: sorted(node["columns"]) for node in catalog["nodes"].values()}
    assert set(documented["customers"]) >= {"id", "name", "address__city", "_dlt_load_id"}


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
        assert again.command.interrupt() == 0
        assert again.command.leftovers([port]) == []
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
