"""A pytest plugin (loaded by tests/conftest.py): the run's options, markers and set-up.

Every test that uses the `dbt` fixture runs once per dbt target of integration_tests/profiles.yml:
`embedded` (the sparkload adapter in this process) and `thrift` (`type: spark`, the package alone, over
a Spark Thrift server on the same lakehouse, started once per run). `@pytest.mark.dbt_targets(...)`
names the targets a test supports instead; `--dbt-targets embedded` (or SPARKLOAD_DBT_TARGETS) limits a
run to some targets. On thrift, only tests marked `over_the_wire` (a strategy's first test, error paths, kills,
types) run by default; `--thrift all` (or SPARKLOAD_THRIFT=all) runs every test there too.

Every JVM of the run (this process's session, the CLI's, the servers') compiles with the client compiler only
(`TEST_JVM_OPTS`); a run that goes beyond the fast tier (tests/support/fast_tier.py) trains the product's class
archive for these options before its first session (`python_extract/runtime/archive_training.py`, as `sparkload
lakehouse setup` does), so every session `get_session` starts (this process's, the workers', the CLI's and dbt's
child processes') maps its classes from it; the servers start without it.

Table formats: a run is on one format, `--table-format` (or SPARKLOAD_TABLE_FORMAT), iceberg by default: every
process it starts inherits it. A run on iceberg, the suite's main format, runs every test but those marked
`default_format` alone (dbt's adapter suite, skipped there saying so); a run on delta (the product's default
format) runs only the tests marked `each_format` (their behaviour depends on the format: landing, every
strategy's statements, maintenance, the catalog shared by processes, the quickstart) or `default_format`, unless
`--every-test` (tests/support/run_order.py selects them). `make test` runs both. Why most of the suite runs on
Iceberg: docs/testing.md.

Parallel runs (`pytest -n 2 --dist loadgroup`, pytest-xdist, as `make test` does): each worker is a run
of its own, with its own lakehouse, SparkSession, thrift server and watchdog, and ends when the controller
does. `dbt deps` runs once, in the controller before the workers start; each worker's dbt writes its own
target/ (`DBT_TARGET_PATH`).
"""
from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

import pytest

from .dbt import DBT_TARGETS, DEPS_INSTALLED, SERVER_TARGETS, install_dbt_deps
from .fast_tier import MARKER as FAST_MARKER
from .fast_tier import declares_fast
from .paths import INTEGRATION, REPO

# The run's JVMs are short-lived and their tables tiny, so C2's compilations hardly pay back: with the
# client compiler alone the same code runs on less CPU (a session of 80 statements: 41 -> 21 JVM CPU s and
# 23 -> 11 s to start; all of tests/extract, under load: 316 -> 281).
# SPARK_SUBMIT_OPTS reaches every spark-submit (sessions, CLI, thrift server), SPARK_DAEMON_JAVA_OPTS the
# standalone master and workers, SPARK_LAUNCHER_OPTS the launcher JVM that spark-class runs before each.
# The client compiler alone gets the JVM's non-tiered code cache of 48 MiB, which a worker's session fills
# within minutes (Spark generates classes for every new query): then the JIT stops and the JVM fails with
# "Out of space in CodeCache for method handle intrinsic" (CI, stop 26: a MERGE in tests/parity). 256 MiB,
# the size a tiered JVM reserves, plus flushing of cold code (on by default).
TEST_JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m"
JVM_OPTS_VARS = ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS", "SPARK_LAUNCHER_OPTS")
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # gw0, gw1, ... in a worker of `pytest -n N`
MAIN_FORMAT = "iceberg"  # the format every test runs on; on the other, only those marked each_format (docs/testing.md)
DEFAULT_FORMAT = "delta"  # the product's default: tests marked default_format run there instead of on MAIN_FORMAT
SUITES = ("all", "ci")  # --suite: every test, or (make test, CI) every test but those marked extended


def pytest_addoption(parser):
    parser.addoption("--dbt-targets", default=os.environ.get("SPARKLOAD_DBT_TARGETS"),
                     help=f"comma-separated dbt targets to run dbt tests on (default: {','.join(DBT_TARGETS)})")
    parser.addoption("--table-format", choices=("delta", "iceberg"),
                     default=os.environ.get("SPARKLOAD_TABLE_FORMAT") or MAIN_FORMAT,
                     help=f"the run's lakehouse format (default {MAIN_FORMAT}); on another than {MAIN_FORMAT} only the "
                          "tests marked each_format run, unless --every-test")
    parser.addoption("--every-test", action="store_true",
                     help=f"on a format other than {MAIN_FORMAT}, run every test, not only those marked each_format")
    parser.addoption("--suite", choices=SUITES, default=os.environ.get("SPARKLOAD_SUITE") or "all",
                     help="'all' (default): every test the run's format keeps; 'ci' (make test): leaves out the tests "
                          "marked extended, variants of what a test of the ci suite covers (make test-all runs them)")
    parser.addoption("--thrift", choices=("wire", "all"), default=os.environ.get("SPARKLOAD_THRIFT", "wire"),
                     help="what runs on the thrift targets: only the tests (adapter-suite classes) marked over_the_wire, "
                          "whose code path differs there (default, 'wire'), or every one ('all')")
    parser.addoption("--connect", choices=("sample", "all"), default=os.environ.get("SPARKLOAD_CONNECT", "sample"),
                     help="which adapter-suite classes run on the connect target (method: connect): those marked "
                          "connect_sample (default, 'sample'), or every one ('all')")


def fast_tier_only(config) -> bool:
    """Whether this run collects only the fast tier (no JVM starts, so no class archive is needed): `-m fast`,
    or only paths of fast modules (and tests/test_docs.py, which starts none either)."""
    paths = [Path(a.split("::")[0]).resolve() for a in config.args]
    return (bool(config.option.collectonly) or (config.option.markexpr or "").strip() == FAST_MARKER or (bool(paths) and all(
        declares_fast(p) or p == REPO / "tests" / "test_docs.py" for p in paths)))


@pytest.hookimpl(trylast=True)  # after pytest's tmpdir plugin has configured the base temporary folder
def pytest_configure(config):
    # the run's format reaches every process it starts (the CLI's, dbt's, the servers')
    os.environ["SPARKLOAD_TABLE_FORMAT"] = config.getoption("--table-format")
    # the scratch files of every JVM of the run, embedded or started by a test (blockmgr-* and spark-* folders,
    # extracted native libraries), go under the run's base temporary folder, which pytest rotates: a JVM that a
    # test kills on purpose cannot delete its own, and they piled up in /tmp
    scratch = config._tmp_path_factory.getbasetemp() / "jvm-tmp"
    scratch.mkdir(exist_ok=True)
    os.environ.setdefault("SPARK_LOCAL_DIRS", str(scratch))
    for var in JVM_OPTS_VARS:
        if TEST_JVM_OPTS not in os.environ.get(var, ""):
            os.environ[var] = f"{os.environ.get(var, '')} {TEST_JVM_OPTS}".strip()
        if "-Djava.io.tmpdir=" not in os.environ[var]:
            os.environ[var] += f" -Djava.io.tmpdir={os.environ['SPARK_LOCAL_DIRS']}"
    if not (XDIST_WORKER or fast_tier_only(config)):  # the workers start after it, and find it
        from python_extract.lakehouse import LakehouseConfig
        from python_extract.runtime import archive_training

        archive_training.ensure(LakehouseConfig.from_env(home=scratch / "class-archive"))
    if XDIST_WORKER:  # dbt's partial parse, manifest and run results of this worker only
        os.environ["DBT_TARGET_PATH"] = str(INTEGRATION / "target" / XDIST_WORKER)
        end_with_the_controller()
    elif getattr(config.option, "numprocesses", None) and not config.option.collectonly:  # xdist's controller
        install_dbt_deps()
        os.environ[DEPS_INSTALLED] = "1"  # the workers, started after this, inherit it
    config.addinivalue_line("markers", "each_format: the test's behaviour depends on the table format: it runs on each "
                                       f"format; the others run on {MAIN_FORMAT} only")
    config.addinivalue_line("markers", "only_on(*formats): a table format's own behaviour: runs in the run on that "
                                       "format, skipped (saying so) in the others")
    config.addinivalue_line("markers", f"default_format: runs once, in the run on the product's default format "
                                       f"({DEFAULT_FORMAT}) instead of {MAIN_FORMAT}: dbt's adapter suite, as dbt-spark runs it")
    config.addinivalue_line("markers", "extended(*formats_or_targets): a variant of behaviour a test of the ci suite already "
                                       "covers (another key shape, option or failure point of the same statements): `--suite "
                                       "ci` (make test) leaves it out, in the runs on these formats or on these dbt targets, or "
                                       "on a (format, target) tuple's target in that format's run (everywhere, given none); "
                                       "make test-all runs it")
    config.addinivalue_line("markers", "dbt_targets(*names): the dbt targets a test runs on (default: embedded, thrift)")
    config.addinivalue_line(
        "markers", "over_the_wire: the test's (adapter-suite class's) code path differs over thrift: it runs there by "
                   "default; the others run there with --thrift all")
    config.addinivalue_line(
        "markers", f"wire_each_format: what the test checks over thrift depends on the table format: its thrift variant "
                   f"runs in each format's run (the others' only on {MAIN_FORMAT})")


def pytest_generate_tests(metafunc):
    if "dbt" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("dbt_targets")
    supported = marker.args if marker else DBT_TARGETS
    chosen = metafunc.config.getoption("--dbt-targets")
    selected = [t for t in supported if not chosen or t in chosen.split(",")]
    params = [pytest.param(t, id=t, marks=wire_marks(metafunc, t, supported) + session_marks(metafunc, t))
              for t in selected] or [pytest.param(
        supported[0], id=supported[0],
        marks=pytest.mark.skip(reason=f"runs on dbt targets {', '.join(supported)}; --dbt-targets selected {chosen}"))]
    metafunc.parametrize("dbt_target", params, indirect=True)


def wire_marks(metafunc, target: str, supported) -> list:
    """A skip on the thrift targets for a test that also runs in-process (a test of the thrift targets alone is
    about the wire):
    - not marked over_the_wire, unless --thrift all;
    - in a run on another format than MAIN_FORMAT, unless marked wire_each_format: the transport does not depend on
      the format, so the thrift variants run once, on MAIN_FORMAT (the servers sharing each format's catalog are
      tests/deploy's own tests, on both)."""
    if target not in SERVER_TARGETS or not set(supported) - set(SERVER_TARGETS):
        return []
    config, definition = metafunc.config, metafunc.definition
    if config.getoption("--thrift") == "wire" and not definition.get_closest_marker("over_the_wire"):
        return [pytest.mark.skip(reason=f"{target}: the same macros and SQL as on embedded, only the transport differs; "
                                        "every test runs over thrift with --thrift all")]
    if config.getoption("--table-format") != MAIN_FORMAT and not definition.get_closest_marker("wire_each_format"):
        return [pytest.mark.skip(reason=f"{target}: the transport does not depend on the table format; over the wire "
                                        f"this test runs in the --table-format {MAIN_FORMAT} run")]
    return []


def session_marks(metafunc, target: str) -> list:
    """`spark_session` (dbt-spark's own session method, the package without the adapter) sends the macros' SQL
    in this process as `embedded` does: in a run on another format than MAIN_FORMAT, `--suite ci` leaves it out."""
    if target == "spark_session" and metafunc.config.getoption("--table-format") != MAIN_FORMAT:
        return [pytest.mark.extended]
    return []


def end_with_the_controller() -> None:
    """A worker gets SIGTERM when the controller dies (even by SIGKILL), instead of finishing its test
    first: its watchdog then ends the servers the worker started, as for a serial run killed."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # the controller died before the line above
        os.kill(os.getpid(), signal.SIGTERM)
