"""The adapter's `sparkload_try_compaction` (helpers/run_loads.sql: a run compacts the ledgers it wrote to,
issue 37): a compaction the table format refuses because a concurrent commit changed the same files comes
back as the error's line naming the conflict, for the run to log, instead of failing a model whose data is
committed; every other error raises as it came. tests/materialization/test_run_loads.py runs the compaction
on Spark; a real concurrent conflict cannot be timed there, so the refusals are the formats' own texts."""
from __future__ import annotations

import pytest
from dbt_common.exceptions import DbtDatabaseError, DbtRuntimeError

from dbt.adapters.sparkload.impl import SparkloadAdapter

pytestmark = pytest.mark.fast

DELTA = ("org.apache.spark.SparkException: Job aborted\n"
         "io.delta.exceptions.ConcurrentDeleteDeleteException: [DELTA_CONCURRENT_DELETE_DELETE] ConcurrentDeleteDeleteException: "
         "This transaction attempted to delete one or more files that were deleted by a concurrent update\n  at ...")
ICEBERG = "org.apache.iceberg.exceptions.CommitFailedException: Cannot commit: stale metadata"


def adapter(raises=None) -> tuple:
    a = object.__new__(SparkloadAdapter)
    sent = []

    def execute(sql, *args, **kwargs):
        sent.append(sql)
        if raises is not None:
            raise raises

    a.execute = execute
    return a, sent


def test_compaction_conflict__a_refused_commit_returns_the_line_naming_the_conflict():
    for error, line in [(DbtDatabaseError(DELTA), DELTA.splitlines()[1]), (DbtRuntimeError(ICEBERG), ICEBERG)]:
        a, sent = adapter(error)
        assert a.sparkload_try_compaction("optimize `s`.`_sparkload_applied_loads`") == line.strip()
        assert sent == ["optimize `s`.`_sparkload_applied_loads`"]


def test_compaction_conflict__a_compaction_that_commits_returns_none():
    a, sent = adapter()
    assert a.sparkload_try_compaction("optimize `s`.`l`") is None and sent == ["optimize `s`.`l`"]


@pytest.mark.parametrize("error", [DbtDatabaseError("[TABLE_OR_VIEW_NOT_FOUND] The table `s`.`l` cannot be found"),
                                   DbtRuntimeError("io.delta.exceptions.DeltaAnalysisException: not a Delta table"),
                                   RuntimeError("io.delta.exceptions.ConcurrentAppendException, not from dbt")])
def test_compaction_conflict__any_other_error_raises(error):
    a, _ = adapter(error)
    with pytest.raises(type(error)):
        a.sparkload_try_compaction("optimize `s`.`l`")
