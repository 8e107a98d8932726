"""Traces and the LoadInfo against dlt 1.31's: the same run through both, then `last_trace` (its steps, the row
counts per table, the failed step's exception), the trace kept on disk for `sparkload pipeline trace`, and the
LoadInfo printed and as a dict.

On purpose: dlt's normalize info counts its state row (`_dlt_pipeline_state: 1`); sparkload's counts the data
tables only (its state row lands beside them, as in dlt, but is not data)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import python_extract as sl

from ..support.tally import record_vs_dlt as record
from ..support.extract_sides import DltSide, SparkloadSide

ROWS = [{"id": 1, "kids": [{"k": 1}, {"k": 2}]}, {"id": 2, "kids": []}]


def _boom():
    raise ValueError("the API answered 503")
    yield  # pragma: no cover - a generator that fails on its first item


@pytest.fixture(scope="module")
def runs(home, lakehouse):
    import dlt

    theirs, ours = DltSide(home, "trace_parity"), SparkloadSide(lakehouse, home, "trace_parity")
    their_info = theirs.pipeline.run(dlt.resource(ROWS, name="items"))
    our_info = ours.pipe.run(sl.resource(ROWS, name="items"))
    their_ok, our_ok = theirs.pipeline.last_trace, ours.pipe.last_trace
    with pytest.raises(Exception):
        theirs.pipeline.run(dlt.resource(_boom, name="broken"))
    with pytest.raises(sl.PipelineStepFailed):
        ours.pipe.run(sl.resource(_boom, name="broken"))
    return (their_info, their_ok, theirs.pipeline.last_trace), (our_info, our_ok, ours.pipe.last_trace), ours, home


def test_a_run__is_traced_in_dlts_steps_with_its_row_counts(runs):
    (_, theirs, _), (_, ours, _), _, _ = runs
    assert [s.step for s in ours.steps] == [s.step for s in theirs.steps] == ["extract", "normalize", "load", "run"]
    their_counts = dict(theirs.last_normalize_info.row_counts)
    assert their_counts.pop("_dlt_pipeline_state") == 1  # on purpose: see the module docstring
    assert ours.last_normalize_info.row_counts == their_counts == {"items": 2, "items__kids": 2}
    assert all(s.finished_at >= s.started_at for s in ours.steps) and ours.finished_at >= ours.started_at
    assert str(ours).startswith(f"Run started at {ours.started_at} and COMPLETED in ")
    record("traces", "differs-on-purpose")


def test_a_failed_run__keeps_the_failed_steps_exception_as_dlt(runs):
    (_, _, theirs), (_, _, ours), _, _ = runs
    assert [s.step for s in ours.steps] == [s.step for s in theirs.steps] == ["extract", "run"]
    for side in (theirs, ours):
        assert "the API answered 503" in str(side.steps[0].step_exception)
        assert "the API answered 503" in str(side.steps[-1].step_exception)
    assert "FAILED" in str(ours) and "Step extract FAILED" in str(ours)
    record("traces", "identical")


def test_the_last_trace__is_kept_on_disk_and_shown_by_sparkload_pipeline_trace(runs, lakehouse):
    _, (_, _, ours), side, home = runs
    again = sl.pipeline(pipeline_name="trace_parity", dataset_name="trace_parity", lakehouse=lakehouse,
                        pipelines_dir=str(home / "sl_pipelines"))
    assert again.last_trace.asdict() == ours.asdict()
    shown = subprocess.run([sys.executable, "-m", "python_extract.cli", "pipeline", "trace", "trace_parity",
                            "--pipelines-dir", str(home / "sl_pipelines"), "--home", str(lakehouse.home)],
                           capture_output=True, text=True, env={**os.environ}, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Run started at") and "Step extract FAILED" in shown.stdout
    assert "ValueError: the API answered 503" in shown.stdout
    missing = subprocess.run([sys.executable, "-m", "python_extract.cli", "pipeline", "trace", "trace_party",
                              "--pipelines-dir", str(home / "sl_pipelines"), "--home", str(lakehouse.home)],
                             capture_output=True, text=True, env={**os.environ}, timeout=120)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no trace of pipeline 'trace_party'" in missing.stderr


def test_load_info__printed_and_as_a_dict_as_dlts(runs):
    (theirs, _, _), (ours, _, _), _, _ = runs
    their_lines, our_lines = str(theirs).splitlines(), str(ours).splitlines()
    assert our_lines[0].startswith("Pipeline trace_parity load step finished in ") and their_lines[0].startswith("Pipeline trace_parity load step finished in ")
    assert our_lines[1] == their_lines[1].replace("duckdb", "sparkload")
    assert our_lines[-1] == f"Load package {ours.load_id} is LOADED and contains no failed jobs"
    assert their_lines[-1] == f"Load package {theirs.loads_ids[-1]} is LOADED and contains no failed jobs"
    ours_dict, their_dict = ours.asdict(), theirs.asdict()
    assert set(ours_dict) - {"row_counts"} <= set(their_dict)
    for key in ("dataset_name", "first_run"):
        assert ours_dict[key] == their_dict[key]
    assert [p["state"] for p in ours_dict["load_packages"]] == [p["state"] for p in their_dict["load_packages"]]
    assert json.loads(json.dumps(ours_dict, default=str))["loads_ids"] == [ours.load_id]
    record("traces", "identical")


def test_extract_normalize_load_called_alone__join_one_trace_as_dlts(home, lakehouse):
    import dlt

    theirs, ours = DltSide(home, "trace_steps"), SparkloadSide(lakehouse, home, "trace_steps")
    seen = {"dlt": [], "sparkload": []}
    for side, pipe, make in (("dlt", theirs.pipeline, dlt.resource), ("sparkload", ours.pipe, sl.resource)):
        pipe.extract(make(ROWS, name="items"))
        seen[side].append([s.step for s in pipe.last_trace.steps])
        pipe.normalize()
        seen[side].append([s.step for s in pipe.last_trace.steps])
        pipe.load()
        seen[side].append([s.step for s in pipe.last_trace.steps])
    assert seen["sparkload"] == seen["dlt"] == [["extract"], ["extract", "normalize"], ["extract", "normalize", "load"]]
    their_load, our_load = theirs.pipeline.last_trace.last_load_info, ours.pipe.last_trace.last_load_info
    assert len(our_load.loads_ids) == len(their_load.loads_ids) == 1
    assert ours.pipe.last_trace.last_extract_info.row_counts == {"items": 2, "items__kids": 2}
    record("traces", "identical")
