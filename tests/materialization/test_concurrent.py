"""Two `dbt run`s (real processes) applying the same pending load to an append model at the same moment:
one applies it, the other fails on the first one's commit with the table unchanged, and its rerun finds
the load applied. The runs meet at a race point (integration_tests/macros/race_points.sql) and read the
table before either commits. An insert-only MERGE used to be committed as a plain append, unchecked,
and both runs appended the load."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ..support.dbt import dbt_env
from ..support.paths import INTEGRATION
from ..support.tables import rows_of, table

pytestmark = pytest.mark.each_format  # the format changes what this tests (docs/testing.md)

CONFLICT = re.compile(r"ValidationException: Found conflicting files")


@pytest.mark.dbt_targets("embedded")  # the racing runs are embedded processes; the rerun is this process
def test_concurrent__two_runs_apply_one_append_load_once_the_loser_fails_and_its_rerun_applies_nothing(
        spark, lakehouse, stage, dbt, names, tmp_path):
    from python_extract.lakehouse import session_format

    if session_format(spark) == "delta":
        pytest.skip("a Delta lakehouse keeps its tables in a Derby metastore, which admits one JVM at a time")
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("append_items")
    stage.load([{"id": 2, "name": "b"}, {"id": 3, "name": "c"}])
    spark.sql(f"create table {names.target}._race_points (target string)")

    env = {**os.environ, "SPARKLOAD_HOME": str(lakehouse.home), **dbt_env(names)}
    cli = [str(Path(sys.executable).with_name("dbt")), "run", "--select", "append_items", "--target", "embedded",
           "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION),
           "--vars", yaml.safe_dump({"sparkload_race_points": {"append_items": 2}})]
    logs = [tmp_path / f"run{i}.log" for i in (1, 2)]
    runs = [subprocess.Popen(cli, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT) for log in logs]
    codes = [run.wait(600) for run in runs]
    outputs = [log.read_text(errors="replace") for log in logs]

    assert sorted(codes) == [0, 1], outputs
    assert CONFLICT.search(outputs[codes.index(1)]), outputs[codes.index(1)][-3000:]
    expected = rows_of((1, "a"), (2, "b"), (3, "c"))
    assert table(spark, f"{names.target}.append_items", "id, name") == expected
    dbt.run("append_items")  # the loser's rerun: the load is recorded as applied
    assert table(spark, f"{names.target}.append_items", "id, name") == expected
    assert any("NO-OP" in line for line in dbt.logs[-40:]), dbt.logs[-40:]
