"""A pytest plugin (loaded by tests/conftest.py): the fast tier and its guards.

The fast tier is every test marked `fast` (a module says `pytestmark = pytest.mark.fast`), wherever its subject
folder is: pure-Python tests of the rules (cursors, windows, state, normalization, the contract, config
resolution, macros rendered with a stub adapter). No JVM and no dbt run, so the whole tier runs in seconds:
`pytest -m fast` (`make test-fast`) runs it alone, importing only those modules, and every run that collects
it runs it first, so a broken rule fails before the execution tier starts its JVMs. The execution tier (the
unmarked tests: real Spark, real `dbt run`) stays the judge of behaviour; a fast test never replaces one there.

Guards, so the tier stays fast and pure:
- a fast test that asks for an execution-tier fixture (`EXECUTION_FIXTURES`) is a usage error at collection,
  before any session fixture starts a JVM;
- a fast test that starts a JVM fails: in this process pyspark's gateway launcher raises `JvmStarted` (a
  BaseException, so `except Exception` cannot swallow it) and the test fails at teardown even if
  something caught it; in a subprocess `JAVA_HOME` points nowhere, so Spark's launcher cannot start java.

This module imports nothing of the suite: tests/harness/test_fast_tier_guard.py runs a copy of it as the
conftest of a small test folder.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

MARKER = "fast"
EXECUTION_FIXTURES = frozenset({"spark", "lakehouse", "dbt", "dbt_deps", "thrift_server", "watchdog", "project"})
NO_JAVA_HOME = "/nonexistent/the-fast-tier-starts-no-jvm"
# how a module joins the fast tier; `declares_fast` reads it from a file before collection
_DECLARATION = re.compile(rf"^pytestmark\s*=\s*pytest\.mark\.{MARKER}\b", re.M)


class JvmStarted(BaseException):
    """A fast-tier test started (or tried to start) a JVM."""


def is_fast(item) -> bool:
    return item.get_closest_marker(MARKER) is not None


def declares_fast(path: Path) -> bool:
    """Whether the test module at `path` is of the fast tier (its `pytestmark` line), or every test module of the
    folder at `path` is, without importing them."""
    if path.is_dir():
        modules = list(path.rglob("test_*.py"))
        return bool(modules) and all(declares_fast(module) for module in modules)
    return path.is_file() and path.suffix == ".py" and bool(_DECLARATION.search(path.read_text(errors="replace")))


def pytest_configure(config):
    config.addinivalue_line("markers", f"{MARKER}: the fast tier: no JVM, no dbt run (tests/support/fast_tier.py); "
                                       f"`pytest -m {MARKER}` runs it alone, every run runs it first")


def pytest_ignore_collect(collection_path: Path, config):
    """`-m fast` (`make test-fast`) does not import the execution tier's modules (nor the conftests of folders
    without a fast module), whose tests it would deselect anyway: collecting the whole suite costs more than
    running the fast tier."""
    if (config.option.markexpr or "").strip() != MARKER:
        return None
    if (collection_path / "conftest.py").is_file():  # nor a folder's conftest, if no module of the folder is fast
        return not any(declares_fast(module) for module in collection_path.rglob("test_*.py")) or None
    return (collection_path.name.startswith("test_") and not declares_fast(collection_path)) or None


def pytest_collection_modifyitems(session, config, items):
    fast = [item for item in items if is_fast(item)]
    wrong = [f"{item.nodeid} uses {', '.join(sorted(EXECUTION_FIXTURES & set(item.fixturenames)))}"
             for item in fast if EXECUTION_FIXTURES & set(item.fixturenames)]
    if wrong:
        raise pytest.UsageError(f"the fast tier (tests marked {MARKER}) runs without a JVM or dbt; move these tests to "
                                "the execution tier or drop the fixtures:\n  " + "\n  ".join(wrong))
    # the fast tier first (a stable sort: each tier keeps its collection order)
    items[:] = fast + [item for item in items if not is_fast(item)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        item.fast_tier_call_failed = report.failed
    return report


@pytest.fixture(autouse=True)
def no_jvm(request):
    """For a fast test: no JVM, in this process or a subprocess (the execution tier's tests pass through)."""
    if not is_fast(request.node):
        yield
        return
    import pyspark.context
    import pyspark.java_gateway

    started = []

    def refuse(*args, **kwargs):
        started.append(request.node.nodeid)
        raise JvmStarted(f"{request.node.nodeid}: a fast-tier test (marked {MARKER}) started a JVM; "
                         "it belongs to the execution tier")

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JAVA_HOME", NO_JAVA_HOME)
        patch.setattr(pyspark.java_gateway, "launch_gateway", refuse)
        patch.setattr(pyspark.context, "launch_gateway", refuse)
        yield
    if started and not getattr(request.node, "fast_tier_call_failed", False):
        pytest.fail(f"{started[0]} started a JVM (the test caught the refusal)", pytrace=False)
