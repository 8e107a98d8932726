"""The small commands over the warm server (issue 40 item 7): `pipeline info`, `pipeline loads`, `pipeline expire
--dry-run` and `lakehouse maintain --dry-run` answer through the lakehouse's warm server when one runs (no
session in the command), with the same output as through a session of their own. The commands run in this
process (`python_extract.cli.main`): the cold answers come from this run's session, the warm ones from a real
warm server (supervisor + thrift server JVM) started as a `warm: true` dbt run starts it. On Iceberg only:
which session answers does not depend on the format (the warm server's catalog sharing is test_warm.py's,
each format). Nothing here is timed: the speed is benchmarks/bench_small_commands.py's. About 40 s, most of it
the server's JVM start and the two maintain runs."""
from __future__ import annotations

import logging
import time
import re

import pytest

import python_extract as sl
from python_extract.cli import main
from python_extract.runtime.warm import WarmFiles, ensure_server, stop_server

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
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("answered by the warm server", "started Spark"))]
    caplog.clear()
    return out, said


def test_small_commands__answer_through_the_warm_server_as_through_a_session(lakehouse, names, warm_server, capsys, caplog):
    caplog.set_level(logging.INFO, logger="sparkload")
    pipeline = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)
    pipeline.run([{"id": 1, "name": "a", "orders": [{"sku": "A"}]}, {"id": 2, "name": "b", "orders": []}],
                 table_name="customers", write_disposition="merge", primary_key="id")
    pipeline.run([{"id": 2, "name": "c"}], table_name="customers", write_disposition="merge", primary_key="id")

    cold, cold_said = answers(capsys, caplog, lakehouse, names.staging)
    server = warm_server()
    warm, warm_said = answers(capsys, caplog, lakehouse, names.staging)

    assert warm == cold
    assert "customers 2, customers__orders 1" in cold["pipeline info"] and "customers 1" in cold["pipeline loads"]
    assert f"dataset {names.staging}: 0 load(s)" in cold["pipeline expire"]
    assert f"{names.staging}.customers" in cold["lakehouse maintain"]
    # which session answered: this process's (started, or here reused) cold, the warm server's warm
    assert len(cold_said) == len(COMMANDS) and all(line.startswith("started Spark") for line in cold_said), cold_said
    assert len(warm_said) == len(COMMANDS) and all(
        line.startswith(f"answered by the warm server pid {server.pid}") for line in warm_said), warm_said
    # the server warmed up by itself on its start (runtime/warm.py `_warm_up`): the staging datasets with loads
    log_file, deadline = WarmFiles(lakehouse.home).log, time.monotonic() + 120
    while not re.search(r"warmed up on [1-9]\d* staging datasets|warm-up skipped", log_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert re.search(r"warmed up on [1-9]\d* staging datasets in [0-9.]+ s", log_file.read_text()), log_file.read_text()[-2000:]
