"""The count a differential suite prints at the end of the run: per suite, cases / identical /
differs-on-purpose / differs (tests/parity_extract against dlt, tests/parity_airbyte against the CDK)."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict

OUTCOMES = ("identical", "differs-on-purpose", "differs")


class Tally:
    def __init__(self, title: str):
        self.title = title
        self.counts: Dict[str, Dict[str, int]] = defaultdict(lambda: {"cases": 0, **dict.fromkeys(OUTCOMES, 0)})

    def record(self, suite: str, outcome: str) -> None:
        """Count one case of `suite`: identical | differs-on-purpose | differs."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome {outcome!r}: one of {OUTCOMES}")
        self.counts[suite]["cases"] += 1
        self.counts[suite][outcome] += 1

    def lines(self):
        return [f"{suite}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) for suite, counts in sorted(self.counts.items())]


# the two differentials' tallies: their conftests print them at the end of the run, their tests record into them
VS_DLT = Tally("extractor differential vs dlt 1.31")
VS_AIRBYTE = Tally("extractor differential vs airbyte-cdk 7")
record_vs_dlt = VS_DLT.record
record_vs_airbyte = VS_AIRBYTE.record
