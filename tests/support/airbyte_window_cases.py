"""The cases of the date-window differential, as data: a `DatetimeBasedCursor` written as the CDK's manifest
takes it (over DEFAULT), the API's events, and the syncs (time frozen at `now`; events added, or the API
failing at one window, before a sync). `to_incremental` writes the same cursor as sparkload's REST source
`incremental` block takes it; an option it has no key for raises `Unsupported`.

`purpose` names a difference kept on purpose (docs/parity.md, Airbyte section), checked as PURPOSES says.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

UTC = dt.timezone.utc
ISO = "%Y-%m-%dT%H:%M:%SZ"
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)


class Unsupported(Exception):
    """A cursor option sparkload's REST source has no key for."""


def event(i: int, hours: float, fmt: str = ISO) -> Dict[str, Any]:
    at = T0 + dt.timedelta(hours=hours)
    return {"id": i, "updated_at": int(at.timestamp()) if fmt == "%s" else at.strftime(fmt), "_at": at}


def bound(text: str, fmt: str = ISO) -> Dict[str, Any]:
    return {"type": "MinMaxDatetime", "datetime": text, "datetime_format": fmt}


NOW_UTC = "{{ now_utc().strftime('%Y-%m-%dT%H:%M:%SZ') }}"
DEFAULT: Dict[str, Any] = {
    "type": "DatetimeBasedCursor", "cursor_field": "updated_at", "datetime_format": ISO,
    "start_datetime": bound("2024-01-01T00:00:00Z"), "end_datetime": bound("2024-01-04T12:00:00Z"),
    "step": "P1D", "cursor_granularity": "PT1S",
    "start_time_option": {"type": "RequestOption", "field_name": "since", "inject_into": "request_parameter"},
    "end_time_option": {"type": "RequestOption", "field_name": "until", "inject_into": "request_parameter"},
}
FOUR_DAYS = [event(1, 3), event(2, 30), event(3, 60), event(4, 80)]


@dataclass
class Sync:
    now: dt.datetime = dt.datetime(2024, 2, 1, tzinfo=UTC)
    add: List[Dict[str, Any]] = field(default_factory=list)
    fail_since: Optional[str] = None


@dataclass
class Case:
    name: str
    cursor: Dict[str, Any] = field(default_factory=dict)
    events: List[Dict[str, Any]] = field(default_factory=lambda: list(FOUR_DAYS))
    syncs: List[Sync] = field(default_factory=lambda: [Sync(), Sync(add=[event(5, 81)])])
    api: Dict[str, Any] = field(default_factory=dict)
    purpose: Optional[str] = None

    @property
    def full_cursor(self) -> Dict[str, Any]:
        merged = {**DEFAULT, **self.cursor}
        return {k: v for k, v in merged.items() if v is not None}


def _text(value: Any) -> Any:
    """A MinMaxDatetime's datetime, or raise for what sparkload cannot evaluate (Jinja)."""
    text = value["datetime"] if isinstance(value, dict) else value
    if "{{" in str(text):
        raise Unsupported(f"interpolated datetime {text!r}")
    return text


def to_incremental(cursor: Dict[str, Any]) -> Dict[str, Any]:
    """The CDK cursor as sparkload's REST `incremental` block."""
    # partition_field_start/_end name the window's bounds for a manifest's own templates (`stream_slice.<name>`);
    # sparkload places the bounds by start_param/end_param and has no templates, so they need no key
    known = {"type", "cursor_field", "datetime_format", "start_datetime", "end_datetime", "step", "cursor_granularity",
             "start_time_option", "end_time_option", "lookback_window", "cursor_datetime_formats",
             "is_client_side_incremental", "is_data_feed", "clamping", "partition_field_start", "partition_field_end"}
    extra = set(cursor) - known
    if extra:
        raise Unsupported(f"no key for {sorted(extra)}")
    if cursor.get("is_client_side_incremental") and "step" in cursor:
        raise Unsupported("client-side filtering of date windows")
    inc: Dict[str, Any] = {"cursor_path": cursor["cursor_field"], "initial_value": _text(cursor["start_datetime"]),
                           "format": cursor["datetime_format"]}
    if "end_datetime" in cursor and cursor["end_datetime"]["datetime"] != NOW_UTC:
        inc["end_value"] = _text(cursor["end_datetime"])  # now_utc() as the end is sparkload's default end
    for key in ("step", "cursor_granularity"):
        if key in cursor:
            inc[key] = cursor[key]
    if "lookback_window" in cursor:
        inc["lookback_window"] = cursor["lookback_window"]
    if "cursor_datetime_formats" in cursor:
        inc["cursor_formats"] = cursor["cursor_datetime_formats"]
    if "clamping" in cursor:
        clamping = cursor["clamping"]
        inc["clamping"] = {"target": clamping["target"], **(clamping.get("target_details") or {})}
    if cursor.get("is_data_feed"):
        inc["row_order"] = "desc"  # dlt's: reading stops at the first record before the saved value (refused with step)
    for option, param in (("start_time_option", "start_param"), ("end_time_option", "end_param")):
        if option in cursor:
            inc[param] = {"in": "query", "name": cursor[option]["field_name"]}
    return inc


CASES: List[Case] = [
    Case("day_windows_second_granularity"),
    Case("hour_windows", {"step": "PT1H", "cursor_granularity": "PT1S", "end_datetime": bound("2024-01-01T05:30:00Z")},
         events=[event(1, 0.5), event(2, 2.25), event(3, 2.75), event(4, 5)], syncs=[Sync(), Sync(add=[event(5, 5.25)])]),
    Case("month_windows", {"step": "P1M", "cursor_granularity": "P1D", "datetime_format": "%Y-%m-%d",
                           "start_datetime": bound("2024-01-01", "%Y-%m-%d"), "end_datetime": bound("2024-04-15", "%Y-%m-%d")},
         events=[event(1, 24 * 3, "%Y-%m-%d"), event(2, 24 * 40, "%Y-%m-%d"), event(3, 24 * 100, "%Y-%m-%d")],
         api={"bound_format": "%Y-%m-%d"}, syncs=[Sync(), Sync(add=[event(4, 24 * 104, "%Y-%m-%d")])]),
    Case("lookback_window", {"lookback_window": "PT6H"}, syncs=[Sync(), Sync(add=[event(5, 79)])]),
    Case("lookback_before_start", {"lookback_window": "P30D"}),
    Case("end_datetime_absent_is_now", {"end_datetime": None},
         syncs=[Sync(now=dt.datetime(2024, 1, 3, 6, tzinfo=UTC)), Sync(now=dt.datetime(2024, 1, 4, 9, tzinfo=UTC))]),
    Case("end_datetime_now_utc", {"end_datetime": bound(NOW_UTC)},
         syncs=[Sync(now=dt.datetime(2024, 1, 3, 6, tzinfo=UTC)), Sync(now=dt.datetime(2024, 1, 4, 9, tzinfo=UTC))]),
    Case("start_datetime_relative", {"start_datetime": bound("{{ day_delta(-2, format='%Y-%m-%dT%H:%M:%SZ') }}"),
                                     "end_datetime": None},
         syncs=[Sync(now=dt.datetime(2024, 1, 4, 9, tzinfo=UTC)), Sync(now=dt.datetime(2024, 1, 4, 12, tzinfo=UTC))],
         purpose="relative_start"),
    Case("datetime_format_epoch", {"datetime_format": "%s", "start_datetime": bound("1704067200", "%s"),
                                   "end_datetime": bound("1704369600", "%s")},
         events=[event(1, 3, "%s"), event(2, 30, "%s"), event(3, 80, "%s")], api={"bound_format": "%s"},
         syncs=[Sync(), Sync(add=[event(4, 81, "%s")])]),
    Case("cursor_datetime_formats", {"cursor_datetime_formats": ["%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f%z"]},
         events=[event(1, 3, "%Y-%m-%d %H:%M:%S"), event(2, 30, "%Y-%m-%dT%H:%M:%S.%f%z"), event(3, 60, "%Y-%m-%d %H:%M:%S")],
         syncs=[Sync(), Sync(add=[event(4, 61, "%Y-%m-%dT%H:%M:%S.%f%z")])]),
    Case("records_out_of_order_inside_a_window", events=[event(2, 10), event(1, 3), event(4, 80), event(3, 60)],
         api={"order": "as_is"}),
    Case("empty_window", events=[event(1, 3), event(3, 60)]),
    Case("no_records_at_all", events=[]),
    Case("sync_fails_mid_windows", syncs=[Sync(fail_since="2024-01-03T00:00:00Z"), Sync()],
         purpose="records_after_failure"),
    # the API ignores the bounds: records are filtered on the client, by sparkload's dlt-style cursor
    Case("client_side_incremental", {"is_client_side_incremental": True, "start_time_option": None,
                                     "end_time_option": None, "step": None, "cursor_granularity": None,
                                     "end_datetime": None},
         events=FOUR_DAYS + [event(9, 90)], purpose="boundary_dedup"),
    # newest first, paged, no bounds sent: the CDK stops paging at a record older than the state
    Case("is_data_feed", {"is_data_feed": True, "start_time_option": None, "end_time_option": None, "step": None,
                          "cursor_granularity": None, "end_datetime": None},
         events=[event(i, 3 + i * 5) for i in range(1, 10)], api={"per_page": 2, "order": "desc"},
         syncs=[Sync(), Sync(add=[event(10, 60), event(11, 61)])], purpose="boundary_dedup"),
    Case("paginated_windows", events=[event(i, 3 + i * 5) for i in range(1, 16)], api={"per_page": 2}),
    # clamping: whole days, the range ending before today; the second sync starts at the day after the saved cursor
    Case("clamping_day", {"clamping": {"type": "Clamping", "target": "DAY"}, "start_datetime": bound("2024-01-02T00:00:00Z"),
                          "end_datetime": None},
         events=FOUR_DAYS + [event(6, 84)], syncs=[Sync(now=dt.datetime(2024, 1, 4, 9, tzinfo=UTC)),
                                                   Sync(now=dt.datetime(2024, 1, 5, 10, tzinfo=UTC), add=[event(5, 81)])],
         purpose="clamping_state_gap"),
    Case("clamping_week", {"clamping": {"type": "Clamping", "target": "WEEK", "target_details": {"weekday": "MONDAY"}},
                           "step": "P7D", "cursor_granularity": "P1D", "datetime_format": "%Y-%m-%d",
                           "start_datetime": bound("2024-01-08", "%Y-%m-%d"), "end_datetime": bound("2024-02-15", "%Y-%m-%d")},
         events=[event(i, 24 * d, "%Y-%m-%d") for i, d in enumerate([3, 10, 20, 40, 44], start=1)],
         api={"bound_format": "%Y-%m-%d"}, syncs=[Sync(), Sync(add=[event(6, 24 * 41, "%Y-%m-%d")])]),
    Case("clamping_month", {"clamping": {"type": "Clamping", "target": "MONTH"}, "step": "P1M", "cursor_granularity": "P1D",
                            "datetime_format": "%Y-%m-%d", "start_datetime": bound("2024-01-15", "%Y-%m-%d"),
                            "end_datetime": bound("2024-05-20", "%Y-%m-%d")},
         events=[event(i, 24 * d, "%Y-%m-%d") for i, d in enumerate([5, 40, 70, 100, 130], start=1)],
         api={"bound_format": "%Y-%m-%d"}, syncs=[Sync(), Sync(add=[event(6, 24 * 101, "%Y-%m-%d")])],
         purpose="clamping_state_gap"),  # a start inside a month: rounded up to February
    Case("partition_fields_renamed", {"partition_field_start": "from", "partition_field_end": "to"}),
    # refused by name (PURPOSES): a data feed read in windows, client-side filtering of windows
    Case("data_feed_with_windows", {"is_data_feed": True}, events=[event(i, 3 + i * 5) for i in range(1, 10)],
         api={"per_page": 2, "order": "desc"}, purpose="refused"),
    Case("client_side_incremental_with_windows", {"is_client_side_incremental": True}, purpose="refused"),
]


PURPOSES = {
    # the CDK goes on with the windows after a failed one (their records reach the destination, the state
    # stays before the failure); sparkload stops at the failed window: same state, same requests and records
    # up to it, nothing after it
    "records_after_failure": "the run stops at the failed window",
    # sparkload's initial_value is a fixed instant (a pipeline file holds no Jinja); a start relative to now
    # matters to a first run only, which a caller can compute
    "relative_start": "no interpolated start_datetime",
    # sparkload's cursor without windows is dlt's: a record whose cursor equals the saved value and that was
    # read before (same primary key) is not emitted again; the CDK emits it again (at-least-once)
    "boundary_dedup": "the record at the saved cursor value is not re-emitted",
    # with clamping, the CDK's state stays at the last cursor before a gap the rounding opens (a start or a saved
    # cursor inside a period), so each later sync reads every window since again (and so also a record written late
    # into one of them); sparkload's state is the highest cursor read, so a later run starts at the period after it,
    # as the CDK's does where no gap opens (clamping_week): the same windows and records the first time, then a
    # suffix of the CDK's windows, the rest being windows sparkload read before, and no record the CDK does not emit
    "clamping_state_gap": "the state advances past a clamped gap",
    # options sparkload refuses by name with the reason (a ConfigError, or no key for it): docs/parity.md
    "refused": "refused by name",
}
