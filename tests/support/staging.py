"""The extractor's side of a test: a pipeline of the test on the run's lakehouse (`pipe` fixture, re-exported
by the conftests of tests/sources and tests/airbyte), and readers of its staging tables, loads and stored state."""
from __future__ import annotations

from pathlib import Path
from typing import Any, List, Tuple
from urllib.parse import unquote, urlparse

import pytest

import python_extract as sl
from python_extract.load import spark_loader


@pytest.fixture
def pipe(lakehouse, names, tmp_path) -> sl.Pipeline:
    return sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse,
                       pipelines_dir=str(tmp_path / "pipelines"))


def staged(pipe: sl.Pipeline, table: str, *columns: str) -> List[Tuple[Any, ...]]:
    """Rows of a staging table as sorted tuples of `columns`."""
    cols = ", ".join(f"`{c}`" for c in columns)
    rows = pipe.spark.sql(f"select {cols} from `{pipe.dataset_name}`.`{table}`").collect()
    return sorted(tuple(r) for r in rows)


def cursor(pipe: sl.Pipeline, resource: str, path: str, source: str = None) -> Any:
    """The stored last value of a resource's cursor, as restored from the destination."""
    pipe.sync_destination()
    rstate = pipe.state["sources"][source or pipe.pipeline_name]["resources"][resource]
    return rstate["incremental"][path]["last_value"]


def loads(pipe: sl.Pipeline) -> List[str]:
    if not pipe.spark.catalog.tableExists(f"{pipe.dataset_name}._dlt_loads"):
        return []
    return [r["load_id"] for r in pipe.spark.sql(f"select load_id from `{pipe.dataset_name}`._dlt_loads order by load_id").collect()]


def data_files(pipe: sl.Pipeline, table: str, metadata: str = "files") -> List[Path]:
    """Local paths of the data files of an Iceberg staging table: its current snapshot's (`files`) or
    every snapshot's (`all_data_files`)."""
    rows = pipe.spark.sql(f"select file_path from `{pipe.dataset_name}`.`{table}`.{metadata}").collect()
    return [Path(unquote(urlparse(r["file_path"]).path)) for r in rows]


def unregistered_folders(pipe: sl.Pipeline, table: str) -> List[str]:
    """Folders of linked package files in the table's data folder that no snapshot references."""
    data_dir = spark_loader._local_data_dir(pipe.spark, f"`{pipe.dataset_name}`.`{table}`")
    referenced = {f.parent.name for f in data_files(pipe, table, "all_data_files")}
    return sorted(d.name for d in data_dir.glob("load-*") if d.name not in referenced)
