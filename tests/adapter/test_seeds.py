"""Seeds load exactly (issue 13): a seed's table holds the values dbt read from the CSV, on both targets.

dbt reads a blank cell, a quoted empty cell and `null` as NULL (its CSV reader's rule, the same on every
adapter); everything else is text to keep as written, including the word None, quotes, backslashes,
newlines inside a quoted cell and unicode; decimals keep every digit and timestamps their microseconds
(dbt-spark's bindings made them floats and milliseconds). Typed columns (inferred, and `column_types`) hold values of
their types. The embedded method loads through a DataFrame; the thrift method through bound text
values and the same checked casts in SQL.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from dbt.tests.util import run_dbt

pytestmark = [pytest.mark.default_format, pytest.mark.each_format]  # the catalog's answers are the format's own

TRICKY_CSV = '''id,name,note,amount,day,at,flag
1,O'Brien,"a ""quoted"" word",1.50,2024-01-02,2024-01-02T03:04:05.123456,true
2,,back\\slash and \\n not a newline,,,,
3,None,"line one
line two",-0.25,2024-02-29,2024-02-29T23:59:59,false
4,Ærøskøbing 東京 🚀,null,123456789012345678.91,,,
5,"",it's,,,,
'''

EXPECTED = [
    (1, "O'Brien", 'a "quoted" word', Decimal("1.50"), dt.date(2024, 1, 2), "2024-01-02 03:04:05.123456", True),
    (2, None, "back\\slash and \\n not a newline", None, None, None, None),
    (3, "None", "line one\nline two", Decimal("-0.25"), dt.date(2024, 2, 29), "2024-02-29 23:59:59", False),
    (4, "Ærøskøbing 東京 🚀", None, Decimal("123456789012345678.91"), None, None, None),
    (5, None, "it's", None, None, None, None),
]

BAD_CSV = "id,n\n1,7\n2,seven\n"


def _table(spark, project, name):
    return spark.sql(f"select id, name, note, amount, day, cast(at as string) as at, flag "
                     f"from `{project.test_schema}`.`{name}` order by id").collect()


@pytest.mark.over_the_wire
class TestSeedsLoadExactly:
    @pytest.fixture(scope="class")
    def seeds(self):
        return {"tricky.csv": TRICKY_CSV}

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"seeds": {"+column_types": {"amount": "decimal(20,2)"}}}

    def test_seed__nulls_quotes_backslashes_unicode_and_types_round_trip(self, project, spark):
        run_dbt(["seed"])
        assert [tuple(r) for r in _table(spark, project, "tricky")] == EXPECTED
        types = {f.name: f.dataType.simpleString() for f in spark.table(f"`{project.test_schema}`.tricky").schema}
        assert types == {"id": "bigint", "name": "string", "note": "string", "amount": "decimal(20,2)",
                         "day": "date", "at": "timestamp", "flag": "boolean"}

        # a second seed run (full refresh of the table) leaves the same rows
        run_dbt(["seed", "--full-refresh"])
        assert [tuple(r) for r in _table(spark, project, "tricky")] == EXPECTED


@pytest.mark.over_the_wire
class TestSeedValueThatDoesNotFitItsType:
    @pytest.fixture(scope="class")
    def seeds(self):
        return {"bad.csv": BAD_CSV}

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"seeds": {"+column_types": {"n": "int"}}}

    def test_seed__value_not_of_its_column_type_fails_naming_seed_and_column(self, project, spark):
        results = run_dbt(["seed"], expect_pass=False)
        assert "seed bad: column n has value 'seven', which is not a int" in results[0].message
        assert spark.sql(f"select count(*) from `{project.test_schema}`.bad").collect()[0][0] == 0
