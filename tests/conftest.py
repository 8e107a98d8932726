"""Shared fixtures: one embedded lakehouse and one SparkSession for the whole run, and dbt invoked
in-process (dbtRunner) on that session against integration_tests/.

Each test gets its own staging dataset and target schema (`names` fixture), so tests never see each
other's tables although they share the lakehouse.

Servers and other long-lived processes a test starts are guarded by the run's `watchdog` (a process that
ends them when this pytest dies, even by SIGKILL): `watchdog.guard_group(pgid)`, `guard_pid(pid)`,
`guard_pidfile(path)`.

Every test that uses the `dbt` fixture runs once per dbt target of integration_tests/profiles.yml:
`embedded` (the sparkload adapter in this process) and `thrift` (`type: spark`, the package alone, over
a Spark Thrift server on the same lakehouse, started once per run). `@pytest.mark.dbt_targets(...)`
names the targets a test supports instead; `--dbt-targets embedded` (or SPARKLOAD_DBT_TARGETS) limits a
run to some targets. On thrift, only tests marked `over_the_wire` (a strategy's first test, error paths, kills,
types) run by default; `--thrift all` (or SPARKLOAD_THRIFT=all) runs every test there too.

Tiers: `tests/unit/` is the fast tier (no JVM, no dbt run; its conftest guards that) and runs first;
every other folder is the execution tier, the judge of behaviour. Every JVM of the run (this process's
session, the CLI's, the servers') compiles with the client compiler only (`TEST_JVM_OPTS`); the run trains
the product's class archive for these options before its first session (`python_extract/lakehouse/
class_archive.py`, as `sparkload lakehouse setup` does), so every session `get_session` starts (this
process's, the workers', the CLI's and dbt's child processes') maps its classes from it; the servers
start without it.

Table formats: a run is on one format, `--table-format` (or SPARKLOAD_TABLE_FORMAT), iceberg by default: every
process it starts inherits it. A run on iceberg, the suite's main format, runs every test but those marked
`default_format` alone (dbt's adapter suite, skipped there saying so); a run on delta (the product's default
format) runs only the tests marked `each_format` (their behaviour depends on the format: landing, every
strategy's statements, maintenance, the catalog shared by processes, the quickstart) or `default_format`, unless
`--every-test`. `make test` runs both. Why most of the suite runs on Iceberg: docs/testing.md.

Parallel runs (`pytest -n 2 --dist loadgroup`, pytest-xdist, as `make test` does): each worker is a run
of its own, with its own lakehouse, SparkSession, thrift server and watchdog, and ends when the controller
does. `dbt deps` runs once, in the controller before the workers start; each worker's dbt writes its own
target/ (`DBT_TARGET_PATH`); the tests of one file (and all of tests/parity, which shares one differential
batch) stay on one worker, so no module-, class- or session-wide work is done twice.
"""
from __future__ import annotations

import ctypes
import itertools
import os
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest

REPO = Path(__file__).resolve().parents[1]
INTEGRATION = REPO / "integration_tests"
_counter = itertools.count(1)
DBT_TARGETS = ("embedded", "thrift")
SERVER_TARGETS = ("thrift", "sparkload_thrift")  # reach the lakehouse through the `thrift_server` fixture
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
# folders whose files share session-wide work: tests/parity runs every scenario of the session's tests
# in one batch (its `parity` fixture), which two workers would each run whole
ONE_WORKER_FOLDERS = ("tests/parity/",)
DEPS_INSTALLED = "SPARKLOAD_TEST_DBT_DEPS_INSTALLED"
FAST_TIER = "tests/unit/"
GROUP_SECONDS = Path(__file__).with_name("group_seconds.json")  # {group: seconds}, see group_seconds()
GROUP_SECONDS_KEY = "sparkload/group_seconds"
MAIN_FORMAT = "iceberg"  # the format every test runs on; on the other, only those marked each_format (docs/testing.md)
DEFAULT_FORMAT = "delta"  # the product's default: tests marked default_format run there instead of on MAIN_FORMAT

from .deploy.servers import connect_server, thrift_server  # noqa: E402,F401  (fixtures, shared by every test folder)


def pytest_addoption(parser):
    parser.addoption("--dbt-targets", default=os.environ.get("SPARKLOAD_DBT_TARGETS"),
                     help=f"comma-separated dbt targets to run dbt tests on (default: {','.join(DBT_TARGETS)})")
    parser.addoption("--table-format", choices=("delta", "iceberg"),
                     default=os.environ.get("SPARKLOAD_TABLE_FORMAT") or MAIN_FORMAT,
                     help=f"the run's lakehouse format (default {MAIN_FORMAT}); on another than {MAIN_FORMAT} only the "
                          "tests marked each_format run, unless --every-test")
    parser.addoption("--every-test", action="store_true",
                     help=f"on a format other than {MAIN_FORMAT}, run every test, not only those marked each_format")
    parser.addoption("--thrift", choices=("wire", "all"), default=os.environ.get("SPARKLOAD_THRIFT", "wire"),
                     help="what runs on the thrift targets: only the tests (adapter-suite classes) marked over_the_wire, "
                          "whose code path differs there (default, 'wire'), or every one ('all')")
    parser.addoption("--connect", choices=("sample", "all"), default=os.environ.get("SPARKLOAD_CONNECT", "sample"),
                     help="which adapter-suite classes run on the connect target (method: connect): those marked "
                          "connect_sample (default, 'sample'), or every one ('all')")


def fast_tier_only(config) -> bool:
    """Whether this run collects only the fast tier (no JVM starts, so no class archive is needed)."""
    paths = [Path(a.split("::")[0]).resolve() for a in config.args]
    return bool(config.option.collectonly) or (bool(paths) and all(
        p.is_relative_to(REPO / FAST_TIER) or p == REPO / "tests" / "test_docs.py" for p in paths))


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
    config.addinivalue_line("markers", "dbt_targets(*names): the dbt targets a test runs on (default: embedded, thrift)")
    config.addinivalue_line(
        "markers", "over_the_wire: the test's (adapter-suite class's) code path differs over thrift: it runs there by "
                   "default; the others run there with --thrift all")


# the closing lines of the run's summary, by section title ("" for lines without one): a folder's
# conftest adds them at the end of its session (`add_summary`); under xdist each worker hands its own to the
# controller, which prints them all
SUMMARIES: Dict[str, List[str]] = {}


def add_summary(config, section: str, lines: Sequence[str]) -> None:
    """Print `lines` under `section` at the end of the run (from a worker too)."""
    if hasattr(config, "workeroutput"):  # an xdist worker: its terminal summary is the controller's
        config.workeroutput.setdefault("summaries", {}).setdefault(section, []).extend(lines)
    else:
        SUMMARIES.setdefault(section, []).extend(lines)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for section, lines in getattr(node, "workeroutput", {}).get("summaries", {}).items():
        SUMMARIES.setdefault(section, []).extend(lines)


def pytest_terminal_summary(terminalreporter):
    for section, lines in SUMMARIES.items():
        if section:
            terminalreporter.section(section)
        for line in lines:
            terminalreporter.write_line(line)


def group_of(nodeid: str) -> str:
    """The xdist group of a test: its file, or its folder if that is one of ONE_WORKER_FOLDERS."""
    path = nodeid.split("::")[0]
    return next((folder for folder in ONE_WORKER_FOLDERS if path.startswith(folder)), path)


def group_seconds(config) -> Dict[str, float]:
    """Seconds each group took in a whole run: GROUP_SECONDS (measured in a full run on a quiet machine and
    checked in, so a fresh clone orders by it too), overridden by what this checkout's last runs measured
    (pytest's cache, written by the controller at the end of each run)."""
    import json

    recorded = json.loads(GROUP_SECONDS.read_text()) if GROUP_SECONDS.exists() else {}
    seconds = recorded.get(config.getoption("--table-format"), {})
    cache = getattr(config, "cache", None)
    seconds.update(cache.get(_seconds_key(config), {}) if cache else {})
    return seconds


def _seconds_key(config) -> str:
    return f"{GROUP_SECONDS_KEY}/{config.getoption('--table-format')}"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Under xdist, the tests of one file run on one worker (module- and class-wide fixtures run once),
    and those of a folder in ONE_WORKER_FOLDERS too.

    The order of the run: the fast tier (tests/unit) first, then the groups of the execution tier, longest
    first (as measured, `group_seconds`), so that the last group a worker takes is a short one. `make test`
    passes `--no-loadscope-reorder`, so xdist hands out groups in this order (its own order is by number
    of tests)."""
    run_format = config.getoption("--table-format")
    for item in items:  # a test of one format's own behaviour, in a run on another
        only = item.get_closest_marker("only_on")
        if only and run_format not in only.args:
            item.add_marker(pytest.mark.skip(reason=f"{' and '.join(only.args)}'s own behaviour: runs in the "
                                                    f"--table-format {only.args[0]} run of make test"))
        elif (item.get_closest_marker("default_format") and not item.get_closest_marker("each_format")
              and run_format != DEFAULT_FORMAT):
            item.add_marker(pytest.mark.skip(reason=f"runs once, in the --table-format {DEFAULT_FORMAT} run of make "
                                                    "test (the product's default format, as dbt-spark runs dbt's suite)"))
    if run_format != MAIN_FORMAT and not config.getoption("--every-test"):
        def on_this_format(item) -> bool:
            only = item.get_closest_marker("only_on")
            return (bool(item.get_closest_marker("each_format")) or bool(only and run_format in only.args)
                    or bool(item.get_closest_marker("default_format") and run_format == DEFAULT_FORMAT))

        kept = [item for item in items if on_this_format(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if not on_this_format(item)])
            items[:] = kept
    seconds = group_seconds(config)
    first_seen: Dict[str, int] = {}
    for index, item in enumerate(items):
        group = group_of(item.nodeid)
        first_seen.setdefault(group, index)
        item.add_marker(pytest.mark.xdist_group(group))

    def rank(item):
        group = group_of(item.nodeid)
        return (not group.startswith(FAST_TIER), -seconds.get(group, 0.0), first_seen[group])

    items.sort(key=rank)  # stable: the tests of a group keep their order


_measured: Dict[str, float] = {}


def pytest_runtest_logreport(report):
    """In the controller (or a run without workers): the seconds of each group, setup and teardown included."""
    if not XDIST_WORKER:
        group = group_of(report.nodeid)
        _measured[group] = _measured.get(group, 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    """Keep the groups' seconds of a whole run (no paths, -k or -m given; not stopped by -x or Ctrl-C)."""
    config = session.config
    cache = getattr(config, "cache", None)
    whole = config.args in ([], ["tests"], [str(REPO / "tests")]) and not config.option.keyword and not config.option.markexpr
    if XDIST_WORKER or not cache or not _measured or not whole or exitstatus not in (0, 1) or session.shouldstop:
        return
    seconds = cache.get(_seconds_key(config), {})
    seconds.update({group: round(s, 1) for group, s in _measured.items()})
    cache.set(_seconds_key(config), seconds)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """In the controller of `--dist loadgroup`: each worker has suffixed the ids of its grouped tests with
    `@group`. A run where it did not (pytest-xdist#1386: pytest 9.2 reads ids that xdist 3.8 no longer
    rewrites) would spread one file's tests over both workers and do its module-wide work twice, silently,
    so it stops here instead."""
    if node.config.getvalue("dist") == "loadgroup":
        ungrouped = [nodeid for nodeid in ids if "@" not in nodeid.rsplit("]", 1)[-1]]
        if ungrouped:
            pytest.exit(f"pytest-xdist's --dist loadgroup did not group {len(ungrouped)} of {len(ids)} tests (first: "
                        f"{ungrouped[0]}; pytest {pytest.__version__}): pytest-xdist#1386, keep pytest<9.2 "
                        "(pyproject.toml, the test extra)", returncode=3)


def pytest_generate_tests(metafunc):
    if "dbt" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("dbt_targets")
    supported = marker.args if marker else DBT_TARGETS
    chosen = metafunc.config.getoption("--dbt-targets")
    selected = [t for t in supported if not chosen or t in chosen.split(",")]
    params = [pytest.param(t, id=t, marks=wire_marks(metafunc, t, supported)) for t in selected] or [pytest.param(
        supported[0], id=supported[0],
        marks=pytest.mark.skip(reason=f"runs on dbt targets {', '.join(supported)}; --dbt-targets selected {chosen}"))]
    metafunc.parametrize("dbt_target", params, indirect=True)


def wire_marks(metafunc, target: str, supported) -> list:
    """A skip on the thrift targets for a test that also runs in-process and is not marked over_the_wire,
    unless --thrift all (a test of the thrift targets alone is about the wire)."""
    if (target in SERVER_TARGETS and set(supported) - set(SERVER_TARGETS) and metafunc.config.getoption("--thrift") == "wire"
            and not metafunc.definition.get_closest_marker("over_the_wire")):
        return [pytest.mark.skip(reason=f"{target}: the same macros and SQL as on embedded, only the transport differs; "
                                        "every test runs over thrift with --thrift all")]
    return []


def end_with_the_controller() -> None:
    """A worker gets SIGTERM when the controller dies (even by SIGKILL), instead of finishing its test
    first: its watchdog then ends the servers the worker started, as for a serial run killed."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # the controller died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


@pytest.fixture(scope="session")
def watchdog():
    from python_extract.runtime.processes import Watchdog

    dog = Watchdog()
    yield dog
    dog.close()


@pytest.fixture(scope="session")
def lakehouse(tmp_path_factory):
    from python_extract.lakehouse import LakehouseConfig

    home = tmp_path_factory.mktemp("lakehouse")
    os.environ["SPARKLOAD_HOME"] = str(home)
    return LakehouseConfig.from_env(home=home)


@pytest.fixture(scope="session")
def spark(lakehouse):
    from python_extract.lakehouse import get_session

    return get_session(lakehouse)


@dataclass
class Names:
    """Per-test schema names: the staging dataset the extractor writes, the schema dbt builds into."""
    staging: str
    target: str


@pytest.fixture
def names(request) -> Names:
    slug = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40].strip("_")
    n = next(_counter)
    return Names(staging=f"raw_{n}_{slug}", target=f"dbt_{n}_{slug}")


def dbt_env(names: Names, staging: Optional[str] = None) -> Dict[str, str]:
    """The environment that points integration_tests/ at a test's schemas: the models' schema
    (models/test_schemas.yml) and the staging dataset its sources read (sources.yml). Env vars, not the
    profile's schema or vars, so that dbt re-parses only those files and their models for each test."""
    return {"SPARKLOAD_TARGET_SCHEMA": names.target, "SPARKLOAD_STAGING_DATASET": staging or names.staging}


class Dbt:
    """Runs dbt commands of integration_tests/ in this process: on the shared SparkSession (target
    `embedded`) or through the thrift server over the same lakehouse (`thrift`, `sparkload_thrift`)."""

    def __init__(self, names: Names, target: str = "embedded"):
        self.names = names
        self.target = target
        self.logs: List[str] = []
        self.queries: List[tuple] = []  # (node name or None, SQL) of each statement dbt sent, in order

    def invoke(self, *args: str, vars: Optional[Dict[str, Any]] = None, staging: Optional[str] = None,
               expect_success: bool = True):
        """`dbt <args>` on the test's schemas (env vars: see dbt_env); `staging` reads another staging dataset."""
        import yaml
        from dbt.cli.main import dbtRunner

        _capture_parses()

        os.environ.update(dbt_env(self.names, staging))
        cli = [*args, "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION), "--target", self.target,
               "--no-write-json"]  # no test reads manifest.json or run_results.json; writing both costs ~0.7 s a call
        if vars:  # only when given: new vars make dbt parse the whole project again
            cli += ["--vars", yaml.safe_dump(vars)]
        events: List[str] = []

        def on_event(e) -> None:
            events.append(e.info.msg)
            if e.info.name == "SQLQuery":
                node = getattr(e.data, "node_info", None)
                self.queries.append((node.node_name if node and node.node_name else None, e.data.sql))

        key = _manifest_key(self.target, args, vars)
        reused = key is not None and _MANIFEST.get("key") == key
        _MANIFEST["parsed"] = None
        result = dbtRunner(manifest=_MANIFEST["manifest"] if reused else None, callbacks=[on_event]).invoke(cli)
        if key is not None and not reused:
            _keep_manifest(key)
        self.logs.extend(events)
        if expect_success and not result.success:
            tail = "\n".join(events[-30:])
            raise AssertionError(f"dbt {' '.join(args)} failed: {result.exception}\n{tail}")
        return result

    def run(self, select: str, **kw):
        return self.invoke("run", "--select", select, **kw)


# The manifest of this process's last dbt parse, reused by the next invocation that would parse the same
# project the same way (dbt's documented programmatic reuse, `dbtRunner(manifest=...)`): a test's second and
# later dbt calls skip parsing (0.3-0.7 s each). The key is what a parse depends on: the target, `--vars`, the
# environment the project reads (SPARKLOAD_*, DBT_*) and every project and package file's mtime and size.
_MANIFEST: Dict[str, Any] = {"key": None, "manifest": None, "parsed": None}
_REUSING = frozenset({"run", "build", "test", "seed", "snapshot", "compile", "run-operation", "show", "ls", "list"})
_PROJECT_FILES = (INTEGRATION / "dbt_project.yml", INTEGRATION / "models", INTEGRATION / "macros", INTEGRATION / "seeds",
                  INTEGRATION / "tests", INTEGRATION / "snapshots", REPO / "dbt_project.yml", REPO / "macros")


def _project_fingerprint() -> tuple:
    files = []
    for root in _PROJECT_FILES:
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for path in paths:
            st = path.stat()
            files.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(files)


def _manifest_key(target: str, args: Sequence[str], vars: Optional[Dict[str, Any]]) -> Optional[tuple]:
    """What the manifest of `dbt <args>` depends on; None for a command that should parse itself."""
    if not args or args[0] not in _REUSING:
        return None
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(("SPARKLOAD_", "DBT_"))))
    return (target, repr(sorted((vars or {}).items())), env, _project_fingerprint())


def _capture_parses() -> None:
    """Let `_keep_manifest` see the manifest dbt parsed (dbt does not return it from `run`)."""
    import dbt.cli.requires as requires

    if getattr(requires.parse_manifest, "sparkload_capture", False):
        return
    parse = requires.parse_manifest

    def capture(*args, **kwargs):
        _MANIFEST["parsed"] = manifest = parse(*args, **kwargs)
        return manifest

    capture.sparkload_capture = True  # type: ignore[attr-defined]
    requires.parse_manifest = capture


def _keep_manifest(key: tuple) -> None:
    parsed, _MANIFEST["parsed"] = _MANIFEST["parsed"], None
    # a run compiles ephemeral models into their callers once (dbt marks them injected): parse again
    usable = parsed is not None and not any(getattr(n.config, "materialized", None) == "ephemeral"
                                            for n in parsed.nodes.values())
    _MANIFEST.update(key=key if usable else None, manifest=parsed if usable else None)


def install_dbt_deps() -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(["deps", "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION)])
    assert result.success, result.exception


@pytest.fixture(scope="session")
def dbt_deps(spark):
    """`dbt deps` of integration_tests/, once per run; under xdist the controller ran it before the workers
    started (it replaces dbt_packages/, which a worker's dbt run may be reading)."""
    if os.environ.get(DEPS_INSTALLED) != "1":
        install_dbt_deps()


@pytest.fixture
def dbt_target(request) -> str:
    return request.param


@pytest.fixture
def dbt(dbt_deps, names, dbt_target, request) -> Dbt:
    if dbt_target in SERVER_TARGETS:
        request.getfixturevalue("thrift_server")
    return Dbt(names, dbt_target)


def rows(spark, sql: str, *, drop=("_dlt_id", "_dlt_load_id")) -> List[Dict[str, Any]]:
    """The result of `sql` as a list of dicts without the given columns, for whole-table asserts."""
    return [{k: v for k, v in r.asDict().items() if k not in drop} for r in spark.sql(sql).collect()]
