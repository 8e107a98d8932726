"""dbt shows Spark's errors with the materialization's message first and no Java stack trace
(issue 19, item 4): a duplicate key in an upsert load fails in a few lines, not 100-380."""
from __future__ import annotations

import pytest

from dbt.adapters.sparkload.errors import concise

from ..support.spark_errors import WRAPPED
from ..support.stage import Stage, stage  # noqa: F401  (the fixture)

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)


def test_concise__raised_message_first_no_frames_every_exception_line_kept():
    lines = concise(WRAPPED).splitlines()
    assert lines[0] == "sparkload model m: id=1 occurs more than once in load 17. The table is unchanged."
    assert not [line for line in lines if line.lstrip().startswith(("at ", "... "))]
    assert lines[1:] == [
        "An error occurred while calling o57.sql.",
        WRAPPED.splitlines()[1],
        "",
        "Driver stacktrace:",
        WRAPPED.splitlines()[8],
    ]


def test_concise__spark4_user_raised_exception_first():
    text = "org.apache.spark.SparkRuntimeException: [USER_RAISED_EXCEPTION] key 1 twice SQLSTATE: P0001"
    assert concise(text).splitlines()[0] == "key 1 twice"


def test_concise__message_without_frames_unchanged():
    assert concise("[TABLE_OR_VIEW_NOT_FOUND] The table `x` cannot be found.") == \
        "[TABLE_OR_VIEW_NOT_FOUND] The table `x` cannot be found."


@pytest.mark.dbt_targets("embedded", "sparkload_thrift")
def test_dbt_run__duplicate_key_message_first_and_java_trace_trimmed(spark, stage, dbt, names):  # noqa: F811
    bad = stage.load([{"id": 1, "name": "b"}, {"id": 1, "name": "c"}])

    result = dbt.run("up_pk", expect_success=False)

    message = result.result.results[0].message
    lines = [line.strip() for line in message.splitlines()]
    # dbt's own headers ("Runtime Error in model ...", "Database Error"), then the materialization's message
    first = next(line for line in lines if not line.startswith(("Runtime Error", "Database Error")))
    assert f"id=1 occurs more than once in load {bad}" in first
    assert not [line for line in lines if line.startswith("at ")]
    assert len(lines) <= 12, message


@pytest.mark.dbt_targets("embedded", "sparkload_thrift")
def test_dbt_run__a_config_mistake_is_one_message_without_dbts_macro_stack(spark, stage, dbt, names):  # noqa: F811
    """Issue 40 item 6: a sparkload refusal was followed by 6-8 lines of `> in macro ... > called by ...`; the
    sparkload adapter raises it as a runtime error, which dbt shows without them (the package alone on
    dbt-spark can only raise a compiler error, which keeps them)."""
    stage.load([{"id": 1, "name": "a"}])

    result = dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "id",
                                                            "primary_keys": "id"}}, expect_success=False)

    lines = [line.strip() for line in result.result.results[0].message.splitlines() if line.strip()]
    assert lines[0].startswith("Runtime Error in model config_probe"), lines
    assert lines[1].startswith(f"sparkload model config_probe (table {names.target}.config_probe): config key "
                               "`primary_keys` is unknown") and lines[1].endswith("The table is unchanged."), lines
    assert len(lines) == 2, lines
    assert not spark.catalog.tableExists(f"{names.target}.config_probe")
