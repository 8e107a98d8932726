"""Loads landed through the real extractor for the materialization tests: `Stage` (and its `stage` fixture,
re-exported by the conftests of tests/materialization and tests/adapter)."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List

import pytest

import python_extract as sl


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
