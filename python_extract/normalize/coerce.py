"""dlt's value typing: the data type of a Python value, the type of a new column, and the coercion of a
value into a column of another type (dlt 1.31 `coerce_value`, checked by tests/parity_extract).

- A new column takes the value's type; text that parses as an ISO 8601 date-time makes a `timestamp`
  column (dlt's default `iso_timestamp` detection).
- A value of another type than its column's is coerced where dlt coerces: anything into text; text
  into bigint / double / decimal (trimmed, `0x` hex), bool (`true`/`false`/`yes`/`no`/`t`/`f`/`y`/`n`/
  `1`/`0`), timestamp / date (ISO 8601, also a number of epoch seconds), json, binary (`0x` hex or
  base64); integral doubles and decimals into bigint; numbers into double, decimal, bool, timestamp
  and date; dates into timestamps and timestamps into dates (the UTC day).
- Anything else raises `ValueError`: the caller puts the value into a variant column.

Deviation, on purpose: Spark has no TIME type, so a `datetime.time` is typed text (its ISO form).
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime as dt
import json
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Any, Callable, Dict, Tuple
from uuid import UUID

import orjson

from ..contract import PYTHON_DATA_TYPES
from ..timeutil import UTC, from_epoch, parse_date, parse_iso, parse_iso_datetime, plain
PY_TYPES: Dict[type, str] = dict(PYTHON_DATA_TYPES)  # by exact type: the hot path


def py_type(value: Any) -> str:
    """dlt's data type of `value`'s Python type (subclasses included).

    >>> py_type(1), py_type("a"), py_type(True)
    ('bigint', 'text', 'bool')
    """
    found = PY_TYPES.get(type(value))
    if found is not None:
        return found
    for base, data_type in PYTHON_DATA_TYPES:
        if isinstance(value, base):
            return data_type
    return "json" if dataclasses.is_dataclass(value) else "text"


def detect_type(value: Any) -> str:
    """The type of a new column whose first value is `value`: its `py_type`, except ISO 8601
    date-time text, which makes a timestamp column."""
    data_type = py_type(value)
    if data_type == "time":
        return "text"
    if data_type == "text" and value and type(value) is str and parse_iso_datetime(value) is not None:
        return "timestamp"
    return data_type


def to_timestamp(value: Any) -> dt.datetime:
    """A datetime from ISO text, epoch-seconds text, a number or a date (naive stays naive: UTC)."""
    if isinstance(value, dt.datetime):
        return plain(value)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, (int, float)):
        return from_epoch(value)
    try:
        parsed = parse_iso(value)
    except ValueError:
        return from_epoch(float(value))
    if isinstance(parsed, dt.datetime):
        return plain(parsed)
    if isinstance(parsed, dt.date):
        return dt.datetime(parsed.year, parsed.month, parsed.day)
    raise ValueError(f"a time of day is not a timestamp: {value!r}")


def to_date(value: Any) -> dt.date:
    """The calendar day of `value` in UTC (an aware date-time is converted first)."""
    if isinstance(value, str):
        try:
            return parse_date(value)
        except ValueError:
            pass
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return dt.date(value.year, value.month, value.day)
    stamp = to_timestamp(value)
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(UTC)
    return stamp.date()


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    raise TypeError(f"{value!r} is not JSON serializable")


def json_text(value: Any) -> str:
    """`value` as dlt writes json: compact, keys in their order, dates in ISO 8601.

    >>> json_text({"b": [1, 2.5], "a": None})
    '{"b":[1,2.5],"a":null}'
    """
    try:
        return orjson.dumps(value, default=_json_default, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value, default=str, separators=(",", ":"))


def _text(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return json_text(value)
    if isinstance(value, bool) or not isinstance(value, (Decimal, dt.date, dt.time, bytes, UUID, Enum)):
        return str(value)
    encoded = _json_default(value)
    return encoded if isinstance(encoded, str) else str(encoded)


def _int_text(value: str) -> int:
    text = value.strip()
    return int(text[2:], 16) if text.startswith("0x") else int(text)


def _float_text(value: str) -> float:
    text = value.strip()
    return float(int(text[2:], 16)) if text.startswith("0x") else float(text)


def _decimal_text(value: str) -> Decimal:
    text = value.strip()
    if text.startswith("0x"):
        return Decimal(int(text[2:], 16))
    try:
        return Decimal(text)
    except InvalidOperation:
        raise ValueError(text) from None


def _integral(value: Any) -> int:
    try:
        if value % 1 != 0:
            raise ValueError(value)
    except InvalidOperation:
        raise ValueError(value) from None
    return int(value)


def _bool_text(value: str) -> bool:
    text = value.lower()
    if text in ("yes", "true", "t", "y", "1"):
        return True
    if text in ("no", "false", "f", "n", "0"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def _binary_text(value: str) -> bytes:
    if value.startswith("0x"):
        return bytes.fromhex(value[2:])
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error:
        raise ValueError(value) from None


COERCIONS: Dict[Tuple[str, str], Callable[[Any], Any]] = {
    **{("text", seen): _text for seen in ("json", "bigint", "double", "decimal", "bool", "binary", "timestamp", "date", "time")},
    ("binary", "text"): _binary_text,
    ("binary", "bigint"): lambda v: v.to_bytes((v.bit_length() + 7) // 8, "little"),
    ("bigint", "text"): _int_text,
    ("bigint", "decimal"): _integral,
    ("bigint", "double"): _integral,
    ("double", "text"): _float_text,
    ("double", "bigint"): float,
    ("double", "decimal"): float,
    ("decimal", "text"): _decimal_text,
    ("decimal", "bigint"): Decimal,
    ("decimal", "double"): lambda v: Decimal(str(v)),
    ("bool", "text"): _bool_text,
    ("bool", "bigint"): bool,
    ("bool", "double"): bool,
    ("bool", "decimal"): bool,
    ("json", "text"): json.loads,
    ("timestamp", "text"): to_timestamp,
    ("timestamp", "bigint"): from_epoch,
    ("timestamp", "double"): from_epoch,
    ("timestamp", "date"): to_timestamp,
    ("date", "text"): to_date,
    ("date", "timestamp"): to_date,
    ("date", "bigint"): to_date,
    ("date", "double"): to_date,
}


def coerce(to_type: str, from_type: str, value: Any) -> Any:
    """`value` (of `from_type`) as a value of `to_type`; ValueError where dlt makes a variant.

    >>> coerce("bigint", "text", " 0x10 "), coerce("bool", "text", "false")
    (16, False)
    """
    if to_type == from_type:
        return _aware(value) if to_type == "timestamp" else value
    coercion = COERCIONS.get((to_type, from_type))
    if coercion is None:
        raise ValueError(f"cannot coerce {from_type} to {to_type}")
    try:
        value = coercion(value)
    except (OverflowError, TypeError, ArithmeticError) as e:
        raise ValueError(str(e)) from e
    return _aware(value) if to_type == "timestamp" else value


def _aware(value: dt.datetime) -> dt.datetime:
    """A timestamp column's value: naive means UTC (dlt's `timezone` hint, on by default)."""
    value = plain(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value
