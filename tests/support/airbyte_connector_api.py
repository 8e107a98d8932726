"""One local API playing the three connectors' APIs for the manifest differential, as their manifests call
them: a route per path, each a list of records filtered by the window the request sends and paged as the
manifest pages.

A `Route` says which query parameters carry the window (`since`, `until`, both inclusive) and in which
format (`%ms` epoch milliseconds, `%s` epoch seconds, or a strptime pattern; `day_until`: the upper bound
is a day, the whole day included), and how it pages: `link` (a `Link: <url>; rel="next"` header while
records are left, `per_page` records a page), `page` (`page` from 1, `per_page`), `offset`
(`offset`, `limit`) or none. `fail` answers 400 (an error the CDK does not retry) to the request whose `since` is that value. A record is
served without its `_at` (its instant). Every request is kept in `requests` as (path, query).
"""
from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlencode, urlparse

from .api_server import ApiServer, JsonHandler

UTC = dt.timezone.utc
SLOW = 0.5


def instant(text: str, fmt: str) -> dt.datetime:
    if fmt in ("%ms", "%s"):
        return dt.datetime.fromtimestamp(int(text) / (1000 if fmt == "%ms" else 1), UTC)
    return dt.datetime.strptime(text, fmt).replace(tzinfo=UTC)


@dataclass
class Route:
    records: List[Dict[str, Any]] = field(default_factory=list)
    since: Optional[str] = None
    until: Optional[str] = None
    fmt: str = "%s"
    day_until: bool = False
    paging: Optional[str] = None
    fail: Optional[str] = None
    slow: Optional[str] = None  # the request whose `since` is this value is answered after SLOW seconds


@dataclass
class ConnectorApi:
    routes: Dict[str, Route] = field(default_factory=dict)
    requests: List[Tuple[str, Dict[str, str]]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def answer(self, path: str, query: Dict[str, str]) -> Tuple[int, Any, Dict[str, str]]:
        self.requests.append((path, query))
        route = self.routes.get(path)
        if route is None:
            return 404, {"error": path}, {}
        if route.slow is not None and query.get(route.since) == route.slow:
            time.sleep(SLOW)
        if route.fail is not None and query.get(route.since) == route.fail:
            return 400, {"error": "the API is down"}, {}
        rows = sorted(route.records, key=lambda r: (r["_at"], str(r.get("id"))))
        if route.since in query:
            rows = [r for r in rows if r["_at"] >= instant(query[route.since], route.fmt)]
        if route.until in query:
            upper = instant(query[route.until], route.fmt) + (dt.timedelta(days=1) if route.day_until else dt.timedelta(0))
            rows = [r for r in rows if (r["_at"] < upper if route.day_until else r["_at"] <= upper)]
        rows = [{k: v for k, v in r.items() if k != "_at"} for r in rows]
        headers: Dict[str, str] = {}
        if route.paging in ("link", "page"):
            size, page = int(query.get("per_page", 100)), int(query.get("page", 1))
            chunk, more = rows[(page - 1) * size: page * size], page * size < len(rows)
            if route.paging == "link" and more:
                headers["Link"] = f'<{self.base_url.rstrip("/")}{path}?{urlencode({**query, "page": page + 1})}>; rel="next"'
            rows = chunk
        elif route.paging == "offset":
            offset, limit = int(query.get("offset", 0)), int(query.get("limit", 100))
            rows = rows[offset: offset + limit]
        return 200, rows, headers


class _Handler(JsonHandler):
    api: ConnectorApi

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlparse(self.path)
        status, payload, headers = self.api.answer(url.path, {k: v[0] for k, v in parse_qs(url.query).items()})
        self._send(status, payload, headers)


def ConnectorServer(api: ConnectorApi) -> ApiServer:
    """Context manager: serves `api` on 127.0.0.1 on a free port until exit."""
    return ApiServer(api, _Handler)
