"""dbt-tests-adapter `unit_testing` (dbt-spark: tests/functional/adapter/unit_testing/)."""
from __future__ import annotations

import pytest

from dbt.tests.adapter.unit_testing.test_case_insensitivity import BaseUnitTestCaseInsensivity
from dbt.tests.adapter.unit_testing.test_invalid_input import BaseUnitTestInvalidInput
from dbt.tests.adapter.unit_testing.test_quoted_reserved_word_column_names import (
    BaseUnitTestQuotedReservedWordColumnNames,
)
from dbt.tests.adapter.unit_testing.test_types import BaseUnitTestingTypes

from ..support.adapter_merged_project import merged_files

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)


class TestUnitTestingTypes(BaseUnitTestingTypes):
    @pytest.fixture
    def data_types(self):
        # sql_value, yaml_value: Spark's literals for the types the suite checks
        return [
            ["1", "1"],
            ["2.0", "2.0"],
            ["'12345'", "12345"],
            ["'string'", "string"],
            ["true", "true"],
            ["date '2011-11-11'", "2011-11-11"],
            ["timestamp '2013-11-03 00:00:00-0'", "2013-11-03 00:00:00-0"],
            ["array(1, 2, 3)", "'array(1, 2, 3)'"],
            ["map('10', 't', '15', 'f', '20', NULL)", """'map("10", "t", "15", "f", "20", NULL)'"""],
            ["named_struct('a', 1, 'b', 'b', 'c', array(1, 2, 3))",
             """'named_struct("a", 1, "b", "b", "c", array(1, 2, 3))'"""],
        ]


class TestUnitTestCaseInsensitivity(BaseUnitTestCaseInsensivity):
    pass


class TestUnitTestInvalidInput(BaseUnitTestInvalidInput):
    pass


class TestUnitTestQuotedReservedWordColumnNames(BaseUnitTestQuotedReservedWordColumnNames):
    @pytest.fixture(scope="class")
    def models(self):
        # Spark quotes identifiers with backticks ("GROUP" is a string literal there)
        models = merged_files([BaseUnitTestQuotedReservedWordColumnNames], "models")
        return {**models, "my_upstream_model.sql": "select 1 as `GROUP`"}
