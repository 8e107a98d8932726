"""A test double of the REST source's network seam: a requests transport that answers from a function,
so client tests need no server (as httpx's `MockTransport`).

    >>> session = mock_session(lambda request: (200, {}, {"data": [{"id": 1}]}))
    >>> RestClient("https://api.test/", session=session).send(Request("https://api.test/items")).json()
    {'data': [{'id': 1}]}

The handler gets the `requests.PreparedRequest` and returns `(status, headers, body)` (a body that is
not bytes or str is sent as JSON), or raises, e.g. `requests.ConnectionError`, to fail the attempt.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, Tuple

import requests
from requests.adapters import BaseAdapter

Handler = Callable[[requests.PreparedRequest], Tuple[int, Dict[str, str], Any]]


class MockTransport(BaseAdapter):
    def __init__(self, handler: Handler):
        super().__init__()
        self.handler = handler

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        status, headers, body = self.handler(request)
        response = requests.Response()
        response.status_code, response.url, response.request = status, request.url, request
        response.headers.update(headers)
        response._content = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        return response

    def close(self) -> None:
        pass


def mock_session(handler: Handler) -> requests.Session:
    """A session whose every request, http or https, goes to `handler`."""
    session = requests.Session()
    for prefix in ("http://", "https://"):
        session.mount(prefix, MockTransport(handler))
    return session
