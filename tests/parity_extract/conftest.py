"""The extractor differential against the real dlt 1.31 (duckdb): each case's outcome is tallied and the
run ends with one line per suite: cases / identical / differs-on-purpose / differs."""
from __future__ import annotations

import pytest

from ..conftest import add_summary
from ..support.tally import Tally

TALLY = Tally("extractor differential vs dlt 1.31")
record = TALLY.record


def pytest_sessionfinish(session):
    if TALLY.counts:
        add_summary(session.config, TALLY.title, TALLY.lines())


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("parity_extract")
