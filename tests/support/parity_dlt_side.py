"""The judge: scenarios through the real dlt into duckdb, one pipeline per scenario, as a dlt user
runs them. Runs in its own process (`run_in_background`) while the Spark side works.

For every load: the load ids dlt made (none when the extract was empty), the error if the load
failed (its pending package is then dropped, as `dlt pipeline drop-pending-packages` does), and a
snapshot of every data table of the dataset (compare.py's normal form).
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import shutil
from pathlib import Path
from typing import Any, Dict, List

from .compare import normal_value
from .parity_scenario import Scenario

Step = Dict[str, Any]  # {"load_ids": [...], "error": str | None, "tables": Snapshot}


def _snapshot(pipeline, dataset: str) -> Dict[str, List[Dict[str, Any]]]:
    out: Dict[str, List[Dict[str, Any]]] = {}
    with pipeline.sql_client() as client:
        tables = [r[0] for r in client.execute_sql(
            "select table_name from information_schema.tables where table_schema = %s", dataset)]
        for table in tables:
            if table.startswith("_dlt"):
                continue
            with client.execute_query(f'select * from "{dataset}"."{table}"') as cur:
                names = [d[0] for d in cur.description]
                out[table] = [{n: normal_value(v) for n, v in zip(names, row)} for row in cur.fetchall()]
    return out


def _drop_pending(pipeline) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipeline.drop_pending_packages()


def run_scenario(scenario: Scenario, workdir: Path) -> List[Step]:
    import dlt

    name = scenario.name
    shutil.rmtree(workdir / name, ignore_errors=True)
    pipeline = dlt.pipeline(
        pipeline_name=name, pipelines_dir=str(workdir / name / "pipelines"), dataset_name=name,
        destination=dlt.destinations.duckdb(str(workdir / name / "db.duckdb")),
    )
    steps: List[Step] = []
    for k, load in enumerate(scenario.loads):
        step: Step = {"load_ids": [], "error": None}
        try:
            resource = dlt.resource(list(load.rows), name=scenario.table, **scenario.hints_at(k))
            info = pipeline.run(resource)
            step["load_ids"] = list(info.loads_ids)
        except Exception as e:  # noqa: BLE001 - a failing load is a result to compare
            step["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
            _drop_pending(pipeline)
        step["tables"] = _snapshot(pipeline, name) if pipeline.default_schema_name else {}
        steps.append(step)
    return steps


def run_all(scenarios: List[Scenario], workdir: str) -> Dict[str, List[Step]]:
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")
    import resource

    out: Dict[str, Any] = {}
    for s in scenarios:
        try:
            out[s.name] = run_scenario(s, Path(workdir))
        except Exception as e:  # noqa: BLE001 - the runner itself broke on this scenario
            out[s.name] = [{"load_ids": [], "error": f"runner: {type(e).__name__}: {e}", "tables": {}}]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["__cpu__"] = usage.ru_utime + usage.ru_stime
    return out


def run_in_background(scenarios: List[Scenario], workdir: Path) -> "cf.Future":
    """Start dlt on every scenario in a fresh process (spawned: the test process holds a JVM)."""
    pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = pool.submit(run_all, scenarios, str(workdir))
    pool.shutdown(wait=False)
    return future
