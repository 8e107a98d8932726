"""A real HTTP API for the REST source tests, served on 127.0.0.1 from a thread.

It serves a small shop: `items` (id, name, updated_at, tags) and `users` with their `orders`, behind
every paginator style the source supports, with time filters in the query, a header or a JSON body,
optional auth (api key in header or query, bearer, basic, OAuth2 client credentials), and optional
rate limiting (every Nth request answers 429 with Retry-After). Tests mutate `api.items` between runs
(late updates, new rows) and read `api.requests` to see what was fetched.
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlencode, urlparse

TOKEN = "s3cret-token"
API_KEY = "k-123"
BASIC = ("ann", "pw")
CLIENT = ("client-1", "client-secret")


def iso(ts: dt.datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: str) -> dt.datetime:
    if value.isdigit():
        return dt.datetime.fromtimestamp(int(value), dt.timezone.utc)
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass
class ShopApi:
    items: List[Dict[str, Any]] = field(default_factory=list)
    users: List[Dict[str, Any]] = field(default_factory=list)
    orders: Dict[int, List[Dict[str, Any]]] = field(default_factory=dict)
    auth: Optional[str] = None
    rate_limit_every: Optional[int] = None
    hidden: Tuple[int, ...] = ()  # item ids a page leaves out after paging (as APIs filtering by permission do)
    requests: List[Tuple[str, str, Dict[str, Any]]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


def _window(rows, query, headers, body) -> List[Dict[str, Any]]:
    since = query.get("since") or query.get("since_epoch") or headers.get("X-Since")
    until = query.get("until") or headers.get("X-Until")
    if body and isinstance(body.get("filter"), dict):
        since = since or body["filter"].get("updated_since")
        until = until or body["filter"].get("updated_until")
    out = sorted(rows, key=lambda r: (r["updated_at"], r["id"]))
    if since:
        out = [r for r in out if parse_time(r["updated_at"]) >= parse_time(str(since))]
    if until:
        out = [r for r in out if parse_time(r["updated_at"]) < parse_time(str(until))]
    return out


class JsonHandler(BaseHTTPRequestHandler):
    """A test API's request handler: quiet, answering JSON with `_send` (the API servers of tests/parity_airbyte too)."""

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: Any = None, headers: Optional[Dict[str, str]] = None) -> None:
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


class _Handler(JsonHandler):
    api: ShopApi

    def _authorized(self, query: Dict[str, str]) -> bool:
        mode, h = self.api.auth, self.headers
        if mode is None:
            return True
        if mode == "api_key_header":
            return h.get("X-API-Key") == API_KEY
        if mode == "api_key_query":
            return query.get("api_key") == API_KEY
        if mode in ("bearer", "oauth2"):
            return h.get("Authorization") == f"Bearer {TOKEN}"
        if mode == "basic":
            return h.get("Authorization") == "Basic " + base64.b64encode(":".join(BASIC).encode()).decode()
        return False

    def do_GET(self) -> None:
        self._handle(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.startswith("/oauth/token"):
            expected = "Basic " + base64.b64encode(":".join(CLIENT).encode()).decode()
            ok = self.headers.get("Authorization") == expected and b"grant_type=client_credentials" in raw
            self._send(200 if ok else 401, {"access_token": TOKEN, "expires_in": 3600} if ok else {"error": "denied"})
            return
        self._handle(json.loads(raw) if raw else None)

    def _handle(self, body: Any) -> None:
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        self.api.requests.append((self.command, url.path, dict(query, **({"json": body} if body else {}))))
        n = len(self.api.requests)
        if self.api.rate_limit_every and n % self.api.rate_limit_every == 0:
            self._send(429, {"error": "slow down"}, {"Retry-After": "1"})
            return
        if not self._authorized(query):
            self._send(401, {"error": "unauthorized"})
            return
        parts = [p for p in url.path.split("/") if p]
        if parts[:1] == ["users"] and len(parts) == 1:
            self._send(200, self.api.users)
        elif parts[:1] == ["users"] and len(parts) == 2:
            found = [u for u in self.api.users if str(u.get("id")) == parts[1]]
            self._send(200, found[0]) if found else self._send(404, {"error": "no such user"})
        elif parts[:1] == ["users"] and len(parts) == 3 and parts[2] == "orders":
            orders = self.api.orders.get(int(parts[1]))
            if orders is None:
                self._send(404, {"error": "no such user"})
            else:
                self._send(200, {"orders": _window(orders, query, self.headers, body)})
        elif parts[:1] == ["items"] and len(parts) == 2:
            self._items(parts[1], query, body)
        else:
            self._send(404, {"error": "not found"})

    def _shown(self, page: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        return [r for r in page if r["id"] not in self.api.hidden]

    def _items(self, style: str, query: Dict[str, str], body: Any) -> None:
        rows = _window(self.api.items, query, self.headers, body)
        if style == "page":
            size, page = int(query.get("per_page", 2)), int(query.get("page", 1))
            pages = max(1, -(-len(rows) // size))
            self._send(200, {"data": self._shown(rows[(page - 1) * size: page * size]), "total_pages": pages})
        elif style == "offset":
            offset, limit = int(query.get("offset", 0)), int(query.get("limit", 2))
            self._send(200, {"items": self._shown(rows[offset: offset + limit]), "total": len(rows)})
        elif style == "cursor":
            start = int(query.get("cursor", 0))
            nxt = start + 2 if start + 2 < len(rows) else None
            self._send(200, {"items": self._shown(rows[start: start + 2]), "next_cursor": None if nxt is None else str(nxt),
                             "has_more": nxt is not None})
        elif style in ("json_link", "search"):
            start = int(query.get("after", 0))
            keep = {k: v for k, v in query.items() if k != "after"}
            nxt = f"/items/{style}?" + urlencode({**keep, "after": start + 2}) if start + 2 < len(rows) else None
            self._send(200, {"results": self._shown(rows[start: start + 2]), "links": {"next": nxt}})
        elif style == "header_link":
            start = int(query.get("after", 0))
            keep = {k: v for k, v in query.items() if k != "after"}
            headers = {}
            if start + 2 < len(rows):
                headers["Link"] = f'<{self.api.base_url}items/header_link?{urlencode({**keep, "after": start + 2})}>; rel="next"'
            self._send(200, self._shown(rows[start: start + 2]), headers)
        elif style == "single":
            self._send(200, rows[0] if rows else {})
        else:
            self._send(404, {"error": f"no paginator style {style}"})


class ApiServer:
    """Context manager: serves `api` on 127.0.0.1 on a free port until exit, through `handler` (a request
    handler class reading its `api` attribute; this module's shop API's by default)."""

    def __init__(self, api: Any, handler: type = None):
        self.api = api
        handler = type("Handler", (handler or _Handler,), {"api": api})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        api.port = self.httpd.server_address[1]
        # a short poll: `shutdown` waits for the serving loop to look, half a second by default
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Any:
        self.thread.start()
        return self.api

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
