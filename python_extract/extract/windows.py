"""Airbyte's DatetimeBasedCursor as date windows: the resource is called once per window.

    @resource
    def events(window=date_windows(start="2024-01-01", step="P1D", cursor_granularity="PT1S")):
        yield from api.get("/events", since=window.start_str, until=window.end_str)

Windows are `[start, next_start - cursor_granularity]`, the last one ending at `end` (default now,
never later than now). State is checkpointed after each completed window (one load package per window
with rows), so a failure in window 3 of 5 resumes at window 3. A later run starts at the last completed
window's end + granularity, moved back by `lookback_window` but never before `start`.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Optional

import pendulum

from ..errors import HintError
from ..state import decode_value, encode_value
from ..timeutil import iso_z, now as utc_now, parse_duration, to_instant


@dataclass(frozen=True)
class Window:
    """The bounds the resource receives, both inclusive; `index` counts from 0 within the run."""
    start: pendulum.DateTime
    end: pendulum.DateTime
    index: int
    datetime_format: Optional[str] = None

    def _fmt(self, value: pendulum.DateTime) -> str:
        return value.strftime(self.datetime_format) if self.datetime_format else iso_z(value)

    @property
    def start_str(self) -> str:
        return self._fmt(self.start)

    @property
    def end_str(self) -> str:
        return self._fmt(self.end)


class DateWindows:
    """Fields: `start` (required), `end` (default now), `step` and `cursor_granularity` (ISO 8601
    durations, given together; without them one window), `lookback_window`, `datetime_format`
    (strftime of `start_str`/`end_str`, default ISO 8601 with `Z`)."""

    def __init__(self, start: Any, end: Any = None, step: Any = None, cursor_granularity: Any = None,
                 lookback_window: Any = None, datetime_format: Optional[str] = None):
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

    def windows(self, saved: Optional[Dict[str, Any]], now: Optional[pendulum.DateTime] = None) -> Iterator[Window]:
        """The windows still to read, given the saved state `{"last_end": ...}`."""
        now = now or utc_now()
        end = now if self.end is None else min(self.end, now)
        begin = self.start
        if saved and saved.get("last_end") is not None:
            resume = to_instant(decode_value(saved["last_end"])) + self.granularity
            begin = max(self.start, resume - self.lookback) if self.lookback else max(self.start, resume)
        index = 0
        while begin <= end:
            stop = end if self.step is None else min(begin + self.step - self.granularity, end)
            yield Window(begin, stop, index, self.datetime_format)
            if self.step is None:
                return
            begin, index = begin + self.step, index + 1

    @staticmethod
    def checkpoint(window: Window) -> Dict[str, Any]:
        return {"last_end": encode_value(window.end)}


def date_windows(start: Any, end: Any = None, step: Any = None, cursor_granularity: Any = None,
                 lookback_window: Any = None, datetime_format: Optional[str] = None) -> DateWindows:
    """Date windows for a resource argument: see `DateWindows`."""
    return DateWindows(start, end, step, cursor_granularity, lookback_window, datetime_format)
