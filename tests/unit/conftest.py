"""The fast tier: pure-Python tests of the rules (cursors, windows, state, normalisation, the contract,
config resolution, macros rendered with a stub adapter). No JVM and no dbt run, so the whole folder runs
in seconds: `pytest tests/unit` runs it alone, and every run that collects it runs it first, so a broken
rule fails before the execution tier starts its JVMs. The execution tier (the other folders, real Spark,
real `dbt run`) stays the judge of behaviour; a test here never replaces one there.

Guards, so the tier stays fast and pure:
- a test here that asks for an execution-tier fixture (`EXECUTION_FIXTURES`) is a usage error at collection,
  before any session fixture starts a JVM;
- a test that starts a JVM fails: in this process pyspark's gateway launcher raises `JvmStarted` (a
  BaseException, so `except Exception` cannot swallow it) and the test fails at teardown even if
  something caught it; in a subprocess `JAVA_HOME` points nowhere, so Spark's launcher cannot start java.
"""
from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EXECUTION_FIXTURES = frozenset({"spark", "lakehouse", "dbt", "dbt_deps", "thrift_server", "watchdog", "project"})
NO_JAVA_HOME = "/nonexistent/the-fast-tier-starts-no-jvm"


class JvmStarted(BaseException):
    """A fast-tier test started (or tried to start) a JVM."""


def in_fast_tier(item) -> bool:
    return HERE in Path(str(item.fspath)).resolve().parents


def pytest_collection_modifyitems(session, config, items):
    fast = [item for item in items if in_fast_tier(item)]
    wrong = [f"{item.nodeid} uses {', '.join(sorted(EXECUTION_FIXTURES & set(item.fixturenames)))}"
             for item in fast if EXECUTION_FIXTURES & set(item.fixturenames)]
    if wrong:
        raise pytest.UsageError("the fast tier (tests/unit) runs without a JVM or dbt; move these tests to the "
                                "execution tier or drop the fixtures:\n  " + "\n  ".join(wrong))
    # the fast tier first (a stable sort: each tier keeps its collection order)
    items[:] = fast + [item for item in items if not in_fast_tier(item)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        item.fast_tier_call_failed = report.failed
    return report


@pytest.fixture(autouse=True)
def no_jvm(monkeypatch, request):
    import pyspark.context
    import pyspark.java_gateway

    started = []

    def refuse(*args, **kwargs):
        started.append(request.node.nodeid)
        raise JvmStarted(f"{request.node.nodeid}: a fast-tier test (tests/unit) started a JVM; "
                         "it belongs to the execution tier")

    monkeypatch.setenv("JAVA_HOME", NO_JAVA_HOME)
    monkeypatch.setattr(pyspark.java_gateway, "launch_gateway", refuse)
    monkeypatch.setattr(pyspark.context, "launch_gateway", refuse)
    yield
    if started and not getattr(request.node, "fast_tier_call_failed", False):
        pytest.fail(f"{started[0]} started a JVM (the test caught the refusal)", pytrace=False)
