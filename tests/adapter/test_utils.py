"""dbt-tests-adapter `utils`: the cross-database macros (dbt-spark's tests/functional/adapter/utils/).

Every class whose whole check is "`dbt build` passes" runs inside one project (tests/support/adapter_merged_project.py): the same
seeds, models and equality tests, one dbt invocation. Classes with their own checks run alone.
"""
from __future__ import annotations

import pytest

from dbt.tests.adapter.utils.base_utils import BaseUtils
from dbt.tests.adapter.utils.data_types.test_type_bigint import BaseTypeBigInt
from dbt.tests.adapter.utils.data_types.test_type_boolean import BaseTypeBoolean
from dbt.tests.adapter.utils.data_types.test_type_float import BaseTypeFloat
from dbt.tests.adapter.utils.data_types.test_type_int import BaseTypeInt
from dbt.tests.adapter.utils.data_types.test_type_numeric import BaseTypeNumeric
from dbt.tests.adapter.utils.data_types.test_type_string import BaseTypeString
from dbt.tests.adapter.utils.data_types.test_type_timestamp import BaseTypeTimestamp
from dbt.tests.adapter.utils.test_any_value import BaseAnyValue
from dbt.tests.adapter.utils.test_array_append import BaseArrayAppend
from dbt.tests.adapter.utils.test_array_concat import BaseArrayConcat
from dbt.tests.adapter.utils.test_array_construct import BaseArrayConstruct
from dbt.tests.adapter.utils.test_bool_or import BaseBoolOr
from dbt.tests.adapter.utils.test_cast import BaseCast
from dbt.tests.adapter.utils.test_cast_bool_to_text import BaseCastBoolToText
from dbt.tests.adapter.utils.test_concat import BaseConcat
from dbt.tests.adapter.utils.test_current_timestamp import BaseCurrentTimestampNaive
from dbt.tests.adapter.utils.test_date import BaseDate
from dbt.tests.adapter.utils.test_date_spine import BaseDateSpine
from dbt.tests.adapter.utils.test_date_trunc import BaseDateTrunc
from dbt.tests.adapter.utils.test_dateadd import BaseDateAdd
from dbt.tests.adapter.utils.test_datediff import BaseDateDiff
from dbt.tests.adapter.utils.test_equals import BaseEquals
from dbt.tests.adapter.utils.test_escape_single_quotes import BaseEscapeSingleQuotesBackslash
from dbt.tests.adapter.utils.test_except import BaseExcept
from dbt.tests.adapter.utils.test_generate_series import BaseGenerateSeries
from dbt.tests.adapter.utils.test_get_intervals_between import BaseGetIntervalsBetween
from dbt.tests.adapter.utils.test_get_powers_of_two import BaseGetPowersOfTwo
from dbt.tests.adapter.utils.test_hash import BaseHash
from dbt.tests.adapter.utils.test_intersect import BaseIntersect
from dbt.tests.adapter.utils.test_last_day import BaseLastDay
from dbt.tests.adapter.utils.test_length import BaseLength
from dbt.tests.adapter.utils.test_listagg import BaseListagg
from dbt.tests.adapter.utils.test_null_compare import BaseMixedNullCompare, BaseNullCompare
from dbt.tests.adapter.utils.test_position import BasePosition
from dbt.tests.adapter.utils.test_replace import BaseReplace
from dbt.tests.adapter.utils.test_right import BaseRight
from dbt.tests.adapter.utils.test_safe_cast import BaseSafeCast
from dbt.tests.adapter.utils.test_split_part import BaseSplitPart
from dbt.tests.adapter.utils.test_string_literal import BaseStringLiteral
from dbt.tests.adapter.utils.test_validate_sql import BaseValidateSqlMethod

from ..support.adapter_merged_project import merged_files

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)

BUILD_ONLY = [
    BaseAnyValue, BaseBoolOr, BaseCast, BaseCastBoolToText, BaseConcat, BaseDate, BaseDateAdd, BaseDateDiff,
    BaseDateSpine, BaseDateTrunc, BaseEscapeSingleQuotesBackslash, BaseGenerateSeries,
    BaseGetIntervalsBetween, BaseGetPowersOfTwo, BaseHash, BaseLastDay, BaseLength, BaseListagg,
    BaseNullCompare, BasePosition, BaseReplace, BaseRight, BaseSafeCast, BaseSplitPart, BaseStringLiteral,
]
assert all(b.test_build_assert_equal is BaseUtils.test_build_assert_equal for b in BUILD_ONLY), "a class with its own checks"

# Spark SQL overrides of suite models, each with its reason:
SPARK_MODELS = {
    # Spark casts only ISO dates ('09/01/2023' is NULL); the suite branches its literals for postgres only
    "test_get_intervals_between.sql": """
select {{ get_intervals_between("'2023-09-01'", "'2023-09-12'", "day") }} as intervals, 11 as expected
""",
    # Iceberg has no NULL (void) column type, so a view of untyped NULLs cannot be stored; typed NULLs
    # test the same comparison
    "test_null_compare.sql": "select cast(null as int) as actual, cast(null as int) as expected",
}


class TestUtils(BaseUtils):
    @pytest.fixture(scope="class")
    def seeds(self):
        return merged_files(BUILD_ONLY, "seeds")

    @pytest.fixture(scope="class")
    def models(self):
        return {**merged_files(BUILD_ONLY, "models"), **SPARK_MODELS}


class TestMixedNullCompare(BaseMixedNullCompare):
    @pytest.fixture(scope="class")
    def models(self):
        # typed NULL: see SPARK_MODELS
        return {**merged_files([BaseMixedNullCompare], "models"),
                "test_mixed_null_compare.sql": "select 1 as actual, cast(null as int) as expected"}


class TestEquals(BaseEquals):
    pass


class TestExcept(BaseExcept):
    pass


class TestIntersect(BaseIntersect):
    pass


class TestArrayAppend(BaseArrayAppend):
    pass


class TestArrayConcat(BaseArrayConcat):
    pass


class TestArrayConstruct(BaseArrayConstruct):
    pass


class TestCurrentTimestamp(BaseCurrentTimestampNaive):
    pass


class TestValidateSqlMethod(BaseValidateSqlMethod):
    pass


class TestTypeBigInt(BaseTypeBigInt):
    pass


class TestTypeBoolean(BaseTypeBoolean):
    pass


class TestTypeFloat(BaseTypeFloat):
    # the seed's inferred type is double; type_float() is Spark's float (4 bytes), so the expected seed
    # is typed as dbt-spark's suite types it
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"seeds": {"+column_types": {"float_col": "float"}}}


class TestTypeInt(BaseTypeInt):
    # the seed's inferred type is bigint; type_int() is Spark's int (see TestTypeFloat)
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"seeds": {"+column_types": {"int_col": "int"}}}


class TestTypeNumeric(BaseTypeNumeric):
    pass


class TestTypeString(BaseTypeString):
    pass


class TestTypeTimestamp(BaseTypeTimestamp):
    pass
