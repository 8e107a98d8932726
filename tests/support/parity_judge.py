"""The verdict on each scenario, from both sides' results: identical, differs-on-purpose or differs.

After every load: both sides failed or both succeeded; a failed load left its side's tables as they
were; and the two sides' tables are equal (compare.py). An on-purpose scenario must differ from dlt
and give sparkload's expected root table (`expect`); if it stopped differing, the mark is stale.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .compare import compare, data_rows, timestamp_text
from .parity_scenario import Scenario

IDENTICAL, ON_PURPOSE, DIFFERS = "identical", "differs-on-purpose", "differs"


@dataclass
class Verdict:
    scenario: Scenario
    kind: str
    problems: List[str] = field(default_factory=list)

    def report(self) -> str:
        return f"{self.scenario.name}: {self.kind}" + "".join(f"\n  {p}" for p in self.problems)


def _validity(s: Scenario) -> List[str]:
    names = {"_dlt_valid_from", "_dlt_valid_to"}
    for k in range(len(s.loads)):
        wd = s.hints_at(k).get("write_disposition")
        if isinstance(wd, dict) and wd.get("validity_column_names"):
            names |= set(wd["validity_column_names"])
    return sorted(names)


def _stamps(s: Scenario) -> List[Optional[str]]:
    out = []
    for k, load in enumerate(s.loads):
        wd = s.hints_at(k).get("write_disposition")
        if isinstance(wd, dict):
            for key in ("boundary_timestamp", "active_record_timestamp"):
                if wd.get(key) is not None:
                    try:
                        out.append(timestamp_text(wd[key]))
                    except Exception:  # noqa: BLE001 - an invalid timestamp is a scenario of its own
                        pass
    return out


def judge(s: Scenario, dlt_steps: List[dict], sl_steps: list) -> Verdict:
    problems: List[str] = []
    dlt_loads: Dict[str, str] = {}
    sl_loads: Dict[str, str] = {}
    validity, stamps = _validity(s), _stamps(s)
    prev_dlt: dict = {}
    prev_sl: dict = {}
    for k, load in enumerate(s.loads):
        label = f"load {k + 1}"
        if k >= len(dlt_steps) or k >= len(sl_steps):
            problems.append(f"{label}: no result (dlt {len(dlt_steps)} steps, sparkload {len(sl_steps)} steps)")
            break
        d, p = dlt_steps[k], sl_steps[k]
        for lid in d["load_ids"]:
            dlt_loads[lid] = f"L{k + 1}"
        if p.load_id:
            sl_loads[p.load_id] = f"L{k + 1}"
        if bool(d["error"]) != bool(p.error):
            problems.append(f"{label}: dlt {'failed: ' + d['error'] if d['error'] else 'succeeded'}; "
                            f"sparkload {'failed: ' + p.error if p.error else 'succeeded'}")
        elif load.fails and not d["error"]:
            problems.append(f"{label}: the scenario says this load fails, but both sides succeeded")
        if d["error"] and compare(prev_dlt, d["tables"], dlt_loads, dlt_loads, validity, stamps):
            problems.append(f"{label}: dlt's failed load changed its tables")
        if p.error and compare(prev_sl, p.tables, sl_loads, sl_loads, validity, stamps):
            problems.append(f"{label}: sparkload's failed load changed its tables")
        diffs = compare(d["tables"], p.tables, dlt_loads, sl_loads, validity, stamps)
        if diffs:
            problems.append(f"{label}: tables differ")
            problems += ["  " + line for line in diffs]
        prev_dlt, prev_sl = d["tables"], p.tables
    if s.on_purpose is None:
        return Verdict(s, DIFFERS if problems else IDENTICAL, problems)
    if not problems:
        return Verdict(s, DIFFERS, [f"marked on purpose ({s.on_purpose}) but identical to dlt: the mark is stale"])
    if s.expect is not None:
        got = data_rows(sl_steps[-1].tables, s.table, s.expect_columns) if sl_steps else None
        if got != sorted(s.expect, key=repr):
            return Verdict(s, DIFFERS, [f"on purpose ({s.on_purpose}), but sparkload's {s.table} is {got}, "
                                        f"expected {sorted(s.expect, key=repr)}"] + problems)
    return Verdict(s, ON_PURPOSE, problems)
