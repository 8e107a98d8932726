"""An incremental real connector from PyPI end to end: airbyte-source-senseforce 0.1.15, its `backend_url` on the
local API of tests/support/senseforce_api.py, run by `sparkload run` from a pipeline file into the
lakehouse. Run 1: the connector is SIGKILLed mid-stream (after its 5th record, before that window's STATE):
the run fails with one line, the windows before the kill are in the staging table, the 5th record is not.
Run 2: the connector unharmed, from the kept state. Run 3: a new row and an updated one, from run 2's state.
Records and state against the connector run directly are judged in
tests/parity_airbyte/test_senseforce_connector.py; this test adds the landing, the CLI and the pipeline state."""
from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
import yaml

from python_extract.cli import main as sparkload
from python_extract.sources.airbyte.connector import install

from ..support.senseforce_api import PACKAGE, ROWS, VENVS, VERSION, SenseforceApi, SenseforceServer, config_of, ms, row

HERE = Path(__file__).parent
KILLER = HERE.parent / "support" / "killing_connector.py"


@pytest.fixture(scope="module")
def connector() -> Path:
    return install(PACKAGE, VENVS, VERSION)


def test_senseforce__killed_mid_stream_keeps_its_windows_then_two_runs_complete_from_the_kept_state(
        connector, lakehouse, names, spark, tmp_path, capsys):
    killed = tmp_path / "senseforce-killed"
    killed.write_text(f"#!/bin/sh\nREAL_CONNECTOR={connector} KILL_AFTER_RECORDS=5 FAIL_WITH= exec {sys.executable} "
                      f"{KILLER} \"$@\"\n")
    killed.chmod(killed.stat().st_mode | stat.S_IEXEC)

    def pipeline_file(api: SenseforceApi, **where) -> str:
        path = tmp_path / "senseforce_pipeline.yaml"
        path.write_text(yaml.safe_dump({
            "pipeline_name": names.staging, "dataset_name": names.staging, "pipelines_dir": str(tmp_path / "pipelines"),
            "source": {"type": "airbyte", "name": "senseforce", "config": {
                **(where or {"package": PACKAGE, "version": VERSION, "venvs_dir": str(VENVS)}), "streams": ["dataset"],
                "checkpoint_records": 1, "config": config_of(api)}}}))
        return str(path)

    def staged():
        return sorted((r.id, r.thing) for r in spark.sql(f"select id, thing from `{names.staging}`.dataset").collect())

    home = ["--home", str(lakehouse.home)]
    with SenseforceServer(SenseforceApi(rows=[dict(r) for r in ROWS])) as api:
        # run 1: killed after r5, before its window's STATE
        capsys.readouterr()
        assert sparkload(["run", pipeline_file(api, executable=str(killed)), *home]) == 1
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "exited with code -9" in err
        assert [i for i, _ in staged()] == ["r1", "r2", "r3", "r4"]

        # run 2: windows from r4's cursor (the connector's state is the highest cursor read, and a window's
        # start is inclusive: r4 is read again), so r7, at day 420, is in two windows now
        assert sparkload(["run", pipeline_file(api), *home]) == 0
        assert [i for i, _ in staged()] == ["r1", "r2", "r3", "r4", "r4", "r5", "r6", "r7", "r7"]

        # run 3: r2 updated, r8 new; from r7's cursor
        api.rows += [row(8, 430)]
        api.rows[1] = row(2, 431, "recalibrated")
        assert sparkload(["run", pipeline_file(api), *home]) == 0
        latest = spark.sql(f"select id, thing from `{names.staging}`.dataset where airbyte_cursor * 1000 >= {ms(420)}").collect()
        assert sorted((r.id, r.thing) for r in latest) == [("r2", "recalibrated"), *[("r7", "sensor 7")] * 3, ("r8", "sensor 8")]
        assert len(staged()) == 12
