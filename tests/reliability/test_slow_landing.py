"""A `dbt run` during an extraction (a real process whose landing is slowed on purpose: it sleeps after
its first table landed, its `_dlt_loads` row not written) applies only the complete loads: the in-flight
load's rows are in staging and in no final table, also after the extraction is killed there.
(scripts/chaos.py's data, models and extraction.)"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import time

from ..support.sparkload_process import column
from ..support.chaos import load_chaos as _chaos


def test_dbt_run_during_a_slow_landing__applies_only_complete_loads(lakehouse, spark, names, tmp_path):
    from dbt.cli.main import dbtRunner

    chaos = _chaos()
    models = chaos.GROUPS["b"]  # customers (upsert) with its child customers__tags, products (scd2)
    runner = chaos.Chaos(tmp_path, lakehouse.home, names.staging, names.target, random.Random(5), 0.0, 0, {"b": models},
                         log=lambda *_: None)
    try:
        chaos.generate(tmp_path, 0, runner.rng)
        chaos.extract(tmp_path, lakehouse.home, names.staging, "b", 0, tmp_path / "stage-0")  # load 1, complete
        chaos.generate(tmp_path, 1, runner.rng)
        stage = tmp_path / "stage-slow"
        job = runner.extract_job("b", 1)
        job.argv += ["--slow-landing", "600"]
        job.argv[job.argv.index("--stage-file") + 1] = str(stage)
        slow = subprocess.Popen(job.argv, env=job.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        runner.watchdog.guard_group(slow.pid)
        deadline = time.monotonic() + 300
        while "landing" not in (stage.read_text() if stage.exists() else ""):
            assert slow.poll() is None and time.monotonic() < deadline, slow.stdout.read()[-3000:]
            time.sleep(0.2)
        complete = column(spark, f"select load_id from `{names.staging}`._dlt_loads")
        in_flight = column(spark, f"select distinct `_dlt_load_id` from `{names.staging}`.customers "
                                  f"where `_dlt_load_id` not in ({', '.join(repr(c) for c in complete)})")
        assert len(complete) == 1 and len(in_flight) == 1  # its first table's rows are in staging ...

        os.environ["CHAOS_TARGET_SCHEMA"] = names.target
        run = ["run", "--project-dir", str(runner.project), "--profiles-dir", str(runner.project), "--select", *models]
        ran = dbtRunner().invoke(run)
        assert ran.success, chaos.dbt_result_failures(ran)
        os.killpg(slow.pid, signal.SIGKILL)  # killed mid-landing: the load stays incomplete
        slow.wait(60)
        assert dbtRunner().invoke(run).success
    finally:
        runner.watchdog.close()
    for model in models:  # ... but in no final table, and the complete load is in each
        loads = column(spark, f"select distinct `_dlt_load_id` from `{names.target}`.`{model}`")
        assert in_flight[0] not in loads and complete[0] in loads, (model, loads)
