"""Airbyte's DatetimeBasedCursor as date windows: the resource is called once per window.

    @resource
    def events(window=date_windows(start="2024-01-01", step="P1D", cursor_granularity="PT1S")):
        yield from api.get("/events", since=window.start_str, until=window.end_str)

Windows are `[start, next_start - cursor_granularity]`, the last one ending at `end` (default now,
never later than now). State is checkpointed after each completed window (one load package per window
with rows), so a failure in window 3 of 5 resumes at window 3.

With `cursor_field`, the state is the CDK's: the highest cursor value of the records read (the resource
reports each with `window.observe(instant)`; `start` while none was), in `datetime_format`, and a later
run starts at that value itself, moved back by `lookback_window` but never before `start`: a record
written late inside a window already read is still found (airbyte-cdk 7, tests/parity_airbyte). Without
it, a later run starts at the last completed window's end + granularity, moved back the same way.

`clamping` (with `cursor_field`, the CDK's `clamping`): windows start and end on whole days, weeks (starting
on a `weekday`) or months. A window's start is rounded up to the next boundary (also the first one, and a
start from the state: a later run starts at the boundary after the highest cursor read), its end is the
boundary before the next window's start less `cursor_granularity`, and the end of the whole range is rounded
down to a boundary less the granularity (default one second for DAY, one day for WEEK and MONTH), so the
current, unfinished period is left for a later run. As airbyte-cdk 7's `ConcurrentCursor`, judged in
tests/parity_airbyte.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

import pendulum

from ..errors import HintError, did_you_mean
from ..state import decode_value, encode_value
from ..timeutil import format_instant, now as utc_now, parse_duration, parse_instant, to_instant


@dataclass(frozen=True)
class Window:
    """The bounds the resource receives, both inclusive; `index` counts from 0 within the run."""
    start: pendulum.DateTime
    end: pendulum.DateTime
    index: int
    datetime_format: Optional[str] = None
    # [the highest cursor instant read so far], shared by a run's windows; None: the windows track no cursor
    high: Optional[List[pendulum.DateTime]] = field(default=None, compare=False, repr=False)

    def _fmt(self, value: pendulum.DateTime) -> str:
        return format_instant(value, self.datetime_format)

    def observe(self, value: Any) -> None:
        """Note one record's cursor value (a datetime; None is skipped): the checkpoint keeps the highest."""
        if self.high is not None and value is not None:
            value = to_instant(value)
            if value > self.high[0]:
                self.high[0] = value

    @property
    def start_str(self) -> str:
        return self._fmt(self.start)

    @property
    def end_str(self) -> str:
        return self._fmt(self.end)


WEEKDAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
CLAMP_TARGETS = ("DAY", "WEEK", "MONTH")


@dataclass(frozen=True)
class Clamping:
    """Window bounds on whole periods: `target` DAY, WEEK or MONTH; `weekday` (MONDAY...) starts a WEEK."""
    target: str
    weekday: Optional[str] = None

    def __post_init__(self) -> None:
        if self.target not in CLAMP_TARGETS:
            raise HintError(f"date_windows: clamping target {self.target!r} is not one of {', '.join(CLAMP_TARGETS)}"
                            f"{did_you_mean(str(self.target), CLAMP_TARGETS)}")
        if (self.target == "WEEK") != (self.weekday is not None):
            raise HintError("date_windows: clamping WEEK needs a weekday (MONDAY ... SUNDAY), and only WEEK takes one")
        if self.weekday is not None and self.weekday not in WEEKDAYS:
            raise HintError(f"date_windows: clamping weekday {self.weekday!r} is not one of {', '.join(WEEKDAYS)}")

    @property
    def granularity(self) -> dt.timedelta:
        """What the end of the range loses when no `cursor_granularity` is given (the CDK's default)."""
        return dt.timedelta(seconds=1) if self.target == "DAY" else dt.timedelta(days=1)

    def floor(self, value: pendulum.DateTime) -> pendulum.DateTime:
        day = value.replace(hour=0, minute=0, second=0, microsecond=0)
        if self.target == "MONTH":
            return day.replace(day=1)
        if self.target == "WEEK":
            return day.subtract(days=(day.weekday() - WEEKDAYS.index(self.weekday)) % 7)
        return day

    def ceil(self, value: pendulum.DateTime) -> pendulum.DateTime:
        down = self.floor(value)
        if down == value:
            return value
        return down.add(months=1) if self.target == "MONTH" else down.add(days=7 if self.target == "WEEK" else 1)


class DateWindows:
    """Fields: `start` (required), `end` (default now), `step` and `cursor_granularity` (ISO 8601
    durations, given together; without them one window), `lookback_window`, `datetime_format`
    (strftime of `start_str`/`end_str`, default ISO 8601 with `Z`), `cursor_field` (the state is the
    highest cursor value the resource observed, as Airbyte's: see the module docstring), `clamping`
    (`{"target": "DAY"|"WEEK"|"MONTH", "weekday": ...}`, with `cursor_field`: see the module docstring)."""

    def __init__(self, start: Any, end: Any = None, step: Any = None, cursor_granularity: Any = None,
                 lookback_window: Any = None, datetime_format: Optional[str] = None, cursor_field: Optional[str] = None,
                 clamping: Optional[Dict[str, Any]] = None):
        if (step is None) != (cursor_granularity is None):
            raise HintError("date_windows: give step and cursor_granularity together (Airbyte's rule)")
        if clamping is not None and cursor_field is None:
            raise HintError("date_windows: clamping needs cursor_field (it is the CDK's, whose state is a cursor value)")
        if clamping is not None and (not isinstance(clamping, dict) or set(clamping) - {"target", "weekday"}):
            raise HintError(f"date_windows: clamping {clamping!r}: expected {{target: DAY|WEEK|MONTH, weekday: ...}}")
        self.clamping = None if clamping is None else Clamping(clamping.get("target"), clamping.get("weekday"))
        try:
            self.start = to_instant(start)
            self.end = None if end is None else to_instant(end)
            self.step = None if step is None else parse_duration(step)
            self.granularity = dt.timedelta(0) if cursor_granularity is None else parse_duration(cursor_granularity)
            self.lookback = None if lookback_window is None else parse_duration(lookback_window)
        except ValueError as e:  # a value the time parser refuses: the user's setting, named by the parser
            raise HintError(f"date_windows: {e}") from None
        self.datetime_format = datetime_format
        self.cursor_field = cursor_field

    def windows(self, saved: Optional[Dict[str, Any]], now: Optional[pendulum.DateTime] = None) -> Iterator[Window]:
        """The windows still to read, given the saved state (`{"cursor_value": ...}` with a cursor_field,
        else `{"last_end": ...}`)."""
        now = now or utc_now()
        airbyte = self.cursor_field is not None
        # the CDK reads up to an explicit end even past now (a window that ends in the future)
        end = now if self.end is None else (self.end if airbyte else min(self.end, now))
        if self.clamping is not None:
            end = self.clamping.floor(end) - (self.granularity or self.clamping.granularity)
        begin = self.start
        high = None
        if self.cursor_field is not None:
            kept = (saved or {}).get("cursor_value")
            high = [max(self.start, parse_instant(kept, self.datetime_format)) if kept is not None else self.start]
            if kept is not None:
                begin = max(self.start, high[0] - self.lookback) if self.lookback else high[0]
        elif saved and saved.get("last_end") is not None:
            resume = to_instant(decode_value(saved["last_end"])) + self.granularity
            begin = max(self.start, resume - self.lookback) if self.lookback else max(self.start, resume)
        if self.clamping is not None:
            yield from self._clamped(begin, end, high)
            return
        index = 0
        while begin <= end:
            last = self.step is None or (begin + self.step >= end if airbyte else False)
            # the CDK's last window reaches `end` whole once a step would: no granularity off it
            stop = end if last else min(begin + self.step - self.granularity, end)
            yield Window(begin, stop, index, self.datetime_format, high)
            if last:
                return
            begin, index = begin + self.step, index + 1

    def _clamped(self, begin: pendulum.DateTime, end: pendulum.DateTime, high: List[pendulum.DateTime]) -> Iterator[Window]:
        """The CDK's windows with clamping (`ConcurrentCursor._split_per_slice_range`, from the state to the end)."""
        clamp, index = self.clamping.ceil, 0
        if begin > end or (begin == end and not self.granularity):
            return
        begin = clamp(begin)
        if begin > end:
            return
        if self.step is None or begin + self.step >= end:
            # with a granularity the end is the last unit to read; without, the CDK rounds it up
            yield Window(begin, end if self.granularity else clamp(end), 0, self.datetime_format, high)
            return
        while True:
            upper = min(begin + self.step, end)
            clamped = clamp(upper) if upper != end else upper
            last = upper >= end or clamped == end
            if clamp(begin) >= clamped:
                return
            yield Window(clamp(begin), clamped if last else clamped - self.granularity, index, self.datetime_format, high)
            if last:
                return
            begin, index = clamped, index + 1

    @staticmethod
    def checkpoint(window: Window) -> Dict[str, Any]:
        if window.high is not None:
            return {"cursor_value": format_instant(window.high[0], window.datetime_format)}
        return {"last_end": encode_value(window.end)}


def date_windows(start: Any, end: Any = None, step: Any = None, cursor_granularity: Any = None,
                 lookback_window: Any = None, datetime_format: Optional[str] = None,
                 cursor_field: Optional[str] = None, clamping: Optional[Dict[str, Any]] = None) -> DateWindows:
    """Date windows for a resource argument: see `DateWindows`."""
    return DateWindows(start, end, step, cursor_granularity, lookback_window, datetime_format, cursor_field, clamping)
