"""The differential run: every selected scenario (cases/ and the generator's) through dlt and through
sparkload, once per test session; each test then reads its scenario's verdict.

dlt runs in a spawned process while this process drives Spark (`spark` fixture) and dbt. The
summary line at the end of the session gives the counts; `PARITY_REPORT` (a path) also writes every
verdict with its differences to a file.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Dict, List

import pytest

from ..support.summary import add_summary
from ..support.parity_judge import DIFFERS, IDENTICAL, ON_PURPOSE, Verdict, judge
from ..support.parity_scenario import Scenario

_verdicts: Dict[str, Verdict] = {}
_timing: List[str] = []


def selected_scenarios(session) -> List[Scenario]:
    found: Dict[str, Scenario] = {}
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        scenario = callspec.params.get("scenario") if callspec else None
        if isinstance(scenario, Scenario):
            found[scenario.name] = scenario
    return list(found.values())


def cpu_seconds(spark, since=None):
    """(this process, its JVM) CPU seconds, or the difference to `since` as text: on a busy shared machine
    the CPU time, not the wall time, says what the run costs."""
    import resource

    import psutil

    usage = resource.getrusage(resource.RUSAGE_SELF)
    own, jvm = usage.ru_utime + usage.ru_stime, 0.0
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    try:
        times = psutil.Process(proc.pid).cpu_times()
        jvm = times.user + times.system
    except (AttributeError, psutil.Error):
        pass
    if since is None:
        return own, jvm
    return f"python {own - since[0]:.0f}, JVM {jvm - since[1]:.0f}"


@pytest.fixture(scope="session")
def parity(request, spark, lakehouse, tmp_path_factory) -> Dict[str, Verdict]:
    from ..support.parity_dlt_side import run_in_background
    from ..support.parity_spark_side import SparkBatch

    scenarios = selected_scenarios(request.session)
    work = tmp_path_factory.mktemp("parity")
    t0, cpu0 = time.monotonic(), cpu_seconds(spark)
    dlt_future = run_in_background(scenarios, work / "dlt")
    batch = SparkBatch(spark, lakehouse, work / "spark", scenarios, dataset="parity_raw", schema="parity_target",
                       threads=int(os.environ.get("SPARKLOAD_PARITY_THREADS", "4")))
    sl_results = batch.run()
    t1 = time.monotonic()
    dlt_results = dlt_future.result()
    _timing.append(f"{len(scenarios)} scenarios in {time.monotonic() - t0:.0f}s (sparkload {t1 - t0:.0f}s: {batch.timing}; "
                   f"waited {time.monotonic() - t1:.0f}s more for dlt; CPU seconds: {cpu_seconds(spark, cpu0)}, "
                   f"dlt {dlt_results.pop('__cpu__', 0):.0f})")
    for s in scenarios:
        _verdicts[s.name] = judge(s, dlt_results.get(s.name, []), sl_results.get(s.name, []))
    report = os.environ.get("PARITY_REPORT")
    if report:
        Path(report).write_text("\n".join(v.report() for v in _verdicts.values()) + "\n")
    return _verdicts


def pytest_sessionfinish(session):
    if not _verdicts:
        return
    kinds = [v.kind for v in _verdicts.values()]
    add_summary(session.config, "", [
        f"parity with dlt: {len(kinds)} scenarios, {kinds.count(IDENTICAL)} identical, "
        f"{kinds.count(ON_PURPOSE)} differs-on-purpose, {kinds.count(DIFFERS)} differs; {' '.join(_timing)}"])
