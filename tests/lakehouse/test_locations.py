"""A table's location read off `describe table extended` (python_extract/lakehouse/locations.py), on the rows
Spark 3.5 answers: column rows first, then the detailed section. Fast: a stand-in session answers the rows."""
from __future__ import annotations

from pathlib import Path

import pytest

from python_extract.lakehouse.locations import local_folder, table_location

pytestmark = pytest.mark.fast


class _Answers:
    def __init__(self, rows):
        self.rows, self.asked = rows, []

    def sql(self, text):
        self.asked.append(text)
        rows = self.rows

        class _Result:
            def collect(self):
                return rows
        return _Result()


def _described(location, columns=(("id", "bigint", None),)):
    return [*columns, ("", "", ""), ("# Detailed Table Information", "", ""), ("Name", "spark_catalog.raw.t", ""),
            ("Type", "MANAGED", ""), ("Location", location, ""), ("Provider", "delta", "")]


def test_the_location_is_the_detailed_sections_not_a_column_named_location():
    spark = _Answers(_described("file:/lake/warehouse/raw.db/t", columns=(("Location", "string", None),)))
    assert table_location(spark, "raw.t") == "file:/lake/warehouse/raw.db/t"
    assert spark.asked == ["describe table extended raw.t"]


def test_a_table_without_a_location__is_an_empty_location_and_no_local_folder():
    spark = _Answers([("id", "bigint", None)])
    assert table_location(spark, "raw.t") == ""
    assert local_folder("") is None


@pytest.mark.parametrize("location, folder", [
    ("file:/lake/warehouse/raw.db/odd%20name", Path("/lake/warehouse/raw.db/odd name")),
    ("/lake/t", Path("/lake/t")),
    ("s3a://bucket/raw/t", None),
])
def test_local_folder(location, folder):
    assert local_folder(location) == folder
