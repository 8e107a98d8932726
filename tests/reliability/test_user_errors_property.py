"""Every user mistake is a user error (issue 39 item 6), property-based: hypothesis feeds malformed
resource hints, pipeline files, source plugin configs, maintenance policies and dbt profiles to the API
and to the CLI (`python_extract.cli.main`, in this process) and asserts the ConfigError family in the API,
and in the CLI exit 2 or 3 with exactly one line on stderr: never exit 70, never a traceback, never a
plain ValueError/TypeError/KeyError. Each mistake must be caught before Spark starts: where a JVM would
start, `JvmStarted` is raised and recorded, and the example fails (also if some handler swallowed it)."""
from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import string
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

import python_extract as sl
from python_extract import cli
from python_extract.contract import COLUMN_HINTS, WRITE_DISPOSITIONS
from dbt.adapters.sparkload.connections import METHODS
from python_extract.errors import ConfigError, PipelineStepFailed
from python_extract.normalize.exceptions import DataValidationError

# `--suite ci` leaves the property-based search out (make test-all runs it): tests/reliability/test_cli_errors.py
# feeds each kind of mistake through the API and the CLI
pytestmark = pytest.mark.extended

EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class JvmStarted(AssertionError):
    """Raised where a JVM would start."""


STARTED: List[str] = []


@pytest.fixture(autouse=True)
def no_jvm(monkeypatch):
    from pyspark import context
    from pyspark.sql import SparkSession

    def refuse(*args, **kwargs):
        STARTED.append("started")
        raise JvmStarted("a JVM was about to start: the mistake was not caught before Spark")

    monkeypatch.setattr(context.SparkContext, "_ensure_initialized", classmethod(refuse))
    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", refuse)
    monkeypatch.setattr(SparkSession, "getActiveSession", classmethod(refuse))
    yield
    assert not STARTED, "a JVM was about to start: a mistake was not caught before Spark"


# ---------------------------------------------------------------------------------------------- values
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**20), st.floats(allow_nan=False),
                    st.text(max_size=10))
JUNK = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                    max_leaves=6)
NOT_A_STRING = JUNK.filter(lambda v: not isinstance(v, str))
NOT_AN_INT = JUNK.filter(lambda v: not isinstance(v, int) or isinstance(v, bool))
NOT_A_MAPPING = JUNK.filter(lambda v: not isinstance(v, dict))


def near_miss(word: str) -> st.SearchStrategy:
    """`word` with one letter dropped, doubled, swapped with its neighbour or replaced."""
    def edit(draw_index: int, how: int, letter: str) -> str:
        i = draw_index % len(word)
        if how == 0:
            return word[:i] + word[i + 1:]
        if how == 1:
            return word[:i] + word[i] + word[i:]
        if how == 2 and i + 1 < len(word):
            return word[:i] + word[i + 1] + word[i] + word[i + 2:]
        return word[:i] + letter + word[i + 1:]
    return st.builds(edit, st.integers(0, 50), st.integers(0, 3), st.sampled_from(string.ascii_lowercase + "_"))


def unknown_key(known) -> st.SearchStrategy:
    """A key `known` does not hold: a near miss of a known one, or any text."""
    known = sorted(known)
    return st.one_of(st.sampled_from(known).flatmap(near_miss), st.text(min_size=1, max_size=12)).filter(
        lambda k: k not in known)


# --------------------------------------------------------------------------------- hints, through the API
HINTS = ("table_name", "write_disposition", "primary_key", "merge_key", "columns", "max_table_nesting",
         "schema_contract", "nested_hints")
BAD_HINT = st.one_of(
    st.tuples(st.sampled_from(HINTS), JUNK),
    st.tuples(st.just("write_disposition"), st.dictionaries(st.sampled_from(["disposition", "strategy", "deduplicated"]) | st.text(max_size=8),
                                                            JUNK, min_size=1, max_size=3)),
    st.tuples(st.just("columns"), st.dictionaries(st.text(min_size=1, max_size=6),
                                                  st.dictionaries(st.sampled_from(sorted(COLUMN_HINTS)) | st.text(max_size=8), JUNK, max_size=3),
                                                  min_size=1, max_size=2)),
    st.tuples(st.just("columns"), st.lists(JUNK, min_size=1, max_size=2)),
    st.tuples(st.just("schema_contract"), st.sampled_from(["evolve", "freeze", "discard_row", "discard_value"]).flatmap(near_miss)),
    st.tuples(st.just("schema_contract"), st.dictionaries(st.sampled_from(["tables", "columns", "data_type"]) | st.text(max_size=8),
                                                          st.sampled_from(["evolve", "freeze"]) | JUNK, min_size=1, max_size=2)),
    st.tuples(st.just("nested_hints"), st.dictionaries(st.text(max_size=6), JUNK, min_size=1, max_size=2)),
    st.tuples(st.sampled_from(HINTS).flatmap(near_miss).filter(lambda h: h not in HINTS), JUNK),
)


def _api_outcome(call) -> str:
    """"ok" or "refused"; any exception outside the ConfigError family propagates and fails the example. A
    schema contract's DataValidationError is a refusal too: a frozen contract refuses the run's new table (as
    dlt does), before Spark, in one line; `run` raises it as dlt does, inside the extract step's
    PipelineStepFailed."""
    try:
        call()
    except (ConfigError, DataValidationError) as e:  # one line is the CLI's to ensure (a hint named "a\nb" is quoted as given)
        assert str(e).strip(), "an empty message"
        return "refused"
    except PipelineStepFailed as e:  # `run` wraps the contract's refusal as dlt does (`.exception`); nothing else
        if not isinstance(e.exception, DataValidationError):
            raise
        assert e.step == "extract" and str(e).strip(), str(e)
        return "refused"
    return "ok"


@EXAMPLES
@given(hint=BAD_HINT, through=st.sampled_from(["resource", "apply_hints", "run"]))
@example(hint=("primary_key", False), through="resource")  # found: TypeError 'bool' object is not iterable
@example(hint=("merge_key", 5), through="apply_hints")
@example(hint=("schema_contract", {"tables": "freeze"}), through="run")  # found: the DataValidationError of a frozen contract
def test_api__a_malformed_hint_is_refused_as_a_config_error(hint, through):
    """Refused as a ConfigError, or accepted: by `resource`/`apply_hints`, or by `run`, whose checks all
    come before its first Spark work (reaching Spark means every check passed)."""
    name, value = hint
    rows = [{"id": 1, "c": "x", "nested": [{"n": 1}]}]
    if through == "resource":
        _api_outcome(lambda: sl.resource(rows, name="r", **{name: value}))
    elif through == "apply_hints":
        _api_outcome(lambda: sl.resource(rows, name="r").apply_hints(**{name: value}))
    else:
        with tempfile.TemporaryDirectory() as folder:
            pipe = sl.pipeline(pipeline_name="p", pipelines_dir=folder, dataset_name="d")
            try:
                _api_outcome(lambda: pipe.run(sl.resource(rows, name="r"), **{name: value}))
            except JvmStarted:
                pass
    STARTED.clear()


# ------------------------------------------------------------------------------ the CLI, in this process
SOURCE = '''
import python_extract as sl


@sl.source
def shop(rows: int = 3):
    @sl.resource(primary_key="id")
    def orders():
        yield [{"id": n} for n in range(rows)]
    return orders


@sl.resource(primary_key="id")
def events(updated=sl.incremental("id", initial_value=0)):
    yield [{"id": 1}]
'''


def _sparkload(argv: List[str], folder: Path) -> Tuple[int, str]:
    """`sparkload ARGV` in this process with `folder` as working directory and lakehouse; (code, stderr)."""
    err = io.StringIO()
    cwd = os.getcwd()
    STARTED.clear()
    os.chdir(folder)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main(argv)
    finally:
        os.chdir(cwd)
    return code, err.getvalue()


def _assert_user_error(code: int, stderr: str, given: Any) -> None:
    assert not STARTED, f"a JVM was about to start for {given!r}:\n{stderr}"
    assert code in (2, 3), f"exit {code} for {given!r}:\n{stderr}"
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sparkload: "), f"expected one line for {given!r}:\n{stderr}"
    assert "Traceback" not in stderr and "internal error" not in stderr


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as name, pytest.MonkeyPatch.context() as patch:
        path = Path(name)
        (path / "src.py").write_text(SOURCE)
        (path / "data").mkdir()
        (path / "data" / "orders.csv").write_text("id,name\n1,a\n")
        import sqlite3
        with contextlib.closing(sqlite3.connect(path / "shop.db")) as db:
            db.execute("create table orders (id integer primary key, updated_at text)")
            db.execute("insert into orders values (1, '2024-01-02')")
            db.commit()
        patch.setenv("SL_PROPERTY_DB", f"sqlite:///{path / 'shop.db'}")
        patch.setenv("SL_PROPERTY_BAD_URL", "nonsense://user:hunter2@host/db")
        patch.setenv("SPARKLOAD_HOME", str(path / "lake"))
        yield path


def _run_file(folder: Path, settings_: Any) -> None:
    (folder / "pipeline.yaml").write_text(yaml.safe_dump(settings_, allow_unicode=True))
    code, stderr = _sparkload(["run", "pipeline.yaml", "--no-progress"], folder)
    made = (folder / "lake").exists()
    shutil.rmtree(folder / "lake", ignore_errors=True)
    _assert_user_error(code, stderr, settings_)
    assert not made, f"{settings_!r} created the lakehouse before it was refused"


TOP = {"pipeline_name": "p", "source": "src.py:shop"}
TOP_KEYS = ("pipeline_name", "dataset_name", "source", "args", "resources", "table_name", "write_disposition",
            "pipelines_dir", "lock_wait", "keep_loaded_packages", "lakehouse")
WRONG_TOP = st.one_of(
    st.tuples(st.sampled_from(["pipeline_name", "dataset_name", "table_name", "pipelines_dir"]), NOT_A_STRING),
    st.tuples(st.just("pipeline_name"), st.text(max_size=12).filter(lambda s: not s or not (s[0].isalnum() or s[0] == "_")
                                                                   or any(c not in string.ascii_letters + string.digits + "_.-" for c in s))),
    st.tuples(st.just("source"), st.one_of(NOT_A_STRING.filter(lambda v: not isinstance(v, dict)),
                                           st.text(max_size=12).filter(lambda s: s.count(":") != 1),
                                           st.sampled_from(["src.py:nothing", "nowhere.py:shop", "no_such_module:x"]))),
    st.tuples(st.sampled_from(["args", "lakehouse"]), NOT_A_MAPPING.filter(lambda v: v is not None)),
    st.tuples(st.just("args"), st.dictionaries(unknown_key(["rows"]), JUNK, min_size=1, max_size=2)),
    st.tuples(st.just("args"), st.fixed_dictionaries({"rows": NOT_AN_INT.filter(lambda v: v is not None)})),
    st.tuples(st.just("resources"), st.one_of(st.just([]), NOT_A_STRING.filter(lambda v: v is not None),
                                              st.lists(unknown_key(["orders"]), min_size=1, max_size=2))),
    st.tuples(st.just("write_disposition"), JUNK.filter(lambda v: v not in WRITE_DISPOSITIONS and v is not None)),
    st.tuples(st.sampled_from(["lock_wait", "keep_loaded_packages"]),
              st.one_of(st.integers(max_value=-1), st.text(min_size=1, max_size=5), st.lists(SCALARS, max_size=2))),
    st.tuples(st.just("lakehouse"), st.dictionaries(unknown_key(["home", "table_format", "master", "jars_dir", "jars_cache",
                                                                  "catalog_uri", "app_name", "spark_conf"]), JUNK, min_size=1, max_size=2)),
    st.tuples(st.just("lakehouse"), st.fixed_dictionaries({"table_format": JUNK.filter(lambda v: v not in ("delta", "iceberg"))})),
    st.tuples(st.just("lakehouse"), st.fixed_dictionaries({"spark_conf": st.one_of(NOT_A_MAPPING, st.dictionaries(
        st.text(min_size=1, max_size=8), st.lists(SCALARS, max_size=2) | st.none(), min_size=1, max_size=2))})),
)


@EXAMPLES
@given(mistake=st.one_of(WRONG_TOP, st.tuples(unknown_key(TOP_KEYS), JUNK)))
def test_cli__a_malformed_pipeline_file_is_one_line_and_exit_2_before_spark(mistake, folder):
    key, value = mistake
    _run_file(folder, {**TOP, key: value})


@EXAMPLES
@given(updated=JUNK)
def test_cli__a_malformed_incremental_argument_is_one_line_and_exit_2_before_spark(updated, folder):
    assume(updated is not None)
    _run_file(folder, {"pipeline_name": "p", "source": "src.py:events", "args": {"updated": updated}})


# source plugins: a valid config each, and where a mistake can go in it
PLUGINS: Dict[str, Dict[str, Any]] = {
    "rest_api": {"client": {"base_url": "http://127.0.0.1:9/"},
                 "resources": [{"name": "items", "endpoint": {"path": "items", "incremental": {
                     "cursor_path": "updated_at", "initial_value": "2024-01-01T00:00:00Z",
                     "start_param": {"in": "query", "name": "since"}}}}]},
    "sql_database": {"credentials": "${SL_PROPERTY_DB}", "tables": ["orders"],
                     "table_options": {"orders": {"primary_key": "id", "incremental": {"cursor_path": "updated_at"}}}},
    "files": {"resources": [{"name": "orders", "glob": "data/*.csv", "primary_key": "id"}]},
}
# (plugin, path of a mapping in its config): unknown keys go there
MAPPINGS = [("rest_api", ()), ("rest_api", ("client",)), ("rest_api", ("resources", 0)),
            ("rest_api", ("resources", 0, "endpoint")), ("rest_api", ("resources", 0, "endpoint", "incremental")),
            ("rest_api", ("resources", 0, "endpoint", "incremental", "start_param")),
            ("sql_database", ()), ("sql_database", ("table_options", "orders")),
            ("sql_database", ("table_options", "orders", "incremental")),
            ("files", ()), ("files", ("resources", 0))]
# (plugin, path of a value, wrong values)
WRONG_VALUES = [
    ("rest_api", ("client", "base_url"), NOT_A_STRING),
    ("rest_api", ("client", "paginator"), JUNK.filter(lambda v: v is not None)),
    ("rest_api", ("client", "auth"), JUNK.filter(lambda v: v is not None)),
    ("rest_api", ("resources",), NOT_A_STRING.filter(lambda v: not isinstance(v, list))),
    ("rest_api", ("resources", 0, "name"), NOT_A_STRING),
    ("rest_api", ("resources", 0, "write_disposition"), JUNK.filter(lambda v: v not in WRITE_DISPOSITIONS)),
    ("rest_api", ("resources", 0, "primary_key"), JUNK.filter(lambda v: not isinstance(v, (str, list)))),
    ("rest_api", ("resources", 0, "endpoint", "incremental", "cursor_path"), NOT_A_STRING),
    ("rest_api", ("resources", 0, "endpoint", "incremental", "range_start"), JUNK.filter(lambda v: v not in ("open", "closed"))),
    ("rest_api", ("resources", 0, "endpoint", "incremental", "start_param"), JUNK),
    ("rest_api", ("resources", 0, "endpoint", "incremental", "lag"), st.one_of(st.integers(max_value=-1), st.text(min_size=1, max_size=4))),
    ("rest_api", ("resources", 0, "endpoint", "incremental", "on_cursor_value_missing"), JUNK),
    ("sql_database", ("credentials",), st.one_of(NOT_A_STRING, st.just("sqlite:///literal.db"), st.just("${SL_PROPERTY_NOT_SET}"),
                                                  st.just("${SL_PROPERTY_BAD_URL}"))),
    ("sql_database", ("tables",), st.one_of(NOT_A_STRING.filter(lambda v: not isinstance(v, list)),
                                            st.lists(unknown_key(["orders"]), min_size=1, max_size=2))),
    ("sql_database", ("chunk_size",), st.one_of(st.integers(max_value=0), NOT_AN_INT)),
    ("sql_database", ("table_options", "orders", "write_disposition"), JUNK.filter(lambda v: v not in WRITE_DISPOSITIONS)),
    ("sql_database", ("table_options", "orders", "incremental", "cursor_path"),
     st.one_of(NOT_A_STRING, st.just("no_such_column"))),
    ("sql_database", ("table_options", "orders", "incremental", "range_end"), JUNK.filter(lambda v: v not in ("open", "closed"))),
    ("sql_database", ("table_options", "orders", "incremental", "lag"), st.one_of(st.integers(max_value=-1), st.text(min_size=1, max_size=4))),
    ("sql_database", ("table_options", "orders", "incremental", "initial_value"), st.just({"a": 1}) | st.lists(SCALARS, min_size=1, max_size=2)),
    ("files", ("resources",), st.one_of(st.just([]), NOT_A_STRING.filter(lambda v: not isinstance(v, list)))),
    ("files", ("resources", 0, "glob"), NOT_A_STRING),
    ("files", ("resources", 0, "format"), JUNK.filter(lambda v: v not in ("auto", "csv", "jsonl", "json", "parquet"))),
    ("files", ("resources", 0, "chunk_size"), st.one_of(st.integers(max_value=0), NOT_AN_INT)),
    ("files", ("resources", 0, "date_pattern"), st.sampled_from(["(", "[a-", "(?P<x", "*"])),
    ("files", ("resources", 0), st.fixed_dictionaries({"name": st.just("orders"), "glob": st.just("data/*.csv"), "date_column": st.just("day"),
                                                       "date_pattern": st.sampled_from(["(", "[a-", "(?P<x", "*"])})),
    ("files", ("resources", 0, "columns"), st.dictionaries(st.just("id"), NOT_A_MAPPING, min_size=1)),
    ("files", ("resources", 0, "incremental"), JUNK.filter(lambda v: not isinstance(v, bool))),
]


def _put(config: Any, path: Tuple, key: Any, value: Any) -> None:
    for part in path:
        config = config[part]
    config[key] = value


@EXAMPLES
@given(data=st.data())
def test_cli__a_malformed_source_plugin_config_is_one_line_and_exit_2_before_spark(data, folder):
    import copy

    if data.draw(st.booleans(), label="unknown key"):
        plugin, path = data.draw(st.sampled_from(MAPPINGS), label="where")
        config = copy.deepcopy(PLUGINS[plugin])
        target = config
        for part in path:
            target = target[part]
        _put(config, path, data.draw(unknown_key(target), label="key"), data.draw(JUNK, label="value"))
    else:
        plugin, path, values = data.draw(st.sampled_from(WRONG_VALUES), label="where")
        config = copy.deepcopy(PLUGINS[plugin])
        _put(config, path[:-1], path[-1], data.draw(values, label="value"))
    _run_file(folder, {"pipeline_name": "p", "source": {"type": plugin, "config": config}})


@EXAMPLES
@given(kind=near_miss("rest_api") | st.text(min_size=1, max_size=10) | NOT_A_STRING)
def test_cli__an_unknown_plugin_type_is_one_line_and_exit_2(kind, folder):
    assume(kind not in ("rest_api", "sql_database", "files", "airbyte", "airbyte_manifest"))
    _run_file(folder, {"source": {"type": kind, "config": {}}})


# ------------------------------------------------------------------------------------ maintenance policy
POLICY_KEYS = ("compact_when", "small_file_size", "keep_snapshots_for", "retain_snapshots", "remove_orphans_older_than")
BAD_POLICY = st.one_of(
    st.dictionaries(unknown_key(POLICY_KEYS), JUNK, min_size=1, max_size=2),
    st.builds(lambda k, v: {k: v}, st.sampled_from(POLICY_KEYS), JUNK.filter(lambda v: v is not None)),
    st.builds(lambda w: {"compact_when": w}, st.dictionaries(
        unknown_key(["small_files", "delete_files", "delete_ratio"]) | st.sampled_from(["small_files", "delete_files", "delete_ratio"]),
        JUNK.filter(lambda v: not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0), min_size=1, max_size=2)),
    st.builds(lambda k, v: {k: v}, st.sampled_from(["keep_snapshots_for", "remove_orphans_older_than", "small_file_size"]),
              st.sampled_from(["7", "7 days", "1x", "-1d", "d", "1.5d", "1e3", "10 MB", "1h"])),
    st.text(max_size=10).filter(lambda s: s.strip() not in ("", "~", "null", "true", "false", "yes", "no", "on", "off")),
    st.just("{a: [1"),
)


def _refused_as_expected(policy: Any) -> bool:
    """Whether the package's own check refuses `policy` (what --policy must then do, before Spark)."""
    from python_extract.maintenance import MaintenanceError
    from python_extract.maintenance.policy import check_policy

    try:
        check_policy(yaml.safe_load(policy) if isinstance(policy, str) else policy)
    except (MaintenanceError, yaml.YAMLError):
        return True
    return False


@EXAMPLES
@given(policy=BAD_POLICY)
def test_cli__a_malformed_maintenance_policy_is_one_line_and_exit_2_before_spark(policy, folder):
    text = policy if isinstance(policy, str) else yaml.safe_dump(policy, default_flow_style=True, allow_unicode=True)
    assume(_refused_as_expected(text))  # a policy the check accepts ("1h" is a duration) is not a mistake
    code, stderr = _sparkload(["lakehouse", "maintain", "--home", str(folder / "lake"), f"--policy={text}"], folder)
    made = (folder / "lake").exists()
    shutil.rmtree(folder / "lake", ignore_errors=True)
    _assert_user_error(code, stderr, text)
    assert not made, f"--policy {text} created the lakehouse before it was refused"


# ------------------------------------------------------------------------------------ dbt profiles

PROFILE = {"type": "sparkload", "method": "embedded", "schema": "analytics"}
PROFILE_KEYS = ("method", "schema", "host", "port", "lakehouse_dir", "table_format", "master", "jars_dir",
                "spark_conf", "warm", "warm_idle_timeout")
BAD_PROFILE = st.one_of(
    st.builds(lambda k, v: {**PROFILE, k: v}, unknown_key(PROFILE_KEYS + ("type",)), JUNK),
    st.builds(lambda k: {k2: v for k2, v in PROFILE.items() if k2 != k}, st.sampled_from(["method", "schema"])),
    st.builds(lambda v: {**PROFILE, "method": v}, (near_miss("embedded") | JUNK).filter(lambda v: v not in METHODS)),
    st.builds(lambda k, v: {**PROFILE, k: v}, st.sampled_from(["schema", "lakehouse_dir", "master", "jars_dir"]),
              NOT_A_STRING.filter(lambda v: v is not None)),
    # an empty table_format is unset, as an empty SPARKLOAD_TABLE_FORMAT
    st.builds(lambda v: {**PROFILE, "table_format": v}, JUNK.filter(lambda v: v not in ("delta", "iceberg", None, ""))),
    st.builds(lambda v: {**PROFILE, "spark_conf": v}, NOT_A_MAPPING.filter(lambda v: v is not None)),
    st.builds(lambda v: {**PROFILE, "warm": v}, JUNK.filter(lambda v: not isinstance(v, bool) and v is not None)),
    st.builds(lambda v: {**PROFILE, "warm": True, "warm_idle_timeout": v},
              st.one_of(st.integers(max_value=0), st.sampled_from(["1x", "-1h", "0s", "m", "1.5.2h", "ten minutes"]),
                        st.lists(SCALARS, max_size=2), st.dictionaries(st.text(max_size=3), SCALARS, max_size=2))),
)


def _profile_accepted(profile: Dict[str, Any]) -> bool:
    """dbt's own reading of a profile target (what `dbt debug` and every command do first), no connection."""
    from dbt.config.profile import Profile
    from dbt_common.exceptions import DbtRuntimeError

    try:
        credentials = Profile._credentials_from_profile(dict(profile), "p", "dev")
        credentials.lakehouse_config()
    except (DbtRuntimeError, ConfigError) as e:
        assert str(e).strip(), "an empty message"
        return False
    return True


@EXAMPLES
@given(profile=BAD_PROFILE)
def test_profile__a_malformed_sparkload_profile_is_a_dbt_user_error(profile):
    assert not _profile_accepted(profile), f"accepted {profile!r}"


# ------------------------------------------------------------------------ what the properties found, pinned
# each once ended as exit 70, a plain ValueError, a silently ignored value or a JVM start (issue 39 item 6)
FOUND = {
    "plugin_type_not_a_string": ({"source": {"type": ["files"], "config": {}}},
                                 "source.type: no source plugin named \"['files']\"; installed: "),
    "incremental_argument": ({"source": "src.py:events", "args": {"updated": 5}},
                             "args.updated: updated is the incremental cursor of events (set in its code), not an "
                             "argument; got int '5'; remove it"),
    "sql_unknown_table": ({"source": {"type": "sql_database", "config": {"credentials": "${SL_PROPERTY_DB}", "tables": ["ordrs"]}}},
                          "source sql_database: tables: no table 'ordrs' (did you mean 'orders'?) in the database; it has orders"),
    "sql_unknown_cursor_column": ({"source": {"type": "sql_database", "config": {"credentials": "${SL_PROPERTY_DB}", "table_options": {
        "orders": {"incremental": {"cursor_path": "updatd_at"}}}}}},
        "source sql_database: table_options.orders.incremental.cursor_path: no column 'updatd_at' (did you mean "
        "'updated_at'?); it has id, updated_at"),
    "sql_cursor_value_a_mapping": ({"source": {"type": "sql_database", "config": {"credentials": "${SL_PROPERTY_DB}", "table_options": {
        "orders": {"incremental": {"cursor_path": "updated_at", "initial_value": {"a": 1}}}}}}},
        "source.config.table_options.orders.incremental.initial_value: \"{'a': 1}\" is a dict; expected one value "
        "(a string, number or date)"),
    "sql_url_of_no_dialect": ({"source": {"type": "sql_database", "config": {"credentials": "${SL_PROPERTY_BAD_URL}"}}},
                              "source sql_database: credentials: not a SQLAlchemy URL of an installed dialect "
                              "(NoSuchModuleError), e.g. postgresql+psycopg2://user@host/db"),
    "files_bad_date_pattern": ({"source": {"type": "files", "config": {"resources": [
        {"name": "orders", "glob": "data/*.csv", "date_column": "day", "date_pattern": "("}]}}},
        "files resource orders: date_pattern '(' is not a regular expression: missing ), unterminated subpattern at position 0"),
}


@pytest.mark.parametrize("case", list(FOUND))
def test_cli__each_mistake_the_properties_found_is_one_line_naming_it(case, folder):
    text, expected = FOUND[case]
    (folder / "pipeline.yaml").write_text(yaml.safe_dump({"pipeline_name": "p", **text}))
    code, stderr = _sparkload(["run", "pipeline.yaml", "--no-progress"], folder)
    _assert_user_error(code, stderr, text)
    assert expected in stderr and "hunter2" not in stderr, stderr


def test_profile__an_unknown_key_names_the_closest_one():
    from dbt.config.profile import Profile
    from dbt.exceptions import DbtProfileError

    with pytest.raises(DbtProfileError, match="unknown key 'lakehouse_dri' \\(did you mean 'lakehouse_dir'\\?\\); expected one of "):
        Profile._credentials_from_profile({**PROFILE, "lakehouse_dri": "lake"}, "p", "dev")


@pytest.mark.parametrize("keys", [False, 5, {"id": 1}, [1]])
def test_api__a_key_hint_that_is_no_column_name_names_the_hint(keys):
    with pytest.raises(ConfigError, match=f"^resource r: primary_key={re.escape(repr(keys))} \\({type(keys).__name__}\\); "
                                          "expected a column name or a list of column names$"):
        sl.resource([{"id": 1}], name="r", primary_key=keys)
