"""The extractor differential against the real airbyte-cdk 7 (its declarative `DatetimeBasedCursor`): each
case's outcome is tallied and the run ends with one line per suite: cases / identical / differs-on-purpose /
differs."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict

import pytest

from ..conftest import add_summary

TALLY: Dict[str, Dict[str, int]] = defaultdict(lambda: {"cases": 0, "identical": 0, "differs-on-purpose": 0, "differs": 0})


def record(suite: str, outcome: str) -> None:
    """Count one case of `suite`: identical | differs-on-purpose | differs."""
    TALLY[suite]["cases"] += 1
    TALLY[suite][outcome] += 1


def pytest_sessionfinish(session):
    if TALLY:
        add_summary(session.config, "extractor differential vs airbyte-cdk 7", [
            f"{suite}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) for suite, counts in sorted(TALLY.items())])


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("parity_airbyte")
