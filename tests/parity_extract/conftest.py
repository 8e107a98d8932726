"""The extractor differential against the real dlt 1.31 (duckdb): each case's outcome is tallied and the
run ends with one line per suite: cases / identical / differs-on-purpose / differs."""
from __future__ import annotations

import pytest

from ..support.summary import add_summary
from ..support.tally import VS_DLT as TALLY


def pytest_sessionfinish(session):
    if TALLY.counts:
        add_summary(session.config, TALLY.title, TALLY.lines())


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("parity_extract")
