"""Time, one home: every rule by which sparkload reads a date, date-time or duration from text, and
writes one back. A kernel module (as dlt's `dlt/common/time.py`): it imports pendulum and the standard
library only, never another sparkload module.

The rules differ on purpose, each named after what it is for:

| function               | reads                                                   | gives                         | otherwise     |
|------------------------|---------------------------------------------------------|-------------------------------|---------------|
| `parse`                | pendulum's whole grammar: ISO 8601 (week, ordinal, basic | pendulum DateTime (a date or a | ValueError    |
|                        | forms, durations, intervals), `2024/01/15`, `now`       | time of day too), Duration,   |               |
|                        |                                                         | Interval; naive takes `tz`    |               |
| `parse_iso`            | ISO 8601 and pendulum's common forms, no intervals      | datetime, date or time as     | ValueError    |
|                        | (dlt's value typing and coercion)                       | written (naive stays naive)   |               |
| `parse_iso_datetime`   | the same, date-times only                               | datetime                      | None          |
| `parse_timestamp`      | the standard library's ISO 8601 (`fromisoformat`)       | aware datetime (naive = UTC)  | None          |
| `parse_date`           | the standard library's ISO 8601 date (`2024-01-15`)     | date                          | ValueError    |
| `cursor_instant`       | cursor text that looks like `YYYY-MM-DD...`             | aware datetime (naive = UTC)  | the text      |
| `to_instant`           | text (`parse`), datetime or date                        | pendulum DateTime in UTC      | ValueError    |
| `parse_duration`       | an ISO 8601 duration (`P1D`, `PT1S`) or a timedelta     | timedelta                     | ValueError    |
| `parse_span`           | a command-line span: `90`, `90s`, `1.5m`, `12h`, `7d`   | timedelta                     | None          |
|                        | (seconds without a unit; `--older-than`, idle timeouts) |                               |               |

Every error is a `ValueError` (pendulum's `ParserError` is one).
"""
from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any, Optional, Union

import pendulum
from pendulum.parsing import DEFAULT_OPTIONS, parse_iso8601
# pendulum's parser of its common forms (`2024/01/15`, `2024`) without the interval grammar `parse` adds
from pendulum.parsing import _parse_common

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


def parse(text: str, tz: Any = "UTC") -> Any:
    """pendulum's parser: a DateTime for a date-time, a date or a time of day (today), a Duration or an
    Interval; naive text takes `tz` (`tz=None` keeps it naive).

    >>> parse("2024-01-15T10:30:00").isoformat()
    '2024-01-15T10:30:00+00:00'
    """
    return pendulum.parse(text, tz=tz)


def parse_iso(text: str) -> Union[dt.datetime, dt.date, dt.time]:
    """A datetime, date or time parsed from ISO 8601 text (or pendulum's common forms: `2024`,
    `2024/01/15`), naive as written; ValueError otherwise.

    >>> parse_iso("2024-01-15"), parse_iso("10:30")
    (datetime.date(2024, 1, 15), datetime.time(10, 30))
    """
    try:
        parsed = parse_iso8601(text)
    except ValueError:
        parsed = _parse_common(text, **DEFAULT_OPTIONS)
    if isinstance(parsed, (dt.datetime, dt.date, dt.time)):
        return parsed
    raise ValueError(f"not a date, time or date-time: {text!r}")


def parse_iso_datetime(text: str) -> Optional[dt.datetime]:
    """`parse_iso` when the text is a date-time, else None (a date, a time, no date at all)."""
    try:
        parsed = parse_iso(text)
    except (ValueError, TypeError):
        return None
    return parsed if isinstance(parsed, dt.datetime) else None


def parse_timestamp(text: str) -> Optional[dt.datetime]:
    """ISO 8601 text as the standard library reads it, aware (naive means UTC); None if it is not one.

    >>> parse_timestamp("2024-01-15 10:30")
    datetime.datetime(2024, 1, 15, 10, 30, tzinfo=datetime.timezone.utc)
    """
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def parse_date(text: str) -> dt.date:
    """An ISO 8601 calendar date as the standard library reads it (`2024-01-15`, `20240115`)."""
    return dt.date.fromisoformat(text)


@lru_cache(maxsize=8192)
def _pendulum_instant(text: str) -> Any:
    try:
        parsed = pendulum.parse(text, tz="UTC")
    except (ValueError, TypeError):
        return text
    return parsed if isinstance(parsed, dt.datetime) else text


def cursor_instant(text: str) -> Union[dt.datetime, str]:
    """A cursor value given as text: an aware datetime when it starts like `YYYY-MM-DD` and parses
    (the standard library first, it is fast; then pendulum), else the text itself.

    >>> cursor_instant("2024-01-15"), cursor_instant("v2")
    (datetime.datetime(2024, 1, 15, 0, 0, tzinfo=datetime.timezone.utc), 'v2')
    """
    if len(text) >= 10 and text[4:5] == "-" and text[7:8] == "-":
        parsed = parse_timestamp(text)
        return _pendulum_instant(text) if parsed is None else parsed
    return text


def to_instant(value: Any) -> pendulum.DateTime:
    """A pendulum DateTime in UTC from text (`parse`, naive means UTC), a datetime or a date."""
    if isinstance(value, str):
        parsed = parse(value, tz="UTC")
        if not isinstance(parsed, dt.datetime):
            raise ValueError(f"not a datetime: {value!r}")
    elif isinstance(value, dt.datetime):
        parsed = pendulum.instance(value, tz="UTC")
    elif isinstance(value, dt.date):
        parsed = pendulum.datetime(value.year, value.month, value.day, tz="UTC")
    else:
        raise ValueError(f"not a datetime: {value!r}")
    return parsed.in_tz("UTC")


def format_instant(value: pendulum.DateTime, datetime_format: Optional[str]) -> str:
    """`value` in a strftime pattern (`%s`: epoch seconds, as Airbyte's), or ISO 8601 with `Z` when None."""
    if datetime_format == "%s":
        return str(int(value.timestamp()))
    return value.strftime(datetime_format) if datetime_format else iso_z(value)


def parse_instant(text: Any, datetime_format: Optional[str]) -> pendulum.DateTime:
    """`text` read with a strftime pattern (`%s`: epoch seconds; naive means UTC), or as `to_instant` when None."""
    if datetime_format == "%s":
        return pendulum.from_timestamp(int(text), tz="UTC")
    if datetime_format:
        return to_instant(dt.datetime.strptime(str(text), datetime_format))
    return to_instant(text)


def parse_duration(value: Any) -> dt.timedelta:
    """An ISO 8601 duration (`P1D`, `PT1S`; an interval counts its length) or a timedelta as it is."""
    if isinstance(value, dt.timedelta):
        return value
    parsed = parse(value)
    if not isinstance(parsed, dt.timedelta):
        raise ValueError(f"not an ISO 8601 duration: {value!r}")
    return parsed


SPAN_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}  # seconds per unit of `parse_span` (no unit: seconds)
_SPAN = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*")


def parse_span(value: Any) -> Optional[dt.timedelta]:
    """`90`, `"90s"`, `"1.5m"`, `"12h"` or `"7d"` as a timedelta; None for anything else (the caller's
    error names its own setting). A number without a unit is seconds.

    >>> parse_span("7d"), parse_span("1.5m"), parse_span(900), parse_span("soon")
    (datetime.timedelta(days=7), datetime.timedelta(seconds=90), datetime.timedelta(seconds=900), None)
    """
    found = None if isinstance(value, bool) else _SPAN.fullmatch(str(value))
    return dt.timedelta(seconds=float(found.group(1)) * SPAN_UNITS[found.group(2) or "s"]) if found else None


def plain(value: dt.datetime) -> dt.datetime:
    """A datetime subclass (pendulum's DateTime) as a stdlib datetime: Arrow and Spark take those."""
    if type(value) is dt.datetime:
        return value
    return dt.datetime(value.year, value.month, value.day, value.hour, value.minute, value.second,
                       value.microsecond, tzinfo=value.tzinfo, fold=value.fold)


def from_epoch(seconds: float) -> dt.datetime:
    """An aware UTC datetime from epoch seconds."""
    return dt.datetime.fromtimestamp(seconds, UTC)


def epoch_micros(value: dt.datetime) -> int:
    """An aware datetime (a pendulum DateTime too, as a cursor restored from state holds) as microseconds
    since the epoch (exact, no float).

    >>> epoch_micros(pendulum.datetime(1970, 1, 1, 0, 0, 1)) == epoch_micros(dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)) == 10**6
    True
    """
    return (plain(value) - EPOCH) // dt.timedelta(microseconds=1)


def iso_z(value: Union[dt.datetime, dt.date]) -> str:
    """ISO 8601 text with `Z` for UTC, as APIs and cursors write it.

    >>> iso_z(dt.datetime(2024, 1, 15, tzinfo=UTC))
    '2024-01-15T00:00:00Z'
    """
    return value.isoformat().replace("+00:00", "Z")


def now() -> pendulum.DateTime:
    """The current instant in UTC."""
    return pendulum.now("UTC")


def dev_mode_suffix() -> str:
    """dlt's dev_mode dataset suffix: the local time as `_YYYYMMDDhhmmss` (pendulum's format: hh is a
    12-hour clock, as in dlt)."""
    return pendulum.now().format("_YYYYMMDDhhmmss")
