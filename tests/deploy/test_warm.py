"""The warm dbt loop (docs/deployments.md, "The warm dbt loop"), on real processes: dbt runs as separate processes
with the `warm: true` profile of docs/deployments.md over this run's lakehouse; the warm server they start is a real
detached supervisor + thrift server JVM + its dbt process, guarded by the run's watchdog (its pid file), and each
test ends with no warm server left (none of the three processes, none of their ports).

Nothing here is timed: the speed is the benchmark's (benchmarks/bench_dbt_loop.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from python_extract.runtime.warm import WarmFiles, stop_server

from ..support.dbt import Dbt, Names, dbt_env
from ..support.paths import INTEGRATION
from ..support.skeleton import LOAD_1, LOAD_2
from ..support.skeleton import customers_pipeline as _pipeline
from ..support.skeleton import run_customers as _run
from ..support.tables import rows
from ..support.doc_commands import alive, port_held_for, readme_block, started_at


PROFILE = "sparkload_integration_tests"
# one dbt invocation in a process of its own; its last line says whether pyspark was ever imported there
DBT_PROCESS = (
    "import json, sys\n"
    "from dbt.cli.main import dbtRunner\n"
    "result = dbtRunner().invoke(sys.argv[1:])\n"
    "print(json.dumps({'success': result.success, 'pyspark': sorted(m for m in sys.modules if m.split('.')[0] == 'pyspark')}))\n"
)


def _warm_profile(directory: Path, idle: str = "15m", **extra) -> Path:
    """The warm profile of docs/deployments.md, pointed at this run's lakehouse and integration_tests' profile name."""
    block = yaml.safe_load(readme_block("The warm dbt loop", "# profiles.yml (warm)"))
    output = dict(block["shop"]["outputs"]["dev"], lakehouse_dir="{{ env_var('SPARKLOAD_HOME') }}",
                  schema="{{ env_var('SPARKLOAD_TARGET_SCHEMA') }}", warm_idle_timeout=idle, threads=1, **extra)
    assert output["warm"] is True and output["method"] == "embedded"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "profiles.yml").write_text(yaml.safe_dump({PROFILE: {"target": "warm", "outputs": {"warm": output}}}))
    return directory


class DbtProcess:
    """`dbt <args>` of integration_tests/ as its own process, on the warm profile."""

    def __init__(self, tmp_path: Path, names, idle: str = "15m", **profile):
        self.tmp, self.names = tmp_path, names
        self.profiles = _warm_profile(tmp_path / f"profile-{idle}", idle, **profile)
        self.count = 0

    def start(self, *args: str) -> subprocess.Popen:
        self.count += 1
        work = self.tmp / f"dbt-{self.count}"
        cli = [*args, "--project-dir", str(INTEGRATION), "--profiles-dir", str(self.profiles)]
        env = {**os.environ, **dbt_env(self.names),
               "DBT_TARGET_PATH": str(work / "target"), "DBT_LOG_PATH": str(work / "logs")}
        return subprocess.Popen([sys.executable, "-c", DBT_PROCESS, *cli], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    @staticmethod
    def finish(popen: subprocess.Popen, expect_success: bool = True) -> dict:
        output, _ = popen.communicate(timeout=900)
        lines = output.strip().splitlines()
        result = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {"success": False, "pyspark": None}
        result["output"] = output
        if expect_success:
            assert result["success"], output[-4000:]
        return result

    def __call__(self, *args: str, expect_success: bool = True) -> dict:
        return self.finish(self.start(*args), expect_success)


PROCESSES = ("pid", "jvm_pid", "dbt_pid")  # a server's supervisor, its JVM and its dbt (server.json)


@pytest.fixture
def warm(lakehouse, spark, dbt_deps, watchdog):
    """The lakehouse's warm files; the server any test starts is guarded, and stopped at the end."""
    # `spark` first: this pytest's JVM then serves the H2 catalog, and a warm server stopping breaks no one
    files = WarmFiles(lakehouse.home)
    watchdog.guard_pidfile(files.pidfile)
    stop_server(lakehouse.home)
    seen = []
    yield files, seen
    state = files.read()
    if state:
        seen.append(_identified(state))
    stop_server(lakehouse.home)
    assert files.read() is None and not files.pidfile.exists()
    home = str(lakehouse.home)
    left = [f"pid {s[k]}" for s in seen for k in PROCESSES if alive(s[k], s["started"].get(k))]
    left += [f"port {s[k]}" for s in seen for k in ("port", "jvm_port", "dbt_port") if k in s and port_held_for(s[k], home)]
    assert left == [], f"warm server processes or ports left: {left}"


def _identified(state: dict) -> dict:
    """`state` with the start times of its processes: a pid seen again later is the same process only
    with the same start time (ids are recycled quickly here, above all with two pytest workers)."""
    return dict(state, started={k: started_at(state[k]) for k in PROCESSES})


def _server(files: WarmFiles) -> dict:
    state = files.read()
    assert state, f"no warm server recorded in {files.state}"
    assert all(alive(state[k]) for k in PROCESSES), state
    return _identified(state)


def _started_by_debug(dbt: "DbtProcess", files: WarmFiles, seen: list) -> dict:
    """A `dbt debug` (which connects, so starts the server when none runs); the server it used."""
    dbt("debug")
    server = _server(files)
    seen.append(server)
    return server


def _connections(files: WarmFiles) -> int:
    return files.log.read_text().count(": connection ")


def _wait_until_gone(server: dict, ports=("port",), timeout=300.0) -> list:
    """What of the `server`'s processes (as _identified recorded them), then of its `ports`, is still
    there once the processes are gone or `timeout` passed (a deadline for a hung test, not a timing).
    Ports are probed only then, by what listens on them (the kernel may have given one to another
    process since, which does not count)."""
    pids = [(server[k], server["started"][k]) for k in PROCESSES]
    deadline = time.monotonic() + timeout
    while [p for p, start in pids if alive(p, start)] and time.monotonic() < deadline:
        time.sleep(0.5)
    left = [f"pid {p}" for p, start in pids if alive(p, start)]
    home = str(server["home"])
    deadline = time.monotonic() + 10.0  # the kernel frees a dead process's sockets a moment after it exits
    while [k for k in ports if port_held_for(server[k], home)] and time.monotonic() < deadline:
        time.sleep(0.5)
    return left + [f"port {server[k]}" for k in ports if port_held_for(server[k], home)]


# the server's session on each format's catalog beside this run's (docs/testing.md); the other tests
# here are about processes (start, kill, idle, stop), which the format does not change
@pytest.mark.extended
@pytest.mark.each_format
def test_warm_run__the_first_run_starts_the_server_and_the_second_uses_it_with_no_jvm_in_dbt(
        spark, lakehouse, names, warm, tmp_path):
    files, seen = warm
    dbt = DbtProcess(tmp_path, names)
    pipeline = _pipeline(lakehouse, names)
    # the embedded adapter (this pytest's JVM) gets the same loads in a dataset and schema of its own
    embedded_names = Names(staging=f"{names.staging}_e", target=f"{names.target}_e")
    embedded, embedded_pipeline = Dbt(embedded_names, "embedded"), _pipeline(lakehouse, embedded_names)

    # load 1: no server yet, so the warm run starts one
    _run(pipeline, LOAD_1)
    first = dbt("run", "--select", "skeleton_customers")
    server = _server(files)
    seen.append(server)
    assert "starting one for lakehouse" in first["output"]
    assert first["pyspark"] == [], "the warm dbt process imported pyspark"
    _run(embedded_pipeline, LOAD_1)
    embedded.run("skeleton_customers")

    # load 2: the same server, over new connections; this dbt process loads no pyspark, so starts no JVM
    _run(pipeline, LOAD_2)
    before = _connections(files)
    second = dbt("run", "--select", "skeleton_customers")
    assert second["pyspark"] == []
    assert "starting one" not in second["output"] and "already running" in second["output"]
    assert _server(files)["pid"] == server["pid"] and _connections(files) > before
    # the table format is the lakehouse's pinned one (impl.lakehouse_table_format): the model lists its
    # staging dataset once and describes no `_dlt_loads` to learn the format (it did both again before)
    log = (tmp_path / f"dbt-{dbt.count}" / "logs" / "dbt.log").read_text()
    assert log.count(f"show tables in `{names.staging}`") == 1, log[-6000:]
    assert f"describe table extended `{names.staging}`.`_dlt_loads`" not in log
    _run(embedded_pipeline, LOAD_2)
    embedded.run("skeleton_customers")

    warm_table = rows(spark, f"select * from {names.target}.skeleton_customers order by id")
    assert warm_table == rows(spark, f"select * from {embedded_names.target}.skeleton_customers order by id") == [
        {"id": 1, "name": "Ann", "address__city": "Oslo"},
        {"id": 2, "name": "Bobby", "address__city": "Rome"},
        {"id": 3, "name": "Cid", "address__city": "Lima"},
    ]


@pytest.mark.extended
def test_warm_runs_started_at_once__start_one_server_and_both_use_it(names, warm, tmp_path):
    files, seen = warm
    dbt = DbtProcess(tmp_path, names)
    started_before = files.log.read_text().count("serving lakehouse") if files.log.exists() else 0

    both = [dbt.start("debug"), dbt.start("debug")]
    results = [DbtProcess.finish(p) for p in both]

    server = _server(files)
    seen.append(server)
    assert sum("starting one for lakehouse" in r["output"] for r in results) == 1, [r["output"][-2000:] for r in results]
    assert all(f"warm server pid {server['pid']} " in r["output"] for r in results)
    assert files.log.read_text().count("serving lakehouse") == started_before + 1


def test_killed_server__is_detected_and_replaced_by_the_next_run(names, warm, tmp_path):
    files, seen = warm
    dbt = DbtProcess(tmp_path, names)
    killed = _started_by_debug(dbt, files, seen)

    # SIGKILL the supervisor: its files stay behind; the JVM dies with it (it gets SIGTERM)
    os.kill(killed["pid"], signal.SIGKILL)
    assert _wait_until_gone(killed) == []
    assert dict(files.read(), started=killed["started"]) == killed

    replaced = dbt("debug")
    assert f"(pid {killed['pid']}, port {killed['port']}) is gone; cleaning its files and starting a new one" \
        in replaced["output"]
    server = _server(files)
    seen.append(server)
    assert server["pid"] != killed["pid"]


@pytest.mark.extended
def test_killed_jvm__ends_its_supervisor_and_the_next_run_starts_a_server(names, warm, tmp_path):
    files, seen = warm
    dbt = DbtProcess(tmp_path, names)
    server = _started_by_debug(dbt, files, seen)

    os.killpg(server["jvm_pid"], signal.SIGKILL)
    assert _wait_until_gone(server) == []
    assert files.read() is None and "the thrift server JVM exited with code" in files.log.read_text()

    restarted = dbt("debug")
    assert "starting one for lakehouse" in restarted["output"]
    seen.append(_server(files))


@pytest.mark.extended
def test_idle_server__exits_after_its_timeout_leaving_no_process_and_no_port(names, warm, tmp_path):
    files, seen = warm
    server = _started_by_debug(DbtProcess(tmp_path, names, idle="20s"), files, seen)
    assert server["idle_timeout"] == 20

    # nobody queries it: it stops by itself (the wait is a deadline for a hung test, not a timing)
    assert _wait_until_gone(server, ("port", "jvm_port", "dbt_port")) == []
    assert files.read() is None and not files.pidfile.exists()
    assert f"warm server pid {server['pid']}: stopping: idle for 20 s" in files.log.read_text()


@pytest.mark.extended
def test_stop_command__stops_the_server_and_says_so(lakehouse, names, warm, tmp_path):
    files, seen = warm
    server = _started_by_debug(DbtProcess(tmp_path, names), files, seen)
    sparkload = str(Path(sys.executable).parent / "sparkload")

    stopped = subprocess.run([sparkload, "lakehouse", "serve", "--stop", "--home", str(lakehouse.home)],
                             capture_output=True, text=True, timeout=300)
    again = subprocess.run([sparkload, "lakehouse", "serve", "--stop", "--home", str(lakehouse.home)],
                           capture_output=True, text=True, timeout=300)

    assert stopped.returncode == 0 and again.returncode == 0, stopped.stderr + again.stderr
    assert stopped.stdout.strip() == (f"stopped the warm server of lakehouse {lakehouse.home} "
                                      f"(pid {server['pid']}, port {server['port']})")
    assert again.stdout.strip() == f"no warm server runs for lakehouse {lakehouse.home}"
    assert _wait_until_gone(server, ("port", "jvm_port", "dbt_port"), timeout=120) == []


@pytest.mark.extended
def test_warm_server_that_cannot_start__fails_the_run_with_its_reason_and_leaves_nothing(lakehouse, names, warm, tmp_path):
    files, _ = warm
    # this run's lakehouse is pinned to the run's format: a server asked for the other one refuses to start
    pinned = os.environ["SPARKLOAD_TABLE_FORMAT"]
    dbt = DbtProcess(tmp_path, names, table_format="delta" if pinned == "iceberg" else "iceberg")

    failed = dbt("debug", expect_success=False)

    assert not failed["success"]
    assert (f"the warm server for lakehouse {lakehouse.home} exited with code 1 before serving: the lakehouse "
            f"{lakehouse.home} holds {pinned} tables") in failed["output"], failed["output"][-3000:]
    assert f"log {files.log}" in failed["output"] and "remove `warm` from the profile" in failed["output"]
    assert files.read() is None and not files.pidfile.exists()


@pytest.mark.parametrize("keys, message", [
    ({"warm": "maybe"}, "'maybe' is not of type 'boolean'"),
    ({"warm": True, "warm_idle_timeout": "15x"}, "warm_idle_timeout: '15x' is not a duration"),
    ({"warm": True, "warm_idle_timeout": 0}, "warm_idle_timeout: 0 is not a duration"),
    ({"warm_idle_timeout": "15m"}, "warm_idle_timeout is set but warm is not true"),
    ({"warm": True, "method": "thrift", "host": "h", "port": 1}, "warm applies to method: embedded only"),
])
def test_warm_profile__a_wrong_value_is_an_error_naming_the_key(keys, message):
    from dbt.adapters.sparkload.connections import SparkloadCredentials

    profile = {"method": "embedded", "schema": "analytics", **keys}
    with pytest.raises(Exception) as failed:
        SparkloadCredentials.validate(profile)  # as dbt reads a profile
        SparkloadCredentials.from_dict(profile)
    assert message in str(failed.value)
