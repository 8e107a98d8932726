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
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

import pendulum

from ..errors import HintError
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


class DateWindows:
    """Fields: `start` (required), `end` (default now), `step` and `cursor_granularity` (ISO 8601
    durations, given together; without them one window), `lookback_window`, `datetime_format`
    (strftime of `start_str`/`end_str`, default ISO 8601 with `Z`), `cursor_field` (the state is the
    highest cursor value the resource observed, as Airbyte's: see the module docstring)."""

    def __init__(self, start: Any, end: Any = None, step: Any = None, cursor_granularity: Any = None,
                 lookback_window: Any = None, datetime_format: Optional[str] = None, cursor_field: Optional[str] = None):
        if (step is None) != (cursor_granularity is None):
            raise HintError("date_windows: give step and cursor_granularity together (Airbyte's rule)")
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
        index = 0
        while begin <= end:
            last = self.step is None or (begin + self.step >= end if airbyte else False)
            # the CDK's last window reaches `end` whole once a step would: no granularity off it
            stop = end if last else min(begin + self.step - self.granularity, end)
            yield Window(begin, stop, index, self.datetime_format, high)
            if last:
                return
            begin, index = begin + self.step, index + 1

    @staticmethod
    def checkpoint(window: Window) -> Dict[str, Any]:
        if window.high is not None:
            return {"cursor_value": format_instant(window.high[0], window.datetime_format)}
        return {"last_end": encode_value(window.end)}


def date_windows(start: Any, end: Any = None, step: Any = None, cursor_granularity: Any = None,
                 lookback_window: Any = None, datetime_format: Optional[str] = None,
                 cursor_field: Optional[str] = None) -> DateWindows:
    """Date windows for a resource argument: see `DateWindows`."""
    return DateWindows(start, end, step, cursor_granularity, lookback_window, datetime_format, cursor_field)
