"""Incremental cases: one resource generator per case, run several times in a row; each run yields the
rows listed for it. The generator runs as a dlt resource with `dlt.sources.incremental` and as a
sparkload resource with `sl.incremental` (same arguments); each run must land the same rows, read the
same number of rows from the generator (row_order stops it early) and leave the same cursor state.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

UTC = dt.timezone.utc
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)


@dataclass
class Case:
    name: str
    runs: List[List[Any]]            # the rows each run's generator yields, one by one
    cursor: str = "ts"
    options: Dict[str, Any] = field(default_factory=dict)   # incremental(...) keyword arguments
    hints: Dict[str, Any] = field(default_factory=dict)     # resource hints (primary_key)
    pages: bool = False              # yield each run's rows as one page instead of one by one
    arrow: bool = False              # yield each run's rows as one Arrow table
    fails: Optional[str] = None      # both sides must fail every run (a word of the error)
    on_purpose: Optional[str] = None  # why sparkload differs; then `ours` says what it lands
    ours: Optional[List[List[int]]] = None  # ids sparkload lands per run (on purpose cases)


def rows(*pairs: Any, **extra: Any) -> List[Dict[str, Any]]:
    """rows((1, 5), (2, 6)) -> [{"id": 1, "ts": 5}, {"id": 2, "ts": 6}]"""
    return [{"id": i, "ts": ts, **extra} for i, ts in pairs]


def iso(hours: float) -> str:
    return (T0 + dt.timedelta(hours=hours)).isoformat().replace("+00:00", "Z")


def at(hours: float) -> dt.datetime:
    return T0 + dt.timedelta(hours=hours)


def custom_max(values: Any) -> Any:
    """A last_value_func that is not the builtin max (dlt calls it with a tuple of values)."""
    return max(values)


def by_len(values: Any) -> Any:
    return max(values, key=lambda v: (len(str(v)), str(v)))


ASC = [(i, i) for i in range(1, 11)]
CASES: List[Case] = [
    Case("int_initial_value", [rows(*ASC), rows((9, 9), (10, 10), (11, 11), (12, 12))], options={"initial_value": 5}),
    Case("int_no_initial_value", [rows(*ASC[:5]), rows(*ASC[3:8]), rows(*ASC[7:])]),
    Case("int_boundary_rows_dedup_by_content", [rows((1, 1), (2, 2), (3, 2)), rows((2, 2), (3, 2), (4, 2), (5, 3))]),
    Case("int_boundary_changed_content_lands_again", [rows((1, 1), (2, 2)), [{"id": 2, "ts": 2, "v": "changed"}, {"id": 3, "ts": 3}]]),
    Case("primary_key_dedup", [rows((1, 1), (2, 2), (3, 2)), [{"id": 2, "ts": 2, "v": "changed"}, {"id": 4, "ts": 2}, {"id": 5, "ts": 3}]],
         hints={"primary_key": "id"}),
    Case("incremental_primary_key_overrides", [rows((1, 1), (2, 2), v="a"), [{"id": 3, "ts": 2, "v": "a"}, {"id": 4, "ts": 2, "v": "b"}]],
         options={"primary_key": ("v", "ts")}, hints={"primary_key": "id"}),
    Case("primary_key_empty_disables_dedup", [rows((1, 1), (2, 2)), rows((2, 2), (3, 3))], options={"primary_key": ()},
         hints={"primary_key": "id"}),
    Case("iso_strings", [rows((1, iso(0)), (2, iso(1)), (3, iso(2))), rows((3, iso(2)), (4, iso(2.5)), (5, iso(3)))],
         options={"initial_value": iso(0.5)}),
    Case("iso_strings_mixed_offsets", [[{"id": 1, "ts": "2024-01-01T10:00:00+02:00"}, {"id": 2, "ts": "2024-01-01T09:00:00Z"}],
                                       [{"id": 3, "ts": "2024-01-01T09:30:00Z"}, {"id": 4, "ts": "2024-01-01T12:00:00+03:00"}]],
         on_purpose="ISO text cursors compare as instants; dlt compares the text, so 09:30Z < 10:00+02:00 (08:00Z) "
                    "and it drops row 3 (dlt#2169)", ours=[[1, 2], [3, 4]]),
    Case("datetimes_aware", [rows((1, at(0)), (2, at(1))), rows((2, at(1)), (3, at(2)))], options={"initial_value": at(0)}),
    Case("datetimes_naive", [rows((1, at(0).replace(tzinfo=None)), (2, at(1).replace(tzinfo=None))),
                             rows((3, at(2).replace(tzinfo=None)))]),
    Case("dates", [rows((1, dt.date(2024, 1, 1)), (2, dt.date(2024, 1, 2))), rows((2, dt.date(2024, 1, 2)), (3, dt.date(2024, 1, 3)))]),
    Case("floats", [rows((1, 0.5), (2, 1.5)), rows((3, 1.25), (4, 2.5))]),
    Case("text_cursor", [rows((1, "a"), (2, "b")), rows((3, "b"), (4, "c"), (5, "ab"))]),
    Case("end_value_backfill", [rows(*ASC), rows(*ASC)], options={"initial_value": 3, "end_value": 7}),
    Case("end_value_range_end_closed", [rows(*ASC)], options={"initial_value": 3, "end_value": 7, "range_end": "closed"}),
    Case("range_start_open", [rows(*ASC[:5]), rows(*ASC[3:8])], options={"range_start": "open"}),
    Case("range_start_open_with_initial", [rows(*ASC)], options={"initial_value": 4, "range_start": "open"}),
    Case("last_value_func_min", [rows((1, 10), (2, 8), (3, 9)), rows((4, 8), (5, 7), (6, 11))], options={"last_value_func": min}),
    Case("last_value_func_min_initial", [rows(*ASC)], options={"last_value_func": min, "initial_value": 4}),
    Case("last_value_func_custom", [rows((1, 1), (2, 3)), rows((3, 2), (4, 3), (5, 4))], options={"last_value_func": custom_max}),
    Case("last_value_func_custom_key", [rows((1, "9"), (2, "10")), rows((3, "9"), (4, "11"), (5, "100"))],
         options={"last_value_func": by_len}),
    Case("lag_int", [rows(*ASC[:6]), rows((5, 5), (6, 6), (7, 7), (3, 3))], options={"lag": 2}),
    Case("lag_iso_seconds", [rows((1, iso(0)), (2, iso(1)), (3, iso(2))), rows((2, iso(1)), (4, iso(1.9)), (5, iso(3)))],
         options={"lag": 3600}),
    Case("lag_datetimes", [rows((1, at(0)), (2, at(2))), rows((3, at(1.5)), (4, at(0.5)), (5, at(3)))], options={"lag": 3600}),
    Case("lag_with_min", [rows((1, 10), (2, 8)), rows((3, 9), (4, 10), (5, 11), (6, 7))], options={"lag": 1, "last_value_func": min}),
    Case("row_order_asc_stops_at_end", [rows(*ASC)], options={"initial_value": 2, "end_value": 6, "row_order": "asc"}),
    Case("row_order_desc_stops_at_start", [rows(*reversed(ASC[:6])), rows(*reversed(ASC))], options={"row_order": "desc"}),
    Case("row_order_desc_with_initial", [rows(*reversed(ASC))], options={"row_order": "desc", "initial_value": 6}),
    Case("out_of_order_rows", [rows((1, 5), (2, 1), (3, 7), (4, 3)), rows((5, 6), (6, 8), (7, 7))]),
    Case("missing_cursor_include", [[{"id": 1, "ts": 1}, {"id": 2}, {"id": 3, "ts": None}], [{"id": 4}, {"id": 5, "ts": 2}]],
         options={"on_cursor_value_missing": "include"}),
    Case("missing_cursor_exclude", [[{"id": 1, "ts": 1}, {"id": 2}, {"id": 3, "ts": None}], [{"id": 4}, {"id": 5, "ts": 2}]],
         options={"on_cursor_value_missing": "exclude"}),
    Case("missing_cursor_raise", [[{"id": 1, "ts": 1}, {"id": 2}]], fails="ts"),
    Case("nested_cursor_path", [[{"id": 1, "meta": {"ts": 1}}, {"id": 2, "meta": {"ts": 2}}], [{"id": 3, "meta": {"ts": 2}}, {"id": 4, "meta": {"ts": 3}}]],
         cursor="meta.ts"),
    Case("cursor_path_last_list_element", [[{"id": 1, "v": [{"ts": 9}, {"ts": 1}]}, {"id": 2, "v": [{"ts": 2}]}],
                                           [{"id": 3, "v": [{"ts": 0}, {"ts": 2}]}, {"id": 4, "v": [{"ts": 3}]}]], cursor="v[-1].ts"),
    Case("cursor_path_wildcard_first_match", [[{"id": 1, "v": [{"x": 0}, {"ts": 1}, {"ts": 9}]}, {"id": 2, "v": [{"ts": 2}]}],
                                              [{"id": 3, "v": [{"ts": 1}]}, {"id": 4, "v": [{"ts": 3}]}]], cursor="v[*].ts"),
    Case("cursor_path_quoted_field", [[{"id": 1, "a.b": 1}, {"id": 2, "a.b": 2}], [{"id": 3, "a.b": 2}, {"id": 4, "a.b": 3}]],
         cursor='"a.b"'),
    Case("empty_run_keeps_state", [rows(*ASC[:3]), [], rows((4, 4))]),
    Case("three_runs_pages", [rows(*ASC[:4]), rows(*ASC[2:7]), rows(*ASC[5:])], pages=True, hints={"primary_key": "id"}),
    Case("arrow_tables", [rows(*ASC[:5]), rows(*ASC[3:])], arrow=True, options={"initial_value": 2}),
    # the later runs filter with the cursor restored from state (a pendulum DateTime on both sides)
    Case("arrow_tables_timestamp_cursor", [rows((1, at(0)), (2, at(1)), (3, at(2))), rows((3, at(2)), (4, at(3))),
                                           rows((4, at(3)), (5, at(1)), (6, at(5)))],
         arrow=True, options={"initial_value": at(1)}),
]
