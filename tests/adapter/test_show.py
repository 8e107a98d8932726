"""dbt-tests-adapter `dbt_show` (dbt-spark: tests/functional/adapter/dbt_show/)."""
from __future__ import annotations

import pytest

from dbt.tests.adapter.dbt_show.test_dbt_show import BaseShowDoesNotHandleDoubleLimit, BaseShowLimit, BaseShowSqlHeader
from dbt.tests.util import run_dbt
from dbt_common.exceptions import DbtRuntimeError

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)


class TestShowLimit(BaseShowLimit):
    pass


class TestShowSqlHeader(BaseShowSqlHeader):
    pass


class TestShowDoesNotHandleDoubleLimit(BaseShowDoesNotHandleDoubleLimit):
    DATABASE_ERROR_MESSAGE = "[PARSE_SYNTAX_ERROR] Syntax error at or near 'limit'"

    def test_double_limit_throws_syntax_error(self, project):
        # the suite looks for the message in pytest's shortened repr of the error, which keeps only
        # its start and end (where postgres puts it); Spark's message comes first, before the SQL
        with pytest.raises(DbtRuntimeError) as e:
            run_dbt(["show", "--limit", "1", "--inline", "select 1 limit 1"])
        assert self.DATABASE_ERROR_MESSAGE in str(e.value)
