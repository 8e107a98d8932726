"""A small events API on 127.0.0.1 for the Airbyte differential: one list of events, read by time window.

`GET /events?<since>=...&<until>=...` answers the events whose instant lies in [since, until] (both
inclusive, as Airbyte's windows are), parsed with the case's `bound_format` (strptime; ISO 8601 when
None). `order` says how a page is sorted (`asc`, `desc`, or `as_is`: the list's own order, to put records
out of order inside a window). With `per_page`, pages are numbered by `page` (1-based) and each answer
carries `next_page`. `fail_since` answers 400 to the request whose `since` is that value, as an API down
in the middle of the windows. Every request's query is kept in `requests`.

An event is `{"id", "updated_at", ...}` as served, plus `_at` (its instant, never served), so the served
`updated_at` can be in any format a case needs.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional
from urllib.parse import parse_qs, urlparse

from .api_server import ApiServer, JsonHandler

UTC = dt.timezone.utc


def instant(text: str, fmt: Optional[str]) -> dt.datetime:
    if fmt == "%s":
        return dt.datetime.fromtimestamp(int(text), UTC)
    value = dt.datetime.strptime(text, fmt) if fmt else dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass
class EventsApi:
    events: List[Dict[str, Any]] = field(default_factory=list)
    since: str = "since"
    until: str = "until"
    bound_format: Optional[str] = None
    order: str = "asc"
    per_page: Optional[int] = None
    fail_since: Optional[str] = None
    requests: List[Dict[str, str]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def answer(self, query: Dict[str, str]) -> tuple:
        self.requests.append(query)
        if self.fail_since is not None and query.get(self.since) == self.fail_since:
            return 400, {"error": "the API is down"}
        rows = list(self.events)
        if self.since in query:
            rows = [r for r in rows if r["_at"] >= instant(query[self.since], self.bound_format)]
        if self.until in query:
            rows = [r for r in rows if r["_at"] <= instant(query[self.until], self.bound_format)]
        if self.order != "as_is":
            rows.sort(key=lambda r: (r["_at"], r["id"]), reverse=self.order == "desc")
        rows = [{k: v for k, v in r.items() if k != "_at"} for r in rows]
        if self.per_page is None:
            return 200, rows
        page = int(query.get("page", 1))
        chunk = rows[(page - 1) * self.per_page: page * self.per_page]
        more = page * self.per_page < len(rows)
        return 200, {"data": chunk, "next_page": page + 1 if more else None}


class _Handler(JsonHandler):
    api: EventsApi

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlparse(self.path)
        if url.path.rstrip("/") != "/events":
            status, payload = 404, {"error": url.path}
        else:
            status, payload = self.api.answer({k: v[0] for k, v in parse_qs(url.query).items()})
        self._send(status, payload)


def EventsServer(api: EventsApi) -> ApiServer:
    """Context manager: serves `api` on 127.0.0.1 on a free port until exit."""
    return ApiServer(api, _Handler)
