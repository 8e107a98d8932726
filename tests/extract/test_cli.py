"""The `sparkload` extractor commands, run in-process on the shared session (`cli.main`): run from a
module or a pipeline YAML, progress and summary, pipeline info/loads/reset/drop, exit codes."""
from __future__ import annotations

import argparse
import textwrap

import pytest

from python_extract import cli, cli_pipeline

SOURCE = """
import python_extract as sl

@sl.source
def shop(rows: int = 3, fail: bool = False):
    @sl.resource(primary_key="id")
    def orders(ts=sl.incremental("ts")):
        if fail:
            raise RuntimeError("the API answered 503")
        yield [{"id": n, "ts": n, "lines": [{"sku": "A"}]} for n in range(rows)]

    @sl.resource
    def users():
        yield {"id": 1}

    return orders, users
"""


@pytest.fixture
def target(tmp_path, names):
    module = tmp_path / f"src_{names.staging}.py"
    module.write_text(SOURCE)
    return f"{module}:shop"


def _main(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _common(names, tmp_path):
    return ["--dataset-name", names.staging, "--pipelines-dir", str(tmp_path / "pipelines")]


def test_help__documents_every_command_and_option():
    def walk(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from walk(sub)

    parsers = list(walk(cli.build_parser()))
    names = {p.prog for p in parsers}
    assert {"sparkload run", "sparkload pipeline info", "sparkload pipeline loads", "sparkload pipeline reset",
            "sparkload pipeline drop"} <= names
    for parser in parsers:
        if parser.prog.startswith(("sparkload run", "sparkload pipeline")):
            undocumented = [a.dest for a in parser._actions if not a.help]
            assert undocumented == [], f"{parser.prog}: options without help: {undocumented}"
            assert parser.format_help()


def test_run__lands_a_source_and_prints_a_summary_and_no_progress_off_a_terminal(capsys, names, tmp_path, target, spark):
    code, out, err = _main(capsys, "run", target, "--pipeline-name", names.staging, "--arg", "rows=4", *_common(names, tmp_path))
    assert code == 0, err
    assert f"pipeline {names.staging}: 1 load(s) into {names.staging}" in out
    assert "(9 rows: orders 4, orders__lines 4, users 1)" in out
    assert err == ""  # captured stderr is no terminal: no progress line (the bar is drawn below, on a stream)
    assert spark.sql(f"select count(*) c from {names.staging}.orders").first()["c"] == 4


def test_run__from_a_pipeline_yaml_selects_resources_and_passes_args(capsys, names, tmp_path, target, spark):
    spec = tmp_path / "pipeline.yaml"
    spec.write_text(textwrap.dedent(f"""
        pipeline_name: {names.staging}
        dataset_name: {names.staging}
        pipelines_dir: {tmp_path / 'pipelines'}
        source: {target}
        args: {{rows: 2}}
        resources: [orders]
    """))
    code, out, err = _main(capsys, "run", str(spec), "--no-progress")
    assert code == 0, err
    assert "(4 rows: orders 2, orders__lines 2)" in out and err == ""
    assert not spark.catalog.tableExists(f"{names.staging}.users")


def test_pipeline_info_and_loads__show_cursors_and_loads_with_row_counts(capsys, names, tmp_path, target):
    _main(capsys, "run", target, "--pipeline-name", names.staging, "--no-progress", *_common(names, tmp_path))
    code, out, _ = _main(capsys, "pipeline", "info", names.staging, *_common(names, tmp_path))
    assert code == 0
    assert "shop.orders" in out and "cursor ts: last_value 2" in out and "pending packages: none" in out
    assert "  shop.users\n    (no cursor state)\n" in out and "reset" not in out  # users has no cursor; never reset
    code, out, _ = _main(capsys, "pipeline", "loads", names.staging, *_common(names, tmp_path))
    assert code == 0 and "status 0" in out and "orders 3, orders__lines 3, users 1" in out


def test_pipeline_info_and_loads__refuse_an_unknown_pipeline_naming_the_closest(capsys, names, tmp_path, target):
    """Issue 40 item 5: a mistyped name was described as an empty pipeline, exit 0."""
    common = _common(names, tmp_path)
    _main(capsys, "run", target, "--pipeline-name", names.staging, "--no-progress", *common)
    for command in ("info", "loads"):
        code, out, err = _main(capsys, "pipeline", command, f"{names.staging}x", *common)
        assert (code, out) == (2, ""), command
        assert err.count("\n") == 1 and err.startswith(
            f"sparkload: no pipeline '{names.staging}x' (did you mean '{names.staging}'?): it never ran with pipelines "
            f"dir {tmp_path}"), err
    code, _, err = _main(capsys, "pipeline", "loads", f"{names.staging}x", "--abort", "1.0", *common)
    assert code == 2 and err.startswith(f"sparkload: no pipeline '{names.staging}x' (did you mean"), err


def test_pipeline_reset_and_drop__wipe_state_and_on_request_tables(capsys, names, tmp_path, target, spark):
    common = _common(names, tmp_path)
    _main(capsys, "run", target, "--pipeline-name", names.staging, "--no-progress", *common)
    code, out, _ = _main(capsys, "pipeline", "drop", names.staging, "--resource", "orders", "--drop-tables", *common)
    assert code == 0 and "state of orders wiped" in out and "dropped orders__lines" in out
    assert not spark.catalog.tableExists(f"{names.staging}.orders")
    assert spark.catalog.tableExists(f"{names.staging}.users")
    code, out, _ = _main(capsys, "run", target, "--pipeline-name", names.staging, "--no-progress", *common)
    assert "orders 3" in out                                   # reloaded from scratch
    code, _, err = _main(capsys, "pipeline", "reset", names.staging, *common)
    assert code == 2 and "pass --yes" in err                   # stdin is no terminal: nothing wiped unasked
    _, out, _ = _main(capsys, "pipeline", "info", names.staging, *common)
    assert "cursor ts: last_value 2" in out
    code, out, _ = _main(capsys, "pipeline", "reset", names.staging, "--yes", *common)
    assert code == 0 and "state of every resource wiped" in out
    _, out, _ = _main(capsys, "pipeline", "info", names.staging, *common)
    assert "  shop.orders\n    (no cursor state)\n" in out
    code, _, err = _main(capsys, "pipeline", "drop", names.staging, *common)
    assert code == 2 and "needs --resource" in err


def test_failures__print_one_line_and_exit_non_zero(capsys, names, tmp_path, target):
    common = _common(names, tmp_path)
    code, _, err = _main(capsys, "run", target, "--pipeline-name", names.staging, "--arg", "fail=true", "--no-progress", *common)
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("sparkload: extract step failed load") and "the API answered 503" in err
    code, _, err = _main(capsys, "run", "no_such_module:shop", *common)
    assert code == 2 and err.startswith("sparkload: target 'no_such_module:shop'") and err.count("\n") == 1


def test_pipeline_reset_and_drop__refuse_an_unknown_pipeline_or_resource_and_change_nothing(capsys, names, tmp_path, target):
    common = _common(names, tmp_path)
    _main(capsys, "run", target, "--pipeline-name", names.staging, "--no-progress", *common)
    code, _, err = _main(capsys, "pipeline", "reset", f"{names.staging}x", "--yes", *common)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"sparkload: no pipeline '{names.staging}x' (did you mean '{names.staging}'?): it never ran "
                          "with pipelines dir ")
    assert f"pipelines here: {names.staging} " in err
    code, _, err = _main(capsys, "pipeline", "drop", f"{names.staging}x", "--resource", "orders", *common)
    assert code == 2 and err.startswith(f"sparkload: no pipeline '{names.staging}x' (did you mean '{names.staging}'?)")
    code, _, err = _main(capsys, "pipeline", "drop", names.staging, "--resource", "order", *common)
    assert code == 2 and err == (f"sparkload: pipeline {names.staging} has no state for resource order; "
                                 "its resources: orders, users\n")
    _, out, _ = _main(capsys, "pipeline", "info", names.staging, *common)
    assert "cursor ts: last_value 2" in out


def test_progress__rate_only_after_the_first_second_and_no_doubled_units():
    """The display's arithmetic on a fake clock; tests/reliability/test_cli_output.py watches the real command."""
    import io

    now = [100.0]
    stream = io.StringIO()
    progress = cli_pipeline.Progress(stream=stream, every=5, clock=lambda: now[0])
    progress.on_progress("orders", {}, 0, 0)
    progress.on_progress("orders", {"orders": 1}, 1, 1)                      # within 5 s of the last line: not shown
    now[0] += 0.5
    progress.on_progress("orders", {"orders": 5_000, "orders__lines": 9_000}, 14_000, 3, done=True)  # the last: shown
    now[0] += 1.5
    progress.on_progress("users", {"orders": 5_000, "orders__lines": 9_000}, 0, 0)   # its own clock; not shown (5 s)
    now[0] += 2.0
    progress.on_progress("users", {"orders": 5_000, "orders__lines": 9_000, "users": 40_000, "users__roles": 10_000},
                         50_000, 10, done=True)
    assert stream.getvalue().splitlines() == [
        "extract orders: 0 rows | 0 pages",
        "extract orders: 14,000 rows (orders 5,000, orders__lines 9,000) | 3 pages",
        "extract users: 50,000 rows (users 40,000, users__roles 10,000) | 10 pages | 25,000 rows/s",
    ]


def test_progress__tables_landed_per_load_then_complete():
    import io

    class Package:
        load_id, landed = "1.5", set()

        def tables(self):
            return ["orders", "orders__lines", "users"]

        def is_landed(self, table):
            return table in self.landed

    stream, package = io.StringIO(), Package()
    progress = cli_pipeline.Progress(stream=stream, every=5, clock=lambda: 0.0)
    for table in package.tables():
        package.landed.add(table)
        progress.on_table(package, table)
    progress.on_load(package)
    assert stream.getvalue().splitlines() == [
        "load 1.5: [######              ] 1/3 tables (orders)",
        "load 1.5: [#############       ] 2/3 tables (orders__lines)",
        "load 1.5: [####################] 3/3 tables (users)",
        "load 1.5: complete",
    ]


def test_loaded_packages__only_the_newest_kept(capsys, names, tmp_path, target):
    common = _common(names, tmp_path)
    for rows in (2, 3, 4):
        code, _, err = _main(capsys, "run", target, "--pipeline-name", names.staging, "--arg", f"rows={rows}",
                             "--keep-loaded-packages", "2", "--no-progress", *common)
        assert code == 0, err
    code, out, _ = _main(capsys, "pipeline", "packages", names.staging, *common)
    loaded = sorted((tmp_path / "pipelines" / names.staging / "packages" / "loaded").iterdir())
    assert code == 0 and len(loaded) == 2 and "loaded: 2 (after each load only the newest" in out
    assert "pending: none" in out and "failed: none" in out


def test_quiet_jvm__the_cli_sets_quiet_logging_for_its_own_jvm_only(monkeypatch, capsys):
    """The quiet log4j setting is in SPARK_SUBMIT_OPTS while a command runs (a JVM it starts logs
    nothing on the terminal) and gone after it, so JVMs started later by the same process keep their logs."""
    import os

    import pyspark

    monkeypatch.delenv("SPARK_SUBMIT_OPTS", raising=False)
    monkeypatch.setattr(pyspark.SparkContext, "_gateway", None)  # as in a new process: no JVM yet
    seen = []
    parser = cli.build_parser()
    args = parser.parse_args(["sources"])
    monkeypatch.setattr(cli, "build_parser", lambda: type("P", (), {"parse_args": lambda self, argv: args})())
    monkeypatch.setattr(args, "func", lambda a: seen.append(os.environ.get("SPARK_SUBMIT_OPTS")) or 0)
    assert cli.main(["sources"]) == 0
    assert seen and "log4j2-quiet.properties" in seen[0]
    assert "SPARK_SUBMIT_OPTS" not in os.environ
