"""The chaos run's short version (scripts/chaos.py --short, here on the run's lakehouse and session): one
round of extractions and `dbt run`s of every strategy, at once, each process SIGKILLed once at a random
stage and restarted; then 0 rows lost or duplicated, no cursor ahead of its data, and every final table
equal to a fault-free `dbt run` of the same loads. The full run (>= 200 kills) is run by hand."""
from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from ..support.chaos import load_chaos as _chaos


@pytest.mark.each_format  # landing, commits and the catalog under kills are each format's own
@pytest.mark.skipif(os.environ.get("SPARKLOAD_TABLE_FORMAT") == "iceberg",
                    reason="on Iceberg it fails only inside the whole suite, since the lakehouse's jars come from Maven "
                           "(job 'extract a' ends with a Py4J error after its kill; it passes alone): cause not found, "
                           "issue 34; it runs on Delta, the default format, and by hand with scripts/chaos.py --short")
@pytest.mark.extended
def test_chaos_short__every_job_killed_once_then_nothing_lost_duplicated_or_different(lakehouse, spark, names, tmp_path):
    chaos = _chaos()
    found = chaos.run(tmp_path, lakehouse.home, names.staging, names.target, rounds=1, seed=11, kill_probability=1.0,
                      max_kills=1, short=True, spark=spark, log=lambda *_: None)
    print(found["report"])
    assert found["kills"] >= 3, found["report"]
    assert chaos.differences(found) == 0, found["report"]
    assert found["final_rows"] > 0 and found["staging_rows"] > 0


@pytest.mark.extended
def test_chaos_failure_report__names_the_failing_models_and_their_error():
    # a failing dbt job's message names its models (the CI's console output of dbt 1.11, colours and all)
    chaos = _chaos()
    output = ("\x1b[0m15:49:01  \x1b[31mFailure in model settings (models/settings.sql)\x1b[0m\n"
              "\x1b[0m15:49:01    Runtime Error in model settings (models/settings.sql)\n"
              "  main is not being called during running model\n\x1b[0m15:49:01  \n"
              "\x1b[0m15:49:02  Failure in model accounts (models/accounts.sql)\n"
              "  Runtime Error in model accounts (models/accounts.sql)\n    An error occurred while calling o59.sql.\n"
              ": org.apache.iceberg.exceptions.ValidationException: Found conflicting files\n\tat org.apache.A(A.java:1)\n"
              "\x1b[0m15:49:02    compiled code at target/compiled/chaos/models/accounts.sql\n")
    assert chaos.dbt_failures(output) == ["settings: main is not being called during running model",
                                          "accounts: : org.apache.iceberg.exceptions.ValidationException: Found conflicting files"]
    # and so does an in-process reference run's result
    node = lambda name, status, message: SimpleNamespace(node=SimpleNamespace(name=name), status=status, message=message)
    result = SimpleNamespace(exception=None, result=SimpleNamespace(results=[
        node("events", "success", "OK"), node("settings", "error", "main is not being called\nmore")]))
    assert chaos.dbt_result_failures(result) == ["settings: main is not being called"]
