"""The dbt adapter loads the lakehouse, not the extractor: a `dbt debug` on the embedded target (which
opens the SparkSession through python_extract.lakehouse) imports no extractor module and no pyarrow (the
package face of python_extract is lazy; numpy comes with pyspark.sql itself)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import INTEGRATION, REPO

LAKEHOUSE_ONLY = {"python_extract", "python_extract.lakehouse", "python_extract.lakehouse.config",
                  "python_extract.lakehouse.java_errors",
                  "python_extract.lakehouse.jars", "python_extract.lakehouse.session"}


def test_dbt_invocation__imports_the_lakehouse_and_no_extractor_module(tmp_path):
    code = (
        "import json, sys\n"
        "from dbt.cli.main import dbtRunner\n"
        f"result = dbtRunner().invoke(['debug', '--target', 'embedded', '--project-dir', {str(INTEGRATION)!r},"
        f" '--profiles-dir', {str(INTEGRATION)!r}])\n"
        "print(json.dumps({'success': result.success, 'modules': sorted(m for m in sys.modules"
        " if m.split('.')[0] in ('python_extract', 'pyarrow'))}))\n"
    )
    env = {**os.environ, "SPARKLOAD_HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["success"], done.stdout[-3000:]
    assert set(found["modules"]) == LAKEHOUSE_ONLY, found["modules"]


def test_package_face__names_load_on_first_use_and_pipeline_stays_the_function():
    code = (
        "import sys, python_extract as sl\n"
        "assert 'python_extract.pipeline' not in sys.modules\n"
        "import python_extract.pipeline\n"  # the submodule of the same name does not shadow the function
        "assert callable(sl.pipeline) and sl.pipeline.__module__ == 'python_extract.pipeline'\n"
        "assert sl.resource.__module__.startswith('python_extract.extract') and sl.SparkloadError\n"
        "assert set(sl.__all__) <= set(dir(sl))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
