"""The small commands over the warm server (issue 40 item 7): `pipeline info`, `pipeline loads`, `pipeline expire
--dry-run` and `lakehouse maintain --dry-run` answer through the lakehouse's warm server when one runs (no
session in the command, and for `maintain` no dbt either: the server's own dbt runs the operation), with the
same output as through a session of their own. The commands run in this process (`python_extract.cli.main`):
the cold answers come from this run's session, the warm ones from a real warm server (supervisor + thrift
server JVM + its dbt) started as a `warm: true` dbt run starts it. The server's dbt parses its project on the
first operation (not at the server's start), then holds it parsed and sees a file of it added, changed or removed, and a Python file of sparkload changed, between two
operations. On Iceberg only: which session answers does not depend on the format (the warm server's catalog
sharing is test_warm.py's, each format). Nothing here is timed: the speed is
benchmarks/bench_small_commands.py's. About 110 s, most of it the server's JVM starts, the two maintain runs and
the dbt parses."""
from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path

import pytest

import python_extract as sl
from python_extract.cli import main
from python_extract.runtime.warm import WarmFiles, ensure_server, stop_server
from python_extract.runtime.warm_dbt import run_operation

COMMANDS = (("pipeline", "info"), ("pipeline", "loads"), ("pipeline", "expire", "--older-than", "1s", "--dry-run"),
            ("lakehouse", "maintain", "--dry-run"))


@pytest.fixture
def warm_server(lakehouse, spark, watchdog):
    """Starts the lakehouse's warm server on demand (guarded by the run's watchdog); none is left after."""
    files = WarmFiles(lakehouse.home)
    watchdog.guard_pidfile(files.pidfile)
    stop_server(lakehouse.home)
    yield lambda: ensure_server(lakehouse, idle_timeout=300)
    stop_server(lakehouse.home)
    assert files.read() is None


def answers(capsys, caplog, lakehouse, staging):
    """{command: its output} of each small command, and the log lines saying which session answered."""
    out = {}
    for command in COMMANDS:
        args = [*command, staging, "--dataset-name", staging] if command[0] == "pipeline" else [*command, "--dataset", staging]
        assert main([*args, "--home", str(lakehouse.home), "--verbose"]) == 0
        # maintain's dry run names the orphan-file cut-off, a time relative to now
        out[" ".join(command[:2])] = re.sub(r"older than [0-9-]+ [0-9:.]+", "older than <cut-off>", capsys.readouterr().out)
    said = [r.getMessage() for r in caplog.records
            if r.getMessage().startswith(("answered by the warm server", "started Spark", "dbt run-operation"))]
    caplog.clear()
    return out, said


@pytest.mark.extended  # a warm server's answers; the commands themselves run through a session in tests/reliability
def test_small_commands__answer_through_the_warm_server_as_through_a_session(lakehouse, names, warm_server, capsys,
                                                                            caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="sparkload")
    pipeline = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)
    pipeline.run([{"id": 1, "name": "a", "orders": [{"sku": "A"}]}, {"id": 2, "name": "b", "orders": []}],
                 table_name="customers", write_disposition="merge", primary_key="id")
    pipeline.run([{"id": 2, "name": "c"}], table_name="customers", write_disposition="merge", primary_key="id")

    cold, cold_said = answers(capsys, caplog, lakehouse, names.staging)
    server = warm_server()
    from dbt.cli.main import dbtRunner

    invoked, invoke = [], dbtRunner.invoke  # a dbt started in this process: what the warm path must not do
    monkeypatch.setattr(dbtRunner, "invoke", lambda runner, args, **kw: invoked.append(args[:2]) or invoke(runner, args, **kw))
    warm, warm_said = answers(capsys, caplog, lakehouse, names.staging)
    monkeypatch.undo()

    assert warm == cold
    assert invoked == [], "a warm maintain --dry-run ran dbt in the command's process"
    assert "customers 2, customers__orders 1" in cold["pipeline info"] and "customers 1" in cold["pipeline loads"]
    assert f"dataset {names.staging}: 0 load(s)" in cold["pipeline expire"]
    assert f"{names.staging}.customers" in cold["lakehouse maintain"]
    # which session answered: this process's (started, or here reused) cold, the warm server's warm; and who
    # ran maintain's operation: dbt here cold, the server's dbt warm
    sessions = [line for line in cold_said if not line.startswith("dbt run-operation")]
    assert len(sessions) == len(COMMANDS) and all(line.startswith("started Spark") for line in sessions), cold_said
    assert [line.split(" in ")[0] for line in cold_said if line.startswith("dbt run-operation")] == [
        "dbt run-operation sparkload_maintain ran"], cold_said
    sessions = [line for line in warm_said if not line.startswith("dbt run-operation")]
    assert len(sessions) == len(COMMANDS) and all(
        line.startswith(f"answered by the warm server pid {server.pid}") for line in sessions), warm_said
    assert [line.split(" in ")[0] for line in warm_said if line.startswith("dbt run-operation")] == [
        f"dbt run-operation sparkload_maintain: answered by the warm server's dbt on port {server.dbt_port}"], warm_said
    # the server warmed up by itself on its start (runtime/warm.py `_warm_up`): the staging datasets with loads
    log_file, deadline = WarmFiles(lakehouse.home).log, time.monotonic() + 300
    while not re.search(r"warmed up on [1-9]\d* staging datasets|warm-up skipped", log_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert re.search(r"warmed up on [1-9]\d* staging datasets in [0-9.]+ s", log_file.read_text()), log_file.read_text()[-2000:]


PROBE = "{% macro sparkload_probe() %}{% do log('probe says {said}', info=true) %}{% endmacro %}\n"


@pytest.mark.extended  # the warm dbt's lazy start and reuse of its parse: the first test's maintain goes through it
def test_warm_dbt__sees_a_macro_added_changed_or_removed_between_two_operations(lakehouse, warm_server):
    server = warm_server()
    probe = WarmFiles(lakehouse.home).dir / "dbt" / "macros" / "sparkload_probe.sql"

    def ask(macro="sparkload_probe"):
        return run_operation(server.host, server.dbt_port, macro, {} if macro == "sparkload_probe" else
                             {"tables": [], "file_format": "iceberg", "dry_run": True})

    # started lazily: no dbt imported, no parse, until the first operation, which waits for its parse (so a
    # server's start never parses beside the first warm dbt run); the next ones reuse that parse
    pid, deadline = WarmFiles(lakehouse.home).read()["dbt_pid"], time.monotonic() + 300

    def dbt_lines():
        return [line.split(": ", 1)[1] for line in WarmFiles(lakehouse.home).log.read_text().splitlines()
                if f"warm server dbt pid {pid}: " in line]
    while not dbt_lines() and time.monotonic() < deadline:  # its first line: a deadline for a hung test, not a timing
        time.sleep(0.2)
    said = dbt_lines()
    assert said and said[0].startswith("waiting for the first operation") and not any("parsed" in line for line in said[1:]), said
    first = ask("sparkload_maintain")
    assert first["success"] and re.match(r"parsed in [0-9.]+ s \(none held before\)$", first["parsed"]), first
    assert ask("sparkload_maintain")["parsed"].startswith("the manifest parsed")

    # a macro added to the project, then changed, then removed: each is seen by the next operation
    probe.parent.mkdir(parents=True, exist_ok=True)
    probe.write_text(PROBE.replace("{said}", "one"))
    added = ask()
    assert added["success"] and ["info", "probe says one"] in added["lines"], added
    assert added["parsed"].startswith("re-parsed in") and added["parsed"].endswith(f"{probe} added"), added

    probe.write_text(PROBE.replace("{said}", "two, changed"))
    changed = ask()
    assert changed["success"] and ["info", "probe says two, changed"] in changed["lines"], changed
    assert changed["parsed"].endswith(f"{probe} changed"), changed
    assert ask()["parsed"].startswith("the manifest parsed")  # unchanged since: no parse

    probe.unlink()
    removed = ask()
    assert not removed["success"] and removed["parsed"].endswith(f"{probe} removed"), removed
    assert ask("sparkload_maintain")["success"]


@pytest.mark.extended  # the same reload path as the macro changes above, for a Python file
def test_warm_dbt__restarts_itself_when_a_python_file_of_sparkload_it_loaded_changed(lakehouse, warm_server):
    from dbt.adapters.sparkload import impl  # the adapter the server's dbt loaded (the same files as this run's)

    server = warm_server()
    pid = WarmFiles(lakehouse.home).read()["dbt_pid"]
    args = {"tables": [], "file_format": "iceberg", "dry_run": True}
    assert run_operation(server.host, server.dbt_port, "sparkload_maintain", args)["parsed"].startswith("parsed in")

    source = Path(impl.__file__)
    was = source.stat()
    os.utime(source, ns=(was.st_atime_ns, was.st_mtime_ns + 10**9))  # as an upgrade would change it
    try:
        answer = run_operation(server.host, server.dbt_port, "sparkload_maintain", args)
    finally:
        os.utime(source, ns=(was.st_atime_ns, was.st_mtime_ns))
    assert answer["success"], answer
    assert answer["parsed"].startswith(f"restarted ({source} changed), then parsed in"), answer  # lazily, again
    assert WarmFiles(lakehouse.home).read()["dbt_pid"] == pid  # re-executed in place, on the same port
    assert f"warm server dbt pid {pid}: restarting, {source} changed" in WarmFiles(lakehouse.home).log.read_text()
