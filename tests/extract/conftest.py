"""Fixtures of the extractor's scenario tests: a pipeline per test (its own staging dataset and working
directory on the shared lakehouse). Readers of staging tables and stored state: tests/support/staging.py."""
from __future__ import annotations

import pytest

import python_extract as sl


@pytest.fixture
def make_pipeline(lakehouse, names, tmp_path):
    """A pipeline of this test; `fresh=True` gives it an empty working directory (a new machine)."""
    made = {"n": 0}

    def make(fresh: bool = False, name: str = None) -> sl.Pipeline:
        made["n"] += fresh
        return sl.pipeline(pipeline_name=name or names.staging, dataset_name=names.staging, lakehouse=lakehouse,
                           pipelines_dir=str(tmp_path / f"pipelines_{made['n']}"))

    return make


@pytest.fixture
def pipe(make_pipeline) -> sl.Pipeline:
    return make_pipeline()
