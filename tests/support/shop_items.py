"""Items of the shop API (api_server.py) with an `updated_at` cursor hours after `T0`, for the REST source's tests."""
from __future__ import annotations

import datetime as dt

from .api_server import iso

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def at(hours: float) -> str:
    return iso(T0 + dt.timedelta(hours=hours))


def item(i: int, hours: float, name: str = None):
    return {"id": i, "name": name or f"item {i}", "updated_at": at(hours), "tags": [f"t{i}"]}
