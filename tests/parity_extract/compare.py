"""Comparison of one case's tables on the two sides, with system ids mapped: every root row becomes a
tree of its values (its load as the run's number) and its child rows, linked through `_dlt_parent_id`,
so two sides agree when the same rows hang together, whatever random ids they drew.

On purpose, sparkload's child rows also carry `_dlt_load_id` and `_dlt_root_id` (dbt filters every table
by load): those columns are compared on root rows only, as the tree's links.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Tuple

from .sides import SYSTEM, Table


def case_tables(tables: Dict[str, Table], root: str) -> Dict[str, Table]:
    return {t: v for t, v in tables.items() if (t == root or t.startswith(root + "__")) and v.rows}


def column_types(tables: Dict[str, Table]) -> Dict[str, Dict[str, str]]:
    return {t: {c: k for c, k in v.types.items() if c not in SYSTEM} for t, v in sorted(tables.items())}


def _values(row: Dict[str, Any]) -> Tuple:
    return tuple(sorted((c, v) for c, v in row.items() if c not in SYSTEM and v is not None))


def trees(tables: Dict[str, Table], root: str, runs: Dict[str, int]) -> List[str]:
    """The root rows of `root` as sorted canonical trees (text)."""
    children: Dict[str, List[Tuple[str, Dict[str, Any]]]] = {}
    for table, meta in tables.items():
        if table != root:
            for row in meta.rows:
                children.setdefault(row["_dlt_parent_id"], []).append((table, row))

    def node(table: str, row: Dict[str, Any]) -> str:
        kids = sorted(node(t, r) for t, r in children.get(row["_dlt_id"], []))
        return repr((table, _values(row), kids))

    out = []
    for row in tables[root].rows if root in tables else []:
        out.append(repr((runs.get(row.get("_dlt_load_id"), "?"), node(root, row))))
    return sorted(out)


def differences(dlt_tables: Dict[str, Table], sl_tables: Dict[str, Table], root: str,
                dlt_runs: Dict[str, int], sl_runs: Dict[str, int]) -> List[str]:
    """What differs between the sides for the case whose root table is `root`; [] when identical."""
    theirs, ours = case_tables(dlt_tables, root), case_tables(sl_tables, root)
    found = []
    if column_types(theirs) != column_types(ours):
        found.append(f"columns: dlt {column_types(theirs)} != sparkload {column_types(ours)}")
    for table in sorted(set(theirs) | set(ours)):
        a = Counter(_values(r) for r in theirs[table].rows) if table in theirs else Counter()
        b = Counter(_values(r) for r in ours[table].rows) if table in ours else Counter()
        if a != b:
            found.append(f"rows of {table}: only dlt {list((a - b).elements())[:3]}, only sparkload {list((b - a).elements())[:3]}")
    if not found and trees(theirs, root, dlt_runs) != trees(ours, root, sl_runs):
        found.append(f"links or loads differ: dlt {trees(theirs, root, dlt_runs)[:2]} sparkload {trees(ours, root, sl_runs)[:2]}")
    return found
