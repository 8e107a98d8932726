"""The README's demo: bundled sample data -> extractor -> staging -> `dbt run` -> the final table.

Two loads of customers (the second changes one and adds one); after each, `dbt run` of the bundled
dbt project upserts the completed loads into `demo_analytics.customers`, which is printed at the end.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Dict, Iterator

from ..lakehouse import LakehouseConfig

HERE = Path(__file__).parent


def _dbt_run(project: Path) -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    if not result.success:
        raise SystemExit(f"dbt run failed: {result.exception or 'see the log above'}")


def run_demo(config: LakehouseConfig) -> None:
    # the bundled dbt profile resolves its lakehouse from the environment: the same one as this run's
    # (this process's session serves one lakehouse; `get_session` refuses another); dbt runs in this
    # process, so the variables are set for the demo and put back after it
    env = {"SPARKLOAD_HOME": str(config.home), "SPARKLOAD_MASTER": config.master}
    if config.table_format:  # else the lakehouse's own, or the default
        env["SPARKLOAD_TABLE_FORMAT"] = config.table_format
    if config.jars_dir:
        env["SPARKLOAD_JARS"] = str(config.jars_dir)
    with _environment(env):
        _demo(config)


@contextlib.contextmanager
def _environment(values: Dict[str, str]) -> Iterator[None]:
    """`values` in os.environ inside the block; each variable as it was after it."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _demo(config: LakehouseConfig) -> None:
    import python_extract as sl

    project = config.home / "demo_dbt_project"
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(HERE / "dbt_project", project)
    pipeline = sl.pipeline(pipeline_name="demo", dataset_name="demo_raw", lakehouse=config)
    for n in (1, 2):
        rows = json.loads((HERE / f"customers_load{n}.json").read_text())
        print(pipeline.run(rows, table_name="customers", write_disposition="merge", primary_key="id"))
        _dbt_run(project)
    print("demo_analytics.customers after two loads:")
    pipeline.spark.table("demo_analytics.customers").orderBy("id").drop("_dlt_id").show(truncate=False)
