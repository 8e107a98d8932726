"""A differential scenario: a dlt resource's hints and an ordered list of loads of records, run
through the real dlt (duckdb) and through sparkload (extractor -> staging -> `dbt run`).

    S("di_pk_update", merge(pk="id"),
      [{"id": 1, "v": "a"}],
      [{"id": 1, "v": "b"}])

A load is a list of records, or `L(records, hints=..., boundary=..., fails=True)` to change the hints
from this load on (a disposition or strategy switch), give an scd2 load its boundary timestamp, or
say that the load must fail on both sides. `on_purpose="why"` marks a scenario whose sparkload result
differs from dlt's on purpose (a dlt bug we fix); `expect` then gives sparkload's root table after
the last load (data columns, as sorted tuples of `expect_columns`), so the fixed behaviour is
asserted too. `item` names the issue item a scenario exercises (reported, not interpreted).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

Records = List[Dict[str, Any]]
_UNSET = object()


@dataclass
class L:
    """One load: its records, hints that change from this load on, its scd2 boundary, whether it fails."""
    rows: Records
    hints: Dict[str, Any] = field(default_factory=dict)
    boundary: Any = _UNSET
    fails: bool = False


@dataclass
class Scenario:
    name: str
    hints: Dict[str, Any]
    loads: List[L]
    table: str = "items"
    on_purpose: Optional[str] = None
    expect: Optional[List[tuple]] = None
    expect_columns: Sequence[str] = ()
    item: Optional[str] = None

    def hints_at(self, k: int) -> Dict[str, Any]:
        """The resource hints of load `k` (0-based), with its scd2 boundary in the disposition dict."""
        hints = copy.deepcopy(self.hints)
        for load in self.loads[: k + 1]:
            hints.update(copy.deepcopy(load.hints))
        load = self.loads[k]
        wd = hints.get("write_disposition")
        if load.boundary is not _UNSET and isinstance(wd, dict):
            wd["boundary_timestamp"] = load.boundary
        return hints


def S(name: str, hints: Dict[str, Any], *loads: Union[Records, L], **kw: Any) -> Scenario:
    return Scenario(name, hints, [x if isinstance(x, L) else L(list(x)) for x in loads], **kw)


# -- hint builders, spelled as a dlt user writes them -------------------------------------------------

def _keys(pk: Any = None, mk: Any = None, columns: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if pk is not None:
        out["primary_key"] = pk
    if mk is not None:
        out["merge_key"] = mk
    if columns:
        out["columns"] = columns
    return out


def append(**kw: Any) -> Dict[str, Any]:
    return {"write_disposition": "append", **_keys(**kw)}


def replace(**kw: Any) -> Dict[str, Any]:
    return {"write_disposition": "replace", **_keys(**kw)}


def merge(strategy: Optional[str] = None, pk: Any = None, mk: Any = None,
          columns: Optional[Dict[str, Any]] = None, **options: Any) -> Dict[str, Any]:
    """`merge(pk="id")` is dlt's `write_disposition="merge", primary_key="id"`; a strategy or options
    make it the dict form `{"disposition": "merge", "strategy": ..., **options}`."""
    wd: Any = "merge"
    if strategy is not None or options:
        wd = {"disposition": "merge", **({"strategy": strategy} if strategy else {}), **options}
    return {"write_disposition": wd, **_keys(pk, mk, columns)}


def scd2(mk: Any = None, columns: Optional[Dict[str, Any]] = None, pk: Any = None, **options: Any) -> Dict[str, Any]:
    return merge("scd2", pk=pk, mk=mk, columns=columns, **options)


def upsert(pk: Any = None, columns: Optional[Dict[str, Any]] = None, mk: Any = None, **options: Any) -> Dict[str, Any]:
    return merge("upsert", pk=pk, mk=mk, columns=columns, **options)


def flag(col: str = "deleted", data_type: Optional[str] = "bool") -> Dict[str, Any]:
    """Column hints marking `col` as the hard_delete column."""
    return {col: {"hard_delete": True, **({"data_type": data_type} if data_type else {})}}


def sort(col: str = "seq", order: str = "desc") -> Dict[str, Any]:
    return {col: {"dedup_sort": order}}


def boundaries(*stamps: Any) -> List[Any]:
    return list(stamps)


def with_boundaries(scenario: Scenario, stamps: Sequence[Any]) -> Scenario:
    for load, stamp in zip(scenario.loads, stamps):
        load.boundary = stamp
    return scenario


# -- what a sparkload model is configured with, from the same dlt hints -------------------------------

SCD2_OPTIONS = ("validity_column_names", "active_record_timestamp", "boundary_timestamp", "row_version_column_name")


def model_config(hints: Dict[str, Any]) -> Dict[str, Any]:
    """The `config(materialized='sparkload', ...)` keys equivalent to dlt resource hints."""
    wd = hints.get("write_disposition", "append")
    cfg: Dict[str, Any] = {}
    if isinstance(wd, dict):
        cfg["write_disposition"] = wd["disposition"]
        if wd.get("strategy"):
            cfg["strategy"] = wd["strategy"]
        for key in (*SCD2_OPTIONS, "deduplicated"):
            if key in wd and (key != "boundary_timestamp" or wd[key] is not None):
                cfg[key] = wd[key]
    else:
        cfg["write_disposition"] = wd
    for key in ("primary_key", "merge_key"):
        if hints.get(key) is not None:
            cfg[key] = hints[key]
    for col, col_hints in (hints.get("columns") or {}).items():
        if col_hints.get("hard_delete"):
            cfg["hard_delete"] = col
        if col_hints.get("dedup_sort"):
            cfg["dedup_sort"] = {col: col_hints["dedup_sort"]}
    return cfg


def dated(*loads: Union[Records, L], start: int = 1) -> List[L]:
    """scd2 loads with boundaries 2024-01-01, 2024-01-02, ... (one day per load)."""
    out = []
    for k, x in enumerate(loads):
        load = x if isinstance(x, L) else L(list(x))
        if load.boundary is _UNSET:
            load.boundary = f"2024-01-{start + k:02d}"
        out.append(load)
    return out


def SD(name: str, hints: Dict[str, Any], *loads: Union[Records, L], **kw: Any) -> Scenario:
    """An scd2 scenario whose loads get one boundary per day (dated)."""
    return Scenario(name, hints, dated(*loads), **kw)
