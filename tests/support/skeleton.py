"""The walking skeleton's customers (tests/test_skeleton.py), reused wherever a test needs one small merge
pipeline: two loads, and the pipeline that lands them on the run's lakehouse."""
from __future__ import annotations

import python_extract as sl

LOAD_1 = [
    {"id": 1, "name": "Ann", "address": {"city": "Oslo"}},
    {"id": 2, "name": "Bob", "address": {"city": "Rome"}},
]
LOAD_2 = [
    {"id": 2, "name": "Bobby", "address": {"city": "Rome"}},
    {"id": 3, "name": "Cid", "address": {"city": "Lima"}},
]


def customers_pipeline(lakehouse, names):
    """The test's pipeline: its staging dataset on the run's lakehouse."""
    return sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)


def run_customers(pipeline, data):
    """One load of `data` into `customers`, merged by `id`."""
    return pipeline.run(data, table_name="customers", write_disposition="merge", primary_key="id")
