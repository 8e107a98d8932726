"""dlt's incremental cursor: `incremental("updated_at", initial_value=...)` as a resource argument.

Per row, with `S` the start value (the stored last value, lag-adjusted, else `initial_value`), `E` the
end value and `v` the row's cursor (written for `max`; `min` mirrors it, a custom function decides
itself):
  1. no value at the cursor path: `on_cursor_value_missing` raise (default) | include | exclude;
  2. `v > E` is dropped, `v == E` too unless `range_end="closed"`;
  3. `v < S` is dropped; `v == S` is dropped with `range_start="open"`, else kept unless its dedup key
     was stored with `S` (boundary deduplication);
  4. otherwise kept, out-of-order rows included; `last_value` follows the kept rows.
After the resource: the state keeps `last_value` (never moving backwards), the dedup keys of the
rows at `last_value` and, as dlt, the run's `start_value`. Dedup keys: the incremental's `primary_key`, else the resource's, else a hash of
the row's content; `primary_key=()` disables it, as do `range_start="open"`, `end_value` and `lag`.

Deviation from dlt, on purpose: the dedup state is bounded. Only rows whose cursor equals the stored
last value can ever be re-read (everything below is dropped by rule 3), so the keys of that one group
are all that is needed; when more than `boundary_limit` rows share it the run fails with
`IncrementalBoundaryOverflow` and nothing lands, instead of growing the state without limit.

Datetimes are compared as instants: ISO strings, datetimes and dates are parsed (naive means UTC).
A run with `end_value` is a stateless backfill: it reads and writes no state. `lag` re-reads the last
`lag` seconds (datetimes), days (dates) or units (numbers). `row_order` lets the extractor stop the
resource at the first row past the range (`asc`: past `E`; `desc`: before `S`).
"""
from __future__ import annotations

import base64
import copy
import datetime as dt
import hashlib
import json
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import IncrementalBoundaryOverflow, IncrementalCursorPathMissing, IncrementalError, did_you_mean
from ..timeutil import UTC, cursor_instant, epoch_micros, iso_z
from .jsonpath import MISSING, compile_path, find_first, simple_field

BOUNDARY_LIMIT = 10_000
ON_MISSING = ("raise", "include", "exclude")
RANGES = ("open", "closed")
ROW_ORDERS = (None, "asc", "desc")


def cursor_key(value: Any) -> Any:
    """What cursor values are compared by: instants for datetimes, dates and ISO strings."""
    kind = type(value)
    if kind is str:
        return cursor_instant(value)
    if kind is int or kind is float:
        return value
    if isinstance(value, str):
        return cursor_instant(value)
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=UTC)
    return value


def _shift(value: Any, lag: float) -> Any:
    """`value` moved by `lag`: seconds for datetimes and ISO strings, days for dates, units otherwise."""
    if isinstance(value, dt.datetime):
        return value + dt.timedelta(seconds=lag)
    if isinstance(value, dt.date):
        return value + dt.timedelta(days=lag)
    if isinstance(value, str):
        parsed = cursor_instant(value)
        if isinstance(parsed, dt.datetime):
            shifted = parsed + dt.timedelta(seconds=lag)
            return iso_z(shifted) if value.endswith("Z") else shifted.isoformat()
        raise ValueError(f"lag needs a datetime, date or number cursor, got {value!r}")
    return value + lag


class Incremental:
    """A cursor over a resource's rows; pass it as the default of a resource function argument.

    >>> updated = Incremental("updated_at", initial_value="2024-01-01T00:00:00Z")
    >>> updated.start_value
    '2024-01-01T00:00:00Z'
    """

    def __init__(
        self,
        cursor_path: str,
        initial_value: Any = None,
        last_value_func: Callable[[Sequence[Any]], Any] = max,
        primary_key: Any = None,
        end_value: Any = None,
        row_order: Optional[str] = None,
        allow_external_schedulers: bool = False,
        on_cursor_value_missing: str = "raise",
        lag: Optional[float] = None,
        range_start: str = "closed",
        range_end: str = "open",
        boundary_limit: int = BOUNDARY_LIMIT,
    ):
        self.cursor_path = cursor_path
        for name, value, allowed in (("on_cursor_value_missing", on_cursor_value_missing, ON_MISSING),
                                     ("range_start", range_start, RANGES), ("range_end", range_end, RANGES),
                                     ("row_order", row_order, ROW_ORDERS)):
            if value not in allowed:
                raise IncrementalError("?", cursor_path, f"{name}={value!r}{did_you_mean(value, allowed)}; expected one of {allowed}")
        if allow_external_schedulers and os.environ.get("SPARKLOAD_INTERVAL_START"):
            initial_value = os.environ["SPARKLOAD_INTERVAL_START"]
            end_value = os.environ.get("SPARKLOAD_INTERVAL_END") or end_value
        self.initial_value, self.end_value, self.last_value_func = initial_value, end_value, last_value_func
        self.primary_key, self.row_order, self.lag = primary_key, row_order, lag
        self.on_cursor_value_missing, self.range_start, self.range_end = on_cursor_value_missing, range_start, range_end
        self.boundary_limit = boundary_limit
        self.builtin = last_value_func in (max, min)
        if end_value is not None:
            if initial_value is None:
                raise IncrementalError("?", cursor_path, "end_value needs an initial_value")
            if not self._same(self._func((end_value, initial_value)), end_value):
                raise IncrementalError("?", cursor_path, f"end_value {end_value!r} is before initial_value {initial_value!r} for {getattr(last_value_func, '__name__', last_value_func)}")
        try:
            self._path = compile_path(cursor_path)
        except ValueError as e:
            raise IncrementalError("?", cursor_path, str(e)) from None
        self._field = simple_field(self._path)
        self.resource_name = "?"
        self.start_value = self.last_value = initial_value
        self.start_out_of_range = self.end_out_of_range = False
        self._start_hashes: set = set()
        self._last_rows: List[Any] = []
        self._overflow = 0
        self._dedup_key: Optional[List[str]] = None
        self._dedup = False
        self._resource_state: Optional[Dict[str, Any]] = None
        self._last_key: Any = None
        self._stored_start: Any = initial_value
        self._kept = False

    # -- comparisons: builtin max/min compare parsed instants, a custom function its own values
    def _func(self, values: Sequence[Any]) -> Any:
        if self.builtin:
            return self.last_value_func(values, key=cursor_key)
        return self.last_value_func(values)

    def _same(self, a: Any, b: Any) -> bool:
        return cursor_key(a) == cursor_key(b) if self.builtin else a == b

    @property
    def is_stateless(self) -> bool:
        """A run with `end_value` is a backfill that reads and writes no state."""
        return self.end_value is not None

    def bind(self, resource_state: Dict[str, Any], resource_name: str, resource_primary_key: Sequence[str]) -> "Incremental":
        """A copy of this cursor for one run of `resource_name`, started from its stored state."""
        bound = copy.copy(self)
        bound.resource_name = resource_name
        entry = None if self.is_stateless else resource_state.get("incremental", {}).get(self.cursor_path)
        stored = entry.get("last_value") if entry else None
        start = bound._stored_start = stored if stored is not None else self.initial_value
        lagged = bool(self.lag) and self.builtin and not self.is_stateless
        if lagged and stored is not None:
            start = _shift(stored, -self.lag if self.last_value_func is max else self.lag)
            if self.initial_value is not None:
                start = self._func((start, self.initial_value))
        key = self.primary_key if self.primary_key is not None else (list(resource_primary_key) or None)
        bound._dedup_key = None if key is None else ([key] if isinstance(key, str) else list(key))
        bound._dedup = not (self.range_start == "open" or self.is_stateless or lagged or bound._dedup_key == [])
        bound._start_hashes = set(entry.get("unique_hashes", [])) if entry and bound._dedup and not lagged else set()
        bound.start_value = bound.last_value = start
        bound._last_key = bound._start_key = None if start is None else cursor_key(start)
        bound._end_key = None if self.end_value is None else cursor_key(self.end_value)
        bound._ascending = self.last_value_func is max
        bound.start_out_of_range = bound.end_out_of_range = False
        bound._last_rows, bound._overflow = [], 0
        bound._kept = False
        bound._resource_state = resource_state
        return bound

    def cursor_value(self, row: Any) -> Any:
        if self._field is not None and isinstance(row, dict):
            return row.get(self._field, MISSING)
        return find_first(self._path, row)

    def __call__(self, row: Any) -> bool:
        """Whether `row` passes the cursor; advances `last_value`."""
        value = self.cursor_value(row)
        if value is MISSING or value is None:
            if self.on_cursor_value_missing == "raise":
                raise IncrementalCursorPathMissing(self.resource_name, self.cursor_path, row)
            self._kept = self._kept or self.on_cursor_value_missing == "include"
            return self.on_cursor_value_missing == "include"
        if self.builtin:
            return self._call_ordered(row, value)
        func, same, end, start = self._func, self._same, self.end_value, self.start_value
        if end is not None and (not same(func((value, end)), end) or (self.range_end == "open" and same(value, end))):
            self.end_out_of_range = True
            return False
        if start is not None and same(func((value, start)), start):
            if not same(func((value,)), start) or self.range_start == "open" or (
                self._start_hashes and self.row_hash(row) in self._start_hashes
            ):
                self.start_out_of_range = True
                return False
        last = self.last_value
        new = func((value,)) if last is None else func((value, last))
        if last is None or not same(new, last):
            self.last_value = new
            self._last_rows, self._overflow = [row], 0
        elif self._dedup and same(func((value,)), last):
            if len(self._last_rows) < self.boundary_limit:
                self._last_rows.append(row)
            else:
                self._overflow += 1
        self._kept = True
        return True

    def _call_ordered(self, row: Any, value: Any) -> bool:
        """`__call__` for max/min: the same rules on parsed keys, each parsed once (the hot path)."""
        key = cursor_key(value)
        ascending = self._ascending
        end = self._end_key
        if end is not None and ((key > end if ascending else key < end) or (key == end and self.range_end == "open")):
            self.end_out_of_range = True
            return False
        start = self._start_key
        if start is not None and ((start > key if ascending else start < key) or (key == start and (
                self.range_start == "open" or (self._start_hashes and self.row_hash(row) in self._start_hashes)))):
            self.start_out_of_range = True
            return False
        last = self._last_key
        if last is None or (key > last if ascending else key < last):
            self.last_value, self._last_key = value, key
            self._last_rows, self._overflow = [row], 0
        elif self._dedup and key == last:
            if len(self._last_rows) < self.boundary_limit:
                self._last_rows.append(row)
            else:
                self._overflow += 1
        self._kept = True
        return True

    def filter_arrow(self, data: Any) -> Any:
        """`data` (an Arrow table) without the rows the cursor drops, as `__call__` row by row would,
        computed on whole columns for max/min over a top-level column of numbers, timestamps or dates;
        other cursors go row by row."""
        import pyarrow as pa

        prepared = self._arrow_keys(data) if self.builtin and self._field is not None else None
        if prepared is None:
            return data.filter(pa.array([self(row) for row in data.to_pylist()], pa.bool_()))
        keys, valid, as_key = prepared
        if not valid.all() and self.on_cursor_value_missing == "raise":
            row = data.slice(int(np.argmin(valid)), 1).to_pylist()[0]
            raise IncrementalCursorPathMissing(self.resource_name, self.cursor_path, row)
        asc, keep = self._ascending, valid.copy()
        if self._end_key is not None:
            end = as_key(self._end_key)
            past = valid & ((keys > end) if asc else (keys < end))
            if self.range_end == "open":
                past |= valid & (keys == end)
            self.end_out_of_range |= bool(past.any())
            keep &= ~past
        if self._start_key is not None:
            start = as_key(self._start_key)
            early = valid & ((keys < start) if asc else (keys > start))
            at_start = keep & (keys == start)
            if self.range_start == "open":
                early |= at_start
            elif self._start_hashes and at_start.any():
                where = np.nonzero(at_start)[0]
                for i, row in zip(where, data.take(pa.array(where)).to_pylist()):
                    early[i] = self.row_hash(row) in self._start_hashes
            self.start_out_of_range |= bool((keep & early).any())
            keep &= ~early
        if keep.any():
            self._kept = True
            best = keys[keep].max() if asc else keys[keep].min()
            new = self._last_key is None or ((best > as_key(self._last_key)) if asc else (best < as_key(self._last_key)))
            if new or best == as_key(self._last_key):
                where = np.nonzero(keep & (keys == best))[0]
                if new:
                    self.last_value = data.column(self._field)[int(where[0])].as_py()
                    self._last_key, self._last_rows, self._overflow = cursor_key(self.last_value), [], 0
                take = where if self._dedup else where[:1] if new else where[:0]
                for row in data.take(pa.array(take)).to_pylist():
                    if not self._last_rows or len(self._last_rows) < self.boundary_limit:
                        self._last_rows.append(row)
                    else:
                        self._overflow += 1
        if self.on_cursor_value_missing == "include" and not valid.all():
            self._kept = True
            keep |= ~valid
        return data if keep.all() else data.filter(pa.array(keep))  # filter copies every column

    def _arrow_keys(self, data: Any) -> Optional[Tuple[np.ndarray, np.ndarray, Callable[[Any], Any]]]:
        """(keys, valid, as_key): the cursor column as numpy values comparable with `as_key(cursor key)`
        (numbers; timestamps and dates as UTC microseconds), or None when only row by row can compare."""
        import pyarrow as pa
        import pyarrow.types as t

        if self._field not in data.column_names:
            return None
        column = data.column(self._field).combine_chunks()
        kind, bounds = column.type, [k for k in (self._start_key, self._end_key, self._last_key) if k is not None]
        valid = column.is_valid().to_numpy(zero_copy_only=False)
        if t.is_integer(kind) or t.is_floating(kind):
            if not all(type(k) in (int, float) for k in bounds):
                return None
            as_float = t.is_floating(kind) or any(type(k) is float for k in bounds)
            values = column.cast(pa.float64() if as_float else pa.int64()).fill_null(0).to_numpy()
            return values, valid, (float if as_float else int)
        if not (t.is_timestamp(kind) or t.is_date(kind)) or not all(isinstance(k, dt.datetime) for k in bounds):
            return None
        try:
            stamps = column.cast(pa.timestamp("us")) if t.is_date(kind) else column
            micros = stamps.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).fill_null(0).to_numpy()
        except pa.ArrowInvalid:
            return None
        return micros, valid, epoch_micros

    def can_close(self) -> bool:
        """True when `row_order` says no later row can pass: the extractor stops the resource."""
        return (self.row_order == "asc" and self.end_out_of_range) or (
            self.row_order == "desc" and self.start_out_of_range)

    def row_hash(self, row: Any) -> str:
        if self._dedup_key is not None:
            try:
                key = [row[k] for k in self._dedup_key]
            except (KeyError, TypeError) as e:
                raise IncrementalError(self.resource_name, self.cursor_path, f"dedup key {self._dedup_key} missing in row {str(row)[:200]}") from e
        else:
            key = row
        text = json.dumps(key, sort_keys=True, default=str)
        return base64.b64encode(hashlib.blake2b(text.encode(), digest_size=9).digest()).decode("ascii")

    def commit(self) -> None:
        """Write this run's cursor into the resource state (nothing for a stateless backfill)."""
        if self.is_stateless or self._resource_state is None or self.last_value is None:
            return
        entries = self._resource_state.setdefault("incremental", {})
        stored = (entries.get(self.cursor_path) or {}).get("last_value")
        last = self.last_value
        if stored is not None and self.builtin:
            last = self._func((last, stored))
        hashes: set = set()
        if self._dedup:
            count = len(self._last_rows) + self._overflow
            if self._same(last, self.start_value):
                count += len(self._start_hashes)
            if count > self.boundary_limit:
                raise IncrementalBoundaryOverflow(self.resource_name, self.cursor_path, last, count, self.boundary_limit)
            hashes = {self.row_hash(r) for r in self._last_rows}
            if self._same(last, self.start_value):
                hashes |= self._start_hashes
        entries[self.cursor_path] = {
            "initial_value": self.initial_value, "last_value": last, "unique_hashes": sorted(hashes),
            # as dlt: the run's start before `lag`, written only by a run that kept a row
            "start_value": self._stored_start if self._kept else (entries.get(self.cursor_path) or {}).get(
                "start_value", self.initial_value),
        }

    def __repr__(self) -> str:
        return f"Incremental({self.cursor_path!r}, start_value={self.start_value!r}, last_value={self.last_value!r})"


def incremental(cursor_path: str, initial_value: Any = None, **kwargs: Any) -> Incremental:
    """dlt's `dlt.sources.incremental`: see `Incremental`."""
    return Incremental(cursor_path, initial_value, **kwargs)
