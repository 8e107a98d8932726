"""dlt's `dlt.sources.helpers.requests` against sparkload's `python_extract.sources.helpers.requests`, both
calling one local HTTP server: the same answers, errors and number of attempts."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict

import pytest

from ..support.tally import record_vs_dlt as record


class _Server:
    """`/flaky/<k>`: 503 (Retry-After: 0) twice, then 200 with JSON; `/missing`: 404; `/down/<k>`: always
    503 (Retry-After: 0); `/slow-header`: 429 with an HTTP-date Retry-After in the past, then 200."""

    def __init__(self):
        self.hits: Dict[str, int] = {}
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                hits[self.path] = hits.get(self.path, 0) + 1
                n = hits[self.path]
                if self.path.startswith("/flaky") and n <= 2 or self.path.startswith("/down"):
                    self._send(503, b"busy", {"Retry-After": "0"})
                elif self.path.startswith("/slow-header") and n == 1:
                    self._send(429, b"slow down", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
                elif self.path.startswith("/missing"):
                    self._send(404, b"no such thing", {})
                else:
                    self._send(200, b'{"ok": true, "path": "%s"}' % self.path.encode(), {"Content-Type": "application/json"})

            def _send(self, status, body, headers):
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = _Server()
    yield s
    s.close()


def test_requests_helper__the_same_answers_errors_and_attempts_as_dlts(server):
    from dlt.sources.helpers import requests as theirs

    from python_extract.sources.helpers import requests as ours

    for side, helper in (("dlt", theirs), ("sl", ours)):
        answer = helper.get(f"{server.url}/flaky/{side}")
        assert (answer.status_code, answer.json()) == (200, {"ok": True, "path": f"/flaky/{side}"})
        assert server.hits[f"/flaky/{side}"] == 3  # two 503s retried
        assert helper.get(f"{server.url}/slow-header/{side}").status_code == 200
        with pytest.raises(helper.HTTPError) as missing:
            helper.get(f"{server.url}/missing/{side}")
        assert missing.value.response.status_code == 404 and server.hits[f"/missing/{side}"] == 1  # a 4xx is not retried
    # always 503: five attempts, then the error (quick backoff: dlt backs off 1, 2, 4, 8 s on `Retry-After: 0`)
    for side, quick in (("dlt", theirs.Client(request_backoff_factor=0.01)), ("sl", ours.Session(backoff_factor=0.01))):
        with pytest.raises(ours.HTTPError) as down:
            quick.get(f"{server.url}/down/{side}")
        assert down.value.response.status_code == 503 and server.hits[f"/down/{side}"] == 5
    # nothing listens: retried, then the connection error raised (two quick attempts on both)
    for quick in (theirs.Client(request_max_attempts=2, request_backoff_factor=0.01), ours.Session(max_attempts=2, backoff_factor=0.01)):
        with pytest.raises(ours.ConnectionError):
            quick.get("http://127.0.0.1:9/", timeout=2)
    kept = ours.Session(raise_for_status=False, max_attempts=2)
    assert kept.get(f"{server.url}/down/kept").status_code == 503 and server.hits["/down/kept"] == 2
    record("incremental", "identical")
