"""Fixtures of the materialization tests: loads landed through the real extractor, dbt run through the
`dbt` fixture (tests/conftest.py), tables read back through the `spark` fixture.

`TARGETS` are the dbt targets every test here runs on; `PACKAGE_TARGETS` add `spark_session` (plain
dbt-spark, the package without the adapter) for a representative set. To run them all over another
target (say `thrift`), add it here.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Dict, Iterable, List, Optional, Sequence

import pytest

import python_extract as sl

# thrift: the package alone over the wire (type: spark), through the run's thrift server
TARGETS = ("embedded", "thrift")
PACKAGE_TARGETS = ("embedded", "spark_session", "thrift")


class Stage:
    """The staging dataset of one test: `load(rows)` lands one load through the extractor and returns
    its load id; `labels()` maps each load's `_dlt_loads.inserted_at` to 'L1', 'L2', ... in load order."""

    def __init__(self, spark, lakehouse, names):
        self.spark, self.names = spark, names
        self.pipeline = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)
        self.load_ids: List[str] = []

    def load(self, rows: Iterable[Dict[str, Any]], table: str = "items", **hints: Any) -> str:
        info = self.pipeline.run(list(rows), table_name=table, write_disposition="merge", **hints)
        assert info.load_id, f"no load package for {table}"
        self.load_ids.append(info.load_id)
        return info.load_id

    def labels(self) -> Dict[Any, str]:
        rows = self.spark.sql(f"select load_id, inserted_at from {self.names.staging}._dlt_loads").collect()
        at = {r["load_id"]: r["inserted_at"] for r in rows}
        return {at[load_id]: f"L{i}" for i, load_id in enumerate(self.load_ids, 1)}

    def statuses(self) -> List[int]:
        rows = self.spark.sql(f"select load_id, status from {self.names.staging}._dlt_loads").collect()
        status = {r["load_id"]: r["status"] for r in rows}
        return [status[load_id] for load_id in self.load_ids]


@pytest.fixture
def stage(spark, lakehouse, names) -> Stage:
    return Stage(spark, lakehouse, names)


def table(spark, relation: str, columns: str, labels: Optional[Dict[Any, str]] = None) -> List[tuple]:
    """The whole table as sorted tuples of `columns`; timestamps found in `labels` read as their label."""
    def value(v):
        return labels.get(v, v) if labels and isinstance(v, dt.datetime) else v
    rows = spark.sql(f"select {columns} from {relation}").collect()
    return sorted((tuple(value(v) for v in r) for r in rows), key=lambda t: tuple((x is None, str(x)) for x in t))


def rows_of(*rows: Sequence[Any]) -> List[tuple]:
    """Expected table rows, sorted as `table` sorts them."""
    return sorted((tuple(r) for r in rows), key=lambda t: tuple((x is None, str(x)) for x in t))
