"""Random load sequences (tests/support/parity_generated.py) through the real dlt and through sparkload; a differing
example prints its scenario literal, to keep as a case."""
from __future__ import annotations

import pytest

from ..support.parity_generated import GENERATED, as_literal
from ..support.parity_judge import DIFFERS


@pytest.mark.parametrize("scenario", GENERATED, ids=[s.name for s in GENERATED])
def test_generated_loads_match_dlt(scenario, parity):
    verdict = parity[scenario.name]
    assert verdict.kind != DIFFERS, f"{verdict.report()}\nas a case: {as_literal(scenario)}"
