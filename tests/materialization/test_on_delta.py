"""The materialization tests on the other table format. One pytest run holds one SparkSession, so the
whole folder runs again in a child pytest on a Delta lakehouse when this run is on Iceberg and Delta jars
are at hand (SPARKLOAD_JARS), and is skipped with that reason otherwise."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from python_extract.lakehouse.jars import delta_jars

REPO = Path(__file__).resolve().parents[2]
JARS = os.environ.get("SPARKLOAD_JARS")
NO_DELTA = ("no Delta Lake jar on this machine (no Maven access here): set SPARKLOAD_JARS to a directory holding "
            "delta-spark_2.12-3.3.x.jar and delta-storage-3.3.x.jar to run tests/materialization on Delta too")


@pytest.mark.skipif(not (JARS and delta_jars(Path(JARS))), reason=NO_DELTA)
@pytest.mark.skipif(os.environ.get("SPARKLOAD_TABLE_FORMAT") == "delta", reason="this run is on Delta already")
def test_materialization__every_test_passes_on_delta_too(tmp_path):
    env = {**os.environ, "SPARKLOAD_TABLE_FORMAT": "delta", "SPARKLOAD_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/materialization",
                             "--deselect", "tests/materialization/test_on_delta.py"], cwd=REPO, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-5000:]
