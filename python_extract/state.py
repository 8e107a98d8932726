"""Pipeline state: a JSON document committed with the data it accounts for.

    {"pipeline_name": ..., "sources": {<source>: {"resources": {<resource>: {
        "incremental": {<cursor_path>: {"initial_value", "last_value", "unique_hashes", "start_value"}},
        "windows": {<argument>: {"last_end": ...}}}}}}}

Values keep their Python type across the JSON round trip (datetime, date, Decimal are tagged).
The state travels in each load package (`state.json`) and lands as a `_dlt_pipeline_state` row keyed by
the load id; it is restored from the newest such row whose load is complete (see load/destination.py).
"""
from __future__ import annotations

import base64
import copy
import datetime as dt
import hashlib
import json
import zlib
from decimal import Decimal
from typing import Any, Dict

from .timeutil import parse, parse_date

State = Dict[str, Any]


def new_state(pipeline_name: str) -> State:
    return {"pipeline_name": pipeline_name, "sources": {}}


def resource_state(state: State, source: str, resource: str) -> Dict[str, Any]:
    sources = state.setdefault("sources", {})
    return sources.setdefault(source, {}).setdefault("resources", {}).setdefault(resource, {})


def encode_value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"__datetime__": value.isoformat()}
    if isinstance(value, dt.date):
        return {"__date__": value.isoformat()}
    if isinstance(value, Decimal):
        return {"__decimal__": str(value)}
    if isinstance(value, (list, tuple)):
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: encode_value(v) for k, v in value.items()}
    return value


def decode_value(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1:
            (tag, raw), = value.items()
            if tag == "__datetime__":
                return parse(raw, tz=None)  # a naive value stays naive, as the source gave it
            if tag == "__date__":
                return parse_date(raw)
            if tag == "__decimal__":
                return Decimal(raw)
        return {k: decode_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    return value


def snapshot(state: State) -> State:
    """A JSON-ready deep copy of `state`."""
    return encode_value(copy.deepcopy(state))


def compress(state: State) -> str:
    """dlt's wire format of the `state` column: base64 of zlib of the JSON."""
    return base64.b64encode(zlib.compress(json.dumps(state, sort_keys=True).encode())).decode("ascii")


def decompress(text: str) -> State:
    return decode_value(json.loads(zlib.decompress(base64.b64decode(text))))


def state_hash(state: State) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]
