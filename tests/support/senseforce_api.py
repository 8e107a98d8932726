"""A local Senseforce API as airbyte-source-senseforce 0.1.15 calls it (its manifest: `url_base` is the config's
`backend_url`): `POST /api/dataset/execute/<dataset_id>?offset=&limit=` with a bearer token and a JSON body
whose timestamp clause holds the window's bounds in epoch milliseconds (both inclusive). The connector's body
template ends with a stray `/` after the JSON, so the bounds are read from the text, as a lenient server would.

It answers the dataset's rows `{"id", "thing", "timestamp"}` (milliseconds) in the window, ordered by
timestamp, `limit` from `offset`. `fail_from` answers 400 (an error the connector does not retry) to every
request whose window starts at or after that instant (ms): the API failing mid-stream. Every request's
(offset, since ms) is kept in `requests`.
"""
from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlparse

from pathlib import Path

from .api_server import ApiServer, JsonHandler

PACKAGE, VERSION = "airbyte-source-senseforce", "0.1.15"
VENVS = Path(os.environ.get("SPARKLOAD_CONNECTORS_CACHE", Path.home() / ".cache" / "sparkload" / "connectors"))
TOKEN = "sf-t0ken"
DATASET = "8f418098-ca28-4df5-9498-0df9fe78eda7"
BOUNDS = re.compile(r'"value":\s*(\d+)')
JAN = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def ms(days: float) -> int:
    return int((JAN + dt.timedelta(days=days)).timestamp() * 1000)


def row(i: int, days: float, thing: str = "") -> Dict[str, Any]:
    return {"id": f"r{i}", "thing": thing or f"sensor {i}", "timestamp": ms(days)}


# the connector's windows are 100 days from its start date, each reaching one day into the next (its request
# body adds a day less a millisecond to the end): r6, at day 400.5, is in two windows and read twice
ROWS = [row(1, 1), row(2, 50), row(3, 99.5), row(4, 120), row(5, 250), row(6, 400.5), row(7, 420)]


def config_of(api: "SenseforceApi") -> Dict[str, Any]:
    return {"access_token": TOKEN, "backend_url": api.base_url, "dataset_id": DATASET, "start_date": "2024-01-01"}


@dataclass
class SenseforceApi:
    rows: List[Dict[str, Any]] = field(default_factory=list)
    fail_from: Optional[int] = None
    requests: List[Tuple[int, int]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, path: str, query: Dict[str, str], auth: Optional[str], body: str) -> Tuple[int, Any]:
        if auth != f"Bearer {TOKEN}":
            return 401, {"error": "unauthorized"}
        if path != f"/api/dataset/execute/{DATASET}":
            return 404, {"error": path}
        bounds = [int(v) for v in BOUNDS.findall(body)]
        if len(bounds) != 2:
            return 400, {"error": f"no timestamp clause in {body!r}"}
        since, until = bounds
        offset, limit = int(query.get("offset", 0)), int(query.get("limit", 10_000))
        self.requests.append((offset, since))
        if self.fail_from is not None and since >= self.fail_from:
            return 400, {"error": "dataset query failed"}
        found = sorted((r for r in self.rows if since <= r["timestamp"] <= until), key=lambda r: (r["timestamp"], r["id"]))
        return 200, found[offset: offset + limit]


class _Handler(JsonHandler):
    api: SenseforceApi

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        url = urlparse(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        status, payload = self.api.answer(url.path, {k: v[0] for k, v in parse_qs(url.query).items()},
                                          self.headers.get("Authorization"), body)
        self._send(status, payload)


def SenseforceServer(api: SenseforceApi) -> ApiServer:
    """Context manager: serves `api` on 127.0.0.1 on a free port until exit."""
    return ApiServer(api, _Handler)
