"""dbt's own adapter test suite (`dbt-tests-adapter` 1.19.7) on the sparkload adapter, as dbt-spark runs
it in its `tests/functional/adapter/`: each class here subclasses a `Base*` class of the suite and
overrides only what Spark needs (file formats, SQL dialect, expected types), with the reason beside it.

Targets: every class runs once per target, all `type: sparkload` on the run's one lakehouse:
- `embedded`: this process's SparkSession (the session fixture `spark`);
- `thrift`: `method: thrift` through the run's thrift server (`tests/support/shared_servers.py`);
- `connect`: `method: connect` through the run's Spark Connect server (`connect_server`, same file): pyspark's
  gRPC client in this process, beside its JVM.
`--dbt-targets embedded` (or SPARKLOAD_DBT_TARGETS) limits the run as for the rest of tests/.
`@pytest.mark.skip_target("thrift", reason=...)` skips a class on a target; each skip gives its reason.

Over thrift, most classes send the same SQL as on embedded and differ only in transport. By default
(`--thrift wire`) only the classes marked `over_the_wire` run on thrift: those whose code path
differs there (seeds: bound `insert ... values` instead of a DataFrame; relation listing, type changes
and the docs catalog: the server's answers to SHOW/DESCRIBE; adapter methods; merge and alter statements;
snapshots). `--thrift all` (or SPARKLOAD_THRIFT=all) runs every class on both targets.
Over connect, by default (`--connect sample`) only the classes of CONNECT_SAMPLE run: a sample of the
paths where the transport shows (seeds bound as parameters, adapter methods on the server's answers to
SHOW/DESCRIBE, the connection check), kept small as the server and each class cost seconds in `make test`
(`tests/deploy/test_connect.py` runs build, snapshot, merge and docs generate over connect end to end);
`--connect all` (or SPARKLOAD_CONNECT=all) runs every class there (all 80 tests passed on Delta, 2026-11-28).

dbt's pytest fixtures (`dbt.tests.fixtures.project`: `project`, `models`, `seeds`, `tests`, ...) are
imported here rather than registered as a plugin, so they exist for this folder only and never shadow
the fixtures of the rest of tests/. Every dbt invocation of the suite runs in this process (`run_dbt`
calls dbtRunner).
"""
from __future__ import annotations

import random
import time

import pytest

from dbt.tests.fixtures.project import *  # noqa: F401,F403  (dbt's fixtures, for this folder only)

ADAPTER_TARGETS = ("embedded", "thrift", "connect")
DEFAULT_FORMAT = "delta"  # the run the whole suite runs in (tests/support/run_setup.py's DEFAULT_FORMAT); in the other run, the
# files marked each_format run on embedded only, but for those marked wire_each_format (the catalog's answers over the wire)
# classes (file::Class) and tests (file::Class::test) of dbt's suite that `make test` (`--suite ci`) leaves out as
# `extended`, variants of a path the kept ones walk (make test-all runs them): of the unique-key tests, the one-key
# case stays; of on_schema_change, the merge class (the one that changes the table); of the predicates, one class;
# the empty flag, singular tests, ephemeral models and the timestamp snapshot repeat what TestEmpty,
# TestGenericTests, TestSimpleMaterializations and the check-cols snapshot cover
EXTENDED = tuple(f"test_incremental.py::TestIncrementalUniqueKey::test__{name}" for name in (
    "no_unique_keys", "empty_str_unique_key", "empty_unique_key_list", "unary_unique_key_list",
    "duplicated_unary_unique_key_list", "trinary_unique_key_list", "trinary_unique_key_list_no_update",
    "bad_unique_key", "bad_unique_key_list")) + (
    "test_incremental.py::TestAppendOnSchemaChange", "test_incremental.py::TestInsertOverwriteOnSchemaChange",
    "test_incremental.py::TestPredicatesMerge", "test_basic.py::TestSingularTests",
    "test_basic.py::TestSingularTestsEphemeral", "test_basic.py::TestEmptyFlag",
    "test_basic.py::TestEmptyFlagInlineSourceRef", "test_basic.py::TestIncrementalNotSchemaChange",
    "test_basic.py::TestSnapshotTimestamp", "test_basic.py::TestEphemeral", "test_incremental.py::TestMicrobatch",
    # dbt-spark's snapshot materialization (a MERGE like every strategy's); tests/deploy/test_connect.py builds a snapshot
    "test_basic.py::TestSnapshotCheckCols") + tuple(
    # the cross-database macros are dbt-spark's (SQL functions, not the table format or sparkload's materializations);
    # `--suite ci` keeps the column types (the adapter's type mapping) and validate_sql (an adapter method)
    f"test_utils.py::{name}" for name in (
        "TestUtils", "TestMixedNullCompare", "TestEquals", "TestExcept", "TestIntersect", "TestArrayAppend",
        "TestArrayConcat", "TestArrayConstruct", "TestCurrentTimestamp"))
# test_incremental.py runs on both formats; in the Iceberg run `--suite ci` keeps only its schema-change merge class
# (the answers that differ by format: Delta refuses to drop a column), the rest runs on Delta
EXTENDED_ON_ICEBERG = tuple(f"test_incremental.py::{name}" for name in (
    "TestIncrementalUniqueKey", "TestMergeExcludeColumns", "TestIncrementalPredicatesMerge", "TestIncrementalStrategies",
    "TestBadStrategies"))
# in the Delta run `--suite ci` keeps of the schema-change merge class the case whose answer differs by format (Delta
# refuses to drop a column: sync_all_columns); the other three run in the Iceberg run
EXTENDED_ON_DELTA = tuple(f"test_incremental.py::TestMergeOnSchemaChange::test_run_incremental_{name}" for name in (
    "append_new_columns", "ignore", "fail_on_schema_change"))
# over thrift, `--suite ci` leaves out these classes too (the snapshot and the schema-change merge send the same
# statements as on embedded; the thrift path of each is walked by the adapter methods and the seeds)
EXTENDED_OVER_THRIFT = ("test_basic.py::TestSnapshotCheckCols", "test_incremental.py::TestMergeOnSchemaChange",
                        "test_incremental.py::TestMergeExcludeColumns")
CONNECT_SAMPLE = ("test_seeds.py::TestSeedsLoadExactly", "test_basic.py::TestAdapterMethod",
                  "test_basic.py::TestValidateConnection")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "skip_target(*targets, reason): the adapter-suite class cannot run on these targets")


def pytest_generate_tests(metafunc):
    if "adapter_target" not in metafunc.fixturenames:
        return
    chosen = metafunc.config.getoption("--dbt-targets")
    chosen = chosen.split(",") if chosen else ADAPTER_TARGETS
    every_class_on_thrift = metafunc.config.getoption("--thrift") == "all"
    every_class_on_connect = metafunc.config.getoption("--connect") == "all"
    extended = _extended(metafunc, EXTENDED)
    params = []
    for target in ADAPTER_TARGETS:
        marks = [pytest.mark.extended] if extended or (target == "thrift" and _extended(metafunc, EXTENDED_OVER_THRIFT)) else []
        if _extended(metafunc, EXTENDED_ON_ICEBERG):
            marks.append(pytest.mark.extended("iceberg"))
        if _extended(metafunc, EXTENDED_ON_DELTA):
            marks.append(pytest.mark.extended("delta"))
        if target not in chosen:
            marks.append(pytest.mark.skip(reason=f"--dbt-targets selected {','.join(chosen)}"))
        for mark in metafunc.definition.iter_markers("skip_target"):
            if target in mark.args:
                marks.append(pytest.mark.skip(reason=f"{target}: {mark.kwargs['reason']}"))
        if target == "thrift" and not every_class_on_thrift and not metafunc.definition.get_closest_marker("over_the_wire"):
            marks.append(pytest.mark.skip(reason="thrift: the same SQL as on embedded; every class runs over "
                                                 "thrift with --thrift all"))
        if target == "connect" and not every_class_on_connect and not _in_connect_sample(metafunc):
            marks.append(pytest.mark.skip(reason="connect: outside the sample of classes run over Spark Connect by "
                                                 "default; every class runs there with --connect all"))
        if (target != "embedded" and metafunc.config.getoption("--table-format") != DEFAULT_FORMAT
                and not metafunc.definition.get_closest_marker("wire_each_format")):
            marks.append(pytest.mark.skip(reason=f"{target}: the transport does not depend on the table format; over "
                                                 f"{target} this class runs in the --table-format {DEFAULT_FORMAT} run"))
        params.append(pytest.param(target, id=target, marks=marks))
    metafunc.parametrize("adapter_target", params, indirect=True, scope="class")


def _extended(metafunc, names) -> bool:
    if metafunc.cls is None:
        return False
    name = f"{metafunc.module.__name__.rsplit('.', 1)[-1]}.py::{metafunc.cls.__name__}"
    return name in names or f"{name}::{metafunc.function.__name__}" in names


def _in_connect_sample(metafunc) -> bool:
    return metafunc.cls is not None and f"{metafunc.module.__name__.rsplit('.', 1)[-1]}.py::{metafunc.cls.__name__}" in CONNECT_SAMPLE


@pytest.fixture(scope="class")
def adapter_target(request) -> str:
    return request.param


@pytest.fixture(scope="class")
def dbt_profile_target(request, adapter_target, spark, lakehouse):
    # `spark` first: the embedded method then reuses this process's one SparkSession
    if adapter_target == "embedded":
        return {"type": "sparkload", "method": "embedded", "lakehouse_dir": str(lakehouse.home), "threads": 1}
    if adapter_target == "connect":
        server = request.getfixturevalue("connect_server")
        return {"type": "sparkload", "method": "connect", "host": server.host, "port": server.port, "threads": 1}
    server = request.getfixturevalue("thrift_server")
    return {"type": "sparkload", "method": "thrift", "host": server.host, "port": server.port, "user": "dbt",
            "poll_interval": 1, "threads": 1}



# dbt's fixtures of a class's project, made per target: a class runs once per target, and its second
# run must not find the first one's files (target/, assets/) or schema


@pytest.fixture(scope="class")
def prefix(adapter_target):
    return f"test{time.time_ns() // 1000}{random.randint(0, 9999):04}{adapter_target[0]}"


@pytest.fixture(scope="class")
def project_root(tmpdir_factory, adapter_target):
    return tmpdir_factory.mktemp(f"project-{adapter_target}")


@pytest.fixture(scope="class")
def profiles_root(tmpdir_factory, adapter_target):
    return tmpdir_factory.mktemp(f"profile-{adapter_target}")


@pytest.fixture(scope="class")
def logs_dir(tmp_path_factory, prefix):
    # dbt's own fixture writes under <rootdir>/logs; keep the checkout clean
    return str(tmp_path_factory.mktemp("dbt-logs") / prefix)


@pytest.fixture(scope="session")
def table_format(spark) -> str:
    """The lakehouse's table format (iceberg here; delta where its jars exist): the `file_format` that
    dbt-spark's merge, snapshots and on_schema_change need, as dbt-spark's own suite sets `delta`."""
    from python_extract.lakehouse.session import session_format

    return session_format(spark)


@pytest.fixture(scope="class")
def profile_user(dbt_profile_target):
    # the embedded method connects as nobody: no `user` in its profile
    return dbt_profile_target.get("user")


@pytest.fixture(scope="class", autouse=True)
def _no_adapter_left_registered():
    """dbt's `adapter` fixture keeps an adapter of the same type that is already registered, and an
    in-process `dbt debug` elsewhere in the run leaves one built from a profile alone (no project),
    on which every macro fails: each class starts with none."""
    from dbt.adapters.factory import reset_adapters

    reset_adapters()


@pytest.fixture(autouse=True)
def _project_target(monkeypatch):
    """dbt's adapter suite reads target/ inside its own project: a worker's DBT_TARGET_PATH (set for
    integration_tests under xdist, tests/support/run_setup.py) must not move it (TestDocsGenerate, TestEmpty)."""
    monkeypatch.delenv("DBT_TARGET_PATH", raising=False)
