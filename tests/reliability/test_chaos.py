"""The chaos run's short version (scripts/chaos.py --short, here on the run's lakehouse and session): one
round of extractions and `dbt run`s of every strategy, at once, each process SIGKILLed once at a random
stage and restarted; then 0 rows lost or duplicated, no cursor ahead of its data, and every final table
equal to a fault-free `dbt run` of the same loads. The full run (>= 200 kills) is run by hand."""
from __future__ import annotations

import importlib.util
import sys

from .support import REPO


def _chaos():
    spec = importlib.util.spec_from_file_location("chaos", REPO / "scripts" / "chaos.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["chaos"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_chaos_short__every_job_killed_once_then_nothing_lost_duplicated_or_different(lakehouse, spark, names, tmp_path):
    chaos = _chaos()
    found = chaos.run(tmp_path, lakehouse.home, names.staging, names.target, rounds=1, seed=11, kill_probability=1.0,
                      max_kills=1, short=True, spark=spark, log=lambda *_: None)
    print(found["report"])
    assert found["kills"] >= 3, found["report"]
    assert chaos.differences(found) == 0, found["report"]
    assert found["final_rows"] > 0 and found["staging_rows"] > 0
