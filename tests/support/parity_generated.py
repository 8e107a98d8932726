"""Random load sequences for delete-insert, upsert and scd2 with nested lists, drawn by hypothesis.

They join the differential batch (one dbt run per load step for everything), so hypothesis only
draws the examples here and does not shrink: a differing example is printed as a scenario literal to
paste into cases/. `SPARKLOAD_PARITY_EXAMPLES` sets how many (CI default 4), and
`SPARKLOAD_PARITY_SEED` draws another set (default: the same set every run).

Kept deterministic in dlt: at most one row per primary key in a delete-insert or upsert load (dlt's
pick among duplicates is arbitrary), duplicates only under merge_key and scd2.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from .parity_scenario import L, Scenario, flag, merge, scd2, upsert

VALUES = st.sampled_from(["a", "b", "c"])
TAGS = st.lists(st.integers(1, 3), max_size=3)
SUBS = st.lists(st.fixed_dictionaries({"k": st.sampled_from(["x", "y"]), "vals": st.lists(st.integers(1, 2), max_size=2)}), max_size=2)


@st.composite
def records(draw, with_flag: bool) -> Dict[str, Any]:
    # lists always present (maybe empty): dlt tells an absent list from an empty one, staging cannot
    rec: Dict[str, Any] = {"id": draw(st.integers(1, 4)), "v": draw(VALUES), "tags": draw(TAGS),
                           "subs": draw(SUBS) if draw(st.integers(0, 2)) == 0 else []}
    if with_flag and draw(st.integers(0, 3)) == 0:
        rec["deleted"] = True
    return rec


@st.composite
def scenarios(draw) -> Scenario:
    kind = draw(st.sampled_from(["delete-insert", "delete-insert-mk", "upsert", "scd2", "scd2-mk"]))
    with_flag = kind != "scd2" and kind != "scd2-mk" and draw(st.booleans())
    columns = flag() if with_flag else None
    hints = {"delete-insert": merge(pk="id", columns=columns), "delete-insert-mk": merge(mk="id", columns=columns),
             "upsert": upsert(pk="id", columns=columns), "scd2": scd2(), "scd2-mk": scd2(mk="id")}[kind]
    # one row per key where dlt would pick one arbitrarily; no identical rows in a scd2 load (dlt makes
    # each an active version, sparkload one: on purpose)
    unique = (lambda r: r["id"]) if kind in ("delete-insert", "upsert") else (lambda r: repr(sorted(r.items())))
    loads: List[L] = []
    present: set = set()
    for k in range(draw(st.integers(1, 4))):
        rows = draw(st.lists(records(with_flag), min_size=0 if k else 1, max_size=5, unique_by=unique))
        for r in rows:
            if with_flag:
                # an upsert delete row for a key the table lacks: dlt inserts it, sparkload does not (on purpose)
                if kind == "upsert" and r.get("deleted") and r["id"] not in present:
                    r["deleted"] = False
                r.setdefault("deleted", False)
            (present.discard if r.get("deleted") else present.add)(r["id"])
        loads.append(L(rows, boundary=f"2024-02-{k + 1:02d}") if kind.startswith("scd2") else L(rows))
    return Scenario("generated", hints, loads)


def generate(n: int, draw_seed: int) -> List[Scenario]:
    found: List[Scenario] = []

    @seed(draw_seed)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(scenarios())
    def collect(s: Scenario) -> None:
        found.append(s)

    collect()
    out = []
    for i, s in enumerate(found[:n]):
        s.name = f"gen_{draw_seed}_{i:03d}"
        out.append(s)
    return out


def as_literal(s: Scenario) -> str:
    """The scenario as a line for cases/ (hints as dlt writes them)."""
    loads = ", ".join(f"L({load.rows!r}" + (f", boundary={load.boundary!r}" if isinstance(load.boundary, str) else "") + ")"
                      for load in s.loads)
    return f"Scenario({s.name!r}, {s.hints!r}, [{loads}])"


GENERATED = generate(int(os.environ.get("SPARKLOAD_PARITY_EXAMPLES", "4")), int(os.environ.get("SPARKLOAD_PARITY_SEED", "0")))
