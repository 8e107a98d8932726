"""One writer per pipeline, on real processes: a `sparkload run` held in the middle of its extraction
(a gated source) keeps every other writer of the same pipeline out, or makes it wait with `--wait`; when
it is killed holding its lock, the waiting writer takes the stale lock over; two pipelines writing the
same dataset at once land every row once."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from python_extract.locks import LOCK_FILE

from ..support.sparkload_process import column, finish, one_line, sparkload, start, wait_for, write_source


def _common(names, tmp_path):
    return ["--pipeline-name", names.staging, "--dataset-name", names.staging,
            "--pipelines-dir", str(tmp_path / "pipelines"), "--no-progress"]


def test_second_writer__refused_at_once_naming_the_holder_or_waits_and_takes_over_a_killed_holders_lock(
        lakehouse, spark, names, tmp_path):
    source = write_source(tmp_path)
    gate = tmp_path / "gate"
    gate.mkdir()
    common = _common(names, tmp_path)
    home = lakehouse.home

    # a writer held inside its extraction, with the pipeline's lock
    holder = start("run", f"{source}:shop", "--arg", f"gate={gate}", *common, home=home)
    wait_for(gate / "started", holder)

    started = time.monotonic()
    second = sparkload("run", f"{source}:shop", "--arg", "first=100", *common, home=home)
    assert second.returncode == 4, second.stderr
    line = one_line(second.stderr)
    assert f"pipeline {names.staging} is being written by pid {holder.pid} on host {socket.gethostname()}" in line
    assert "--wait SECONDS" in line and time.monotonic() - started < 60  # refused before any Spark start
    pipeline_args = [names.staging, "--dataset-name", names.staging, "--pipelines-dir", str(tmp_path / "pipelines")]
    for command in (["reset", *pipeline_args, "--yes"], ["drop", *pipeline_args, "--resource", "events"],
                    ["packages", *pipeline_args, "--drop-failed"]):
        refused = sparkload("pipeline", *command, home=home)
        assert refused.returncode == 4 and f"pid {holder.pid}" in one_line(refused.stderr), command

    # a writer that waits; the holder is then killed in the middle of its extraction, holding the lock:
    # the waiter takes the stale lock over and lands its load (and nothing of the killed one)
    waiter = start("run", f"{source}:shop", "--arg", "first=100", *common, "--wait", "600", home=home)
    time.sleep(3)
    assert waiter.poll() is None, finish(waiter).stderr
    assert json.loads((tmp_path / "pipelines" / names.staging / LOCK_FILE).read_text())["pid"] == holder.pid
    holder.send_signal(signal.SIGKILL)
    holder.wait(30)
    done = finish(waiter)
    assert done.returncode == 0, done.stderr
    assert f"took over the lock of pid {holder.pid}" in done.stderr

    ids = column(spark, f"select id from `{names.staging}`.events order by id")
    assert ids == [100, 101, 102, 103, 104]
    loads = column(spark, f"select load_id from `{names.staging}`._dlt_loads")
    assert len(loads) == 1
    assert (tmp_path / "pipelines" / names.staging / LOCK_FILE).read_text() == ""  # released


WRITER = """
import sys
import python_extract as sl

name, dataset, pipelines, loads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pipe = sl.pipeline(pipeline_name=name, dataset_name=dataset, pipelines_dir=pipelines)
for n in range(loads):
    rows = [{"id": f"{name}-{n}-{i}", "tags": [{"t": i}, {"t": -i}]} for i in range(20)]
    pipe.run(rows, table_name="events")
    # a column only the later loads bring: both writers add it to the shared table at about the same time
    pipe.run([{"id": f"{name}-{n}-x", "extra": n}], table_name="events")
"""


def test_two_pipelines_writing_one_dataset__land_every_row_once(lakehouse, spark, names, tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER))
    loads = 1  # each writer: a load, then one adding a column (2 commits each to the shared tables)
    writers = [subprocess.Popen([sys.executable, str(script), f"{names.staging}_{w}", names.staging,
                                 str(tmp_path / "pipelines"), str(loads)],
                                env={**os.environ, "SPARKLOAD_HOME": str(lakehouse.home), "PYTHONPATH": os.getcwd()},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in "ab"]
    for writer in writers:
        out, err = writer.communicate(timeout=900)
        assert writer.returncode == 0, err[-3000:]

    events = spark.sql(f"select id, `_dlt_load_id` from `{names.staging}`.events").collect()
    expected = {f"{names.staging}_{w}-{n}-{i}" for w in "ab" for n in range(loads) for i in [*range(20), "x"]}
    assert sorted(r.id for r in events) == sorted(expected)  # every row, once
    children = column(spark, f"select count(*) from `{names.staging}`.events__tags")
    assert children == [2 * loads * 20 * 2]
    load_ids = column(spark, f"select load_id from `{names.staging}`._dlt_loads")
    assert len(load_ids) == len(set(load_ids)) == 2 * loads * 2
    assert {r["_dlt_load_id"] for r in events} <= set(load_ids)


def test_a_lost_race_on_the_catalog_is_retried__any_other_failure_is_not(monkeypatch):
    """Two pipelines creating one dataset at once: Iceberg's JDBC catalog fails the second namespace
    insert with an UncheckedSQLException around the catalog's unique-key violation (seen in CI); the
    step is run again and then finds the namespace. Any other failure is raised at once."""
    from python_extract.load import spark_loader

    calls = []

    def racing(again):
        calls.append(again)
        if len(calls) == 1:
            raise RuntimeError("org.apache.iceberg.jdbc.UncheckedSQLException: Failed to execute: INSERT INTO "
                               "iceberg_namespace_properties ... Unique index or primary key violation")

    monkeypatch.setattr(spark_loader.time, "sleep", lambda seconds: None)
    spark_loader._retrying(None, racing, "load 1 dataset d")
    assert calls == [False, True]
    calls.clear()

    def broken(again):
        calls.append(again)
        raise RuntimeError("AnalysisException: cannot resolve column x")

    with pytest.raises(RuntimeError, match="cannot resolve"):
        spark_loader._retrying(None, broken, "load 1 dataset d")
    assert calls == [False]
