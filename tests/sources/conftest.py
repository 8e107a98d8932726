"""Fixtures of the source-plugin tests: a pipeline per test on the shared lakehouse, and the shop API."""
from __future__ import annotations

from typing import Any, List, Tuple

import pytest

import python_extract as sl

from .api_server import ApiServer, ShopApi


@pytest.fixture
def pipe(lakehouse, names, tmp_path) -> sl.Pipeline:
    return sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse,
                       pipelines_dir=str(tmp_path / "pipelines"))


@pytest.fixture
def api():
    with ApiServer(ShopApi()) as served:
        yield served


def staged(pipe: sl.Pipeline, table: str, *columns: str) -> List[Tuple[Any, ...]]:
    cols = ", ".join(f"`{c}`" for c in columns)
    return sorted(tuple(r) for r in pipe.spark.sql(f"select {cols} from `{pipe.dataset_name}`.`{table}`").collect())
