"""Crash safety: a real process is killed with SIGKILL at each boundary of a run, then the pipeline is
run again (here, in-process, with the same working directory). Every source row must land exactly once,
`_dlt_loads` must hold no duplicate load, and the cursor must equal an uninterrupted run's.

The five children start at once (each is a JVM start) and are awaited by the first test that needs one."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

import python_extract as sl
from python_extract.lakehouse.session import session_format

from ..support.staging import unregistered_folders
from ..support.crash_child import LINKED_NOT_COMMITTED, events

BOUNDARIES = {
    "after_extract": "extract_done",
    "after_normalize": "package_sealed",
    "after_some_tables": LINKED_NOT_COMMITTED,   # one table landed, the next one's files linked, not committed
                                                 # (on Delta: one table landed, the other being written)
    "after_all_tables_before_dlt_loads": "state_written",
    "after_dlt_loads": "load_completed",
}
# a kill is answered by each format's own landing (Iceberg registers linked files, Delta writes with Spark)
pytestmark = pytest.mark.each_format
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _dataset(boundary: str) -> str:
    return f"crash_{boundary}_{os.getpid()}"


@pytest.fixture(scope="module")
def killed_runs(lakehouse, spark, tmp_path_factory):
    """Start one child per boundary (load 1 of 20 rows, killed); wait for all; {boundary: pipelines_dir}."""
    base = tmp_path_factory.mktemp("crash")
    # this process opens the lakehouse's H2 catalog first, so it (not a child that is then killed) serves it
    # to the children (AUTO_SERVER): with a child as the server, its kill left the others racing to take the
    # database over, and one failed with H2's "Lock file recently modified"
    spark.sql("show namespaces").collect()
    children = {}
    for boundary, event in BOUNDARIES.items():
        pipelines_dir = base / boundary
        cmd = [sys.executable, "-m", "tests.support.crash_child", str(lakehouse.home), _dataset(boundary),
               str(pipelines_dir), event, "20"]
        children[boundary] = (subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), pipelines_dir)
    done = {}
    for boundary, (child, pipelines_dir) in children.items():
        _, err = child.communicate(timeout=300)
        done[boundary] = (child.returncode, err.decode(errors="replace")[-2000:], pipelines_dir)
    return done


@pytest.fixture(scope="module")
def uninterrupted_cursor(lakehouse, spark, tmp_path_factory):
    dataset = f"crash_clean_{os.getpid()}"
    pipe = sl.pipeline(pipeline_name=dataset, dataset_name=dataset, lakehouse=lakehouse,
                       pipelines_dir=str(tmp_path_factory.mktemp("clean")))
    pipe.run(events(20))
    pipe.run(events(30))
    pipe.sync_destination()
    return _cursor(pipe.state["sources"][dataset]["resources"]["events"]["incremental"]["ts"])


def _cursor(entry):
    """The cursor without `start_value`: that is where the last run started, which a crash changes."""
    return {k: v for k, v in entry.items() if k != "start_value"}


# make test: a boundary inside the table commits and the one after the load's row; make test-all: each
@pytest.mark.parametrize("boundary", [b if b in ("after_some_tables", "after_dlt_loads") else pytest.param(b, marks=pytest.mark.extended)
                                      for b in BOUNDARIES])
def test_sigkill_at_each_boundary__rerun_lands_every_row_once_with_the_uninterrupted_cursor(
        boundary, killed_runs, uninterrupted_cursor, lakehouse, spark):
    code, err, pipelines_dir = killed_runs[boundary]
    assert code == -signal.SIGKILL, f"child was not killed at {BOUNDARIES[boundary]} (exit {code}): {err}"
    dataset = _dataset(boundary)

    # the rerun: same working directory, the source has grown to 30 rows
    pipe = sl.pipeline(pipeline_name=dataset, dataset_name=dataset, lakehouse=lakehouse, pipelines_dir=str(pipelines_dir))
    pipe.run(events(30))

    ids = [r["id"] for r in spark.sql(f"select id from {dataset}.events").collect()]
    assert sorted(ids) == list(range(30))
    tags = [r["value"] for r in spark.sql(f"select value from {dataset}.events__tags").collect()]
    assert sorted(tags) == sorted([f"t{i}" for i in range(30)] + [f"u{i}" for i in range(30)])
    loads = [r["load_id"] for r in spark.sql(f"select load_id from {dataset}._dlt_loads").collect()]
    assert len(loads) == len(set(loads))
    landed = {r["_dlt_load_id"] for r in spark.sql(f"select distinct _dlt_load_id from {dataset}.events").collect()}
    assert landed <= set(loads)                                    # no row of an incomplete load is left behind
    pipe.sync_destination()
    assert _cursor(pipe.state["sources"][dataset]["resources"]["events"]["incremental"]["ts"]) == uninterrupted_cursor
    assert pipe.packages.pending() == []
    if session_format(spark) == "iceberg":  # Delta links no file: Spark writes each table, VACUUM removes what a kill left
        for table in ("events", "events__tags"):
            assert unregistered_folders(pipe, table) == []          # no orphan of a killed attempt is left
