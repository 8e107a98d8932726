"""The differential comparison of both sides' tables (dlt's and sparkload's), with system ids mapped: one
helper for the dbt differential (tests/parity: `compare`, over snapshots) and the extractor's
(tests/parity_extract: `differences`, over a case's staging tables with their column types).

A snapshot is `{table: [row dict, ...]}`; tests/parity normalizes values with `normal_value` (timestamps
as `ts:YYYY-MM-DD HH:MM:SS.ffffff` UTC, dates as `d:YYYY-MM-DD`, decimals as floats, JSON text parsed),
tests/parity_extract compares the values each side reads back as they are.
Random values never meet: `_dlt_load_id` becomes the load's label (L1, L2, ..., or the run's number), and
`_dlt_id`, `_dlt_parent_id`, `_dlt_root_id` become the content of the rows they point at, so what is
compared is which rows share an id and which parent each child row hangs from, not the ids themselves.
scd2 validity timestamps that are not given explicitly (load time) become T1, T2, ... in order.

Columns: data columns are compared over the union of both sides' columns (a column one side lacks
reads as NULL: dlt creates no column for values that were always NULL); system columns only where
both sides have them (sparkload's child tables carry `_dlt_load_id` and `_dlt_root_id`, which dlt's
have only under merge: dbt filters every table by load), so a child row's load is its root's.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

IDS = ("_dlt_id", "_dlt_parent_id", "_dlt_root_id")
SYSTEM = (*IDS, "_dlt_load_id")
Snapshot = Dict[str, List[Dict[str, Any]]]


def normal_value(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return "ts:" + v.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(v, dt.date):
        return "d:" + v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "b:" + bytes(v).hex()
    if isinstance(v, str) and v[:1] in "[{":
        try:
            return ("json", json.dumps(json.loads(v), sort_keys=True))
        except ValueError:
            return v
    if isinstance(v, (list, dict)):
        return ("json", json.dumps(v, sort_keys=True, default=str))
    return v


def timestamp_text(value: Any) -> Optional[str]:
    """A boundary or active-record timestamp as a scenario gives it, in the snapshot's form."""
    if value is None:
        return None
    if isinstance(value, str):
        import pendulum

        parsed = pendulum.parse(value)
        value = parsed if isinstance(parsed, dt.datetime) else dt.datetime.combine(parsed, dt.time(), tzinfo=dt.timezone.utc)
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return normal_value(value)


def _sort_key(x: Any) -> str:
    return repr(x)


class Canon:
    """The canonical multiset of one side's snapshot."""

    def __init__(self, snapshot: Snapshot, columns: Dict[str, Tuple[List[str], List[str]]],
                 load_labels: Dict[str, str], stamp_labels: Dict[str, str], validity: Set[str]):
        self.snapshot, self.columns = snapshot, columns
        self.load_labels, self.stamp_labels, self.validity = load_labels, stamp_labels, validity
        self.by_id: Dict[Any, List[Tuple[str, Dict[str, Any]]]] = {}
        for table, rows in snapshot.items():
            for row in rows:
                if row.get("_dlt_id") is not None:
                    self.by_id.setdefault(row["_dlt_id"], []).append((table, row))
        self._memo: Dict[Any, Any] = {}

    def ref(self, row_id: Any) -> Any:
        if row_id is None:
            return None
        if row_id not in self._memo:
            self._memo[row_id] = "<cycle>"
            rows = self.by_id.get(row_id)
            self._memo[row_id] = ("missing",) if not rows else tuple(sorted((self.content(t, r) for t, r in rows), key=_sort_key))
        return self._memo[row_id]

    def value(self, col: str, v: Any) -> Any:
        if col in self.validity and isinstance(v, str) and v in self.stamp_labels:
            return self.stamp_labels[v]
        return v

    def content(self, table: str, row: Dict[str, Any]) -> tuple:
        data, system = self.columns[table]
        out: List[Any] = [table]
        out += [(c, self.value(c, row.get(c))) for c in data]
        for c in system:
            if c == "_dlt_load_id":
                out.append((c, self.load_labels.get(row.get(c), row.get(c))))
            elif c in ("_dlt_parent_id", "_dlt_root_id"):
                out.append((c, self.ref(row.get(c))))
        return tuple(out)

    def table(self, table: str) -> Counter:
        shares = Counter(r.get("_dlt_id") for r in self.snapshot.get(table, []))
        return Counter(
            (self.content(table, r), shares[r.get("_dlt_id")] if r.get("_dlt_id") is not None else 0)
            for r in self.snapshot.get(table, [])
        )


def _columns(a: Snapshot, b: Snapshot, table: str) -> Tuple[List[str], List[str]]:
    def cols(snap: Snapshot) -> Set[str]:
        return {c for r in snap.get(table, []) for c in r}
    ca, cb = cols(a), cols(b)
    data = sorted(c for c in ca | cb if c not in SYSTEM)
    system = [c for c in SYSTEM if (c in ca or not a.get(table)) and (c in cb or not b.get(table)) and c != "_dlt_id"]
    return data, system


def stamp_labels(snapshot: Snapshot, validity: Set[str], explicit: Set[str]) -> Dict[str, str]:
    found = sorted({r[c] for rows in snapshot.values() for r in rows for c in validity
                    if isinstance(r.get(c), str) and r[c] not in explicit})
    return {v: f"T{i}" for i, v in enumerate(found, 1)}


def compare(dlt_snap: Snapshot, sl_snap: Snapshot, dlt_loads: Dict[str, str], sl_loads: Dict[str, str],
            validity: Iterable[str] = (), explicit_stamps: Iterable[Optional[str]] = ()) -> List[str]:
    """Differences between the two snapshots, as readable lines; empty when they are equal."""
    validity, explicit = set(validity), {s for s in explicit_stamps if s}
    tables = sorted(t for t in set(dlt_snap) | set(sl_snap) if dlt_snap.get(t) or sl_snap.get(t))
    columns = {t: _columns(dlt_snap, sl_snap, t) for t in set(dlt_snap) | set(sl_snap)}
    a = Canon(dlt_snap, columns, dlt_loads, stamp_labels(dlt_snap, validity, explicit), validity)
    b = Canon(sl_snap, columns, sl_loads, stamp_labels(sl_snap, validity, explicit), validity)
    diffs: List[str] = []
    for t in tables:
        ta, tb = a.table(t), b.table(t)
        if ta == tb:
            continue
        only_a, only_b = ta - tb, tb - ta
        diffs.append(f"table {t}: dlt {sum(ta.values())} rows, sparkload {sum(tb.values())} rows")
        for label, rows in (("only dlt", only_a), ("only sparkload", only_b)):
            for (content, shares), n in sorted(rows.items(), key=_sort_key)[:6]:
                diffs.append(f"  {label}{' x%d' % n if n > 1 else ''}: {show(content)}" + (f" (id shared by {shares})" if shares > 1 else ""))
    return diffs


def show(content: Any, depth: int = 0) -> str:
    """A row's content, readable: data columns, then its parent's data columns."""
    if not isinstance(content, tuple) or not content:
        return repr(content)
    table, *parts = content
    shown = []
    for part in parts:
        if not (isinstance(part, tuple) and len(part) == 2):
            continue
        col, v = part
        if col in ("_dlt_parent_id", "_dlt_root_id"):
            if col == "_dlt_parent_id" and depth < 1 and isinstance(v, tuple) and v and isinstance(v[0], tuple):
                shown.append(f"parent={show(v[0], depth + 1)}" + (f"+{len(v) - 1}" if len(v) > 1 else ""))
            continue
        if v is not None:
            shown.append(f"{col}={v!r}")
    return f"{table}({', '.join(shown)})"


def data_rows(snapshot: Snapshot, table: str, columns: Iterable[str]) -> List[tuple]:
    """A table's rows as sorted tuples of `columns` (for the `expect` of on-purpose scenarios)."""
    cols = list(columns)
    return sorted((tuple(r.get(c) for c in cols) for r in snapshot.get(table, [])), key=_sort_key)


# -- the extractor's differential: a case's staging tables, `{table: Table}` with `.rows` and `.types`


def case_tables(tables: Dict[str, Any], root: str) -> Dict[str, Any]:
    """The tables of the case whose root table is `root` (it and its child tables) that hold rows."""
    return {t: v for t, v in tables.items() if (t == root or t.startswith(root + "__")) and v.rows}


def column_types(tables: Dict[str, Any]) -> Dict[str, Dict[str, str]]:
    return {t: {c: k for c, k in v.types.items() if c not in SYSTEM} for t, v in sorted(tables.items())}


def differences(dlt_tables: Dict[str, Any], sl_tables: Dict[str, Any], root: str,
                dlt_runs: Dict[str, int], sl_runs: Dict[str, int]) -> List[str]:
    """What differs between the sides for the case whose root table is `root` (column types, then rows
    by `compare`, each load as its run's number); [] when identical."""
    theirs, ours = case_tables(dlt_tables, root), case_tables(sl_tables, root)
    found = []
    if column_types(theirs) != column_types(ours):
        found.append(f"columns: dlt {column_types(theirs)} != sparkload {column_types(ours)}")
    found += compare({t: v.rows for t, v in theirs.items()}, {t: v.rows for t, v in ours.items()},
                     _run_labels(theirs, dlt_runs), _run_labels(ours, sl_runs))
    return found


def _run_labels(tables: Dict[str, Any], runs: Dict[str, int]) -> Dict[str, str]:
    """Each load id of the tables as its run's number ("run ?" for a load of no known run)."""
    return {row["_dlt_load_id"]: f"run {runs.get(row['_dlt_load_id'], '?')}"
            for v in tables.values() for row in v.rows if row.get("_dlt_load_id") is not None}
