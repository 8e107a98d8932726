"""dlt's `dlt.sources.helpers.requests`: `requests` with dlt's retries, for a ported resource
(`from python_extract.sources.helpers import requests`, then `requests.get(url)` as before).

A request answered with 429 or a 5xx, or failing to connect or read, is tried again, up to `max_attempts`
(5) in all, waiting the response's `Retry-After` (capped by `max_retry_after`) or else an exponential backoff
from `backoff_factor` (the REST API source's `Retry` policy, rest_api/client.py); when the attempts run out
the last response stands, or the last connection error is raised. Every request has a `timeout` (60 s) and,
as in dlt, an error status raises `HTTPError` (`raise_for_status=False` keeps the response instead).
"""
from __future__ import annotations

from typing import Any

import requests as _requests
import tenacity
from requests import (  # noqa: F401 - dlt's helper re-exports these
    ConnectionError, ConnectTimeout, HTTPError, ReadTimeout, Request, RequestException, Response, Timeout,
    TooManyRedirects,
)
from requests.exceptions import ChunkedEncodingError

from ..rest_api.client import Retry

RETRY_STATUS = (429, *range(500, 600))  # dlt's DEFAULT_RETRY_STATUS
RETRY_ERRORS = (ConnectionError, Timeout, ChunkedEncodingError)


class _StatusToRetry(Exception):
    def __init__(self, response: Response):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


class Session(_requests.Session):
    """A `requests.Session` whose every request is retried as the module says."""

    def __init__(self, timeout: float = 60.0, raise_for_status: bool = True, max_attempts: int = 5,
                 backoff_factor: float = 1.0, max_retry_after: float = 300.0):
        super().__init__()
        self.timeout, self.raise_for_status = timeout, raise_for_status
        self.retry = Retry(max_attempts=max_attempts, backoff_factor=backoff_factor, max_retry_after=max_retry_after)

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Response:  # type: ignore[override]
        kwargs.setdefault("timeout", self.timeout)

        def attempt() -> Response:
            response = super(Session, self).request(method, url, *args, **kwargs)
            if response.status_code in RETRY_STATUS:
                raise _StatusToRetry(response)
            return response

        retrying = tenacity.Retrying(stop=tenacity.stop_after_attempt(self.retry.max_attempts), wait=self.retry.wait,
                                     retry=tenacity.retry_if_exception_type((_StatusToRetry, *RETRY_ERRORS)), reraise=True)
        try:
            response = retrying(attempt)
        except _StatusToRetry as e:  # no attempt left: the last answer stands
            response = e.response
        if self.raise_for_status:
            response.raise_for_status()
        return response


client = Session()
get, post, put, patch, delete, options, head, request = (
    client.get, client.post, client.put, client.patch, client.delete, client.options, client.head, client.request)
