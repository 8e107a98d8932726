"""The extractor differential against the real airbyte-cdk 7 (its declarative `DatetimeBasedCursor`): each
case's outcome is tallied and the run ends with one line per suite: cases / identical / differs-on-purpose /
differs."""
from __future__ import annotations

import pytest

from ..support.summary import add_summary
from ..support.tally import VS_AIRBYTE as TALLY


def pytest_sessionfinish(session):
    if TALLY.counts:
        add_summary(session.config, TALLY.title, TALLY.lines())


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("parity_airbyte")
