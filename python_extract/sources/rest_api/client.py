"""The HTTP client of the REST API source: sends requests with auth, retries what is worth retrying,
applies per-status rules, and pages through an endpoint.

Retries (tenacity): HTTP 429 and 5xx (and connection errors) up to `max_attempts`, waiting
`Retry-After` when the server says (seconds or an HTTP date, capped by `max_retry_after`), else
exponential backoff from `backoff_factor`; on giving up, one `HttpError` naming the last attempt.
Status rules (`response_actions`), checked before any retry: `{status_code: 404, action: ignore}`
treats that response as an empty page; `action: fail` fails at once; every other 4xx fails with the
status, URL and the start of the body.

Errors: `HttpError` (a failed request, named by method, URL and status)
    └── `RetryableError` (429, 5xx or a connection error, still failing after the last attempt).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import urljoin

import tenacity

from ...errors import SparkloadError
from .auth import Auth
from .paginators import Paginator, Request, detect_paginator
from .selector import records_path, select_records

log = logging.getLogger("sparkload.rest_api")

RETRY_STATUS = {429, 500, 502, 503, 504}


class HttpError(SparkloadError):
    """The API answered with an error or could not be reached (exit 1: a step failed)."""

    def __init__(self, request: Request, status: Optional[int], detail: str):
        self.status = status
        super().__init__(f"{request.method} {request.url} failed{f' with HTTP {status}' if status else ''}: {detail}")


class RetryableError(HttpError):
    """A failure worth another attempt (429, 5xx, a connection error); raised when none is left."""

    def __init__(self, request: Request, status: Optional[int], detail: str, response: Any = None):
        self.request, self.response = request, response
        super().__init__(request, status, detail)


@dataclass
class Retry:
    """The retry policy (`client.retry` in the config), run by tenacity as dlt's rest client does."""
    max_attempts: int = 5
    backoff_factor: float = 0.5
    max_retry_after: float = 60.0

    def wait(self, state: tenacity.RetryCallState) -> float:
        """Seconds before the next attempt: the response's Retry-After (whole seconds or an HTTP date,
        read by urllib3's rule) capped by `max_retry_after`, else backoff_factor * 2 ** (attempts - 1)."""
        from urllib3.exceptions import InvalidHeader
        from urllib3.util import Retry as Urllib3Retry

        response = getattr(state.outcome.exception(), "response", None)
        header = response.headers.get("Retry-After") if response is not None else None
        if header:
            try:
                return Urllib3Retry(retry_after_max=self.max_retry_after).parse_retry_after(header)
            except InvalidHeader:
                log.warning("ignoring an invalid Retry-After header %r: backing off instead", header)
        return tenacity.wait_exponential(multiplier=self.backoff_factor)(state)

    def retrying(self) -> tenacity.Retrying:
        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.max_attempts), wait=self.wait,
            retry=tenacity.retry_if_exception_type(RetryableError), reraise=True, before_sleep=_log_retry,
        )


def _log_retry(state: tenacity.RetryCallState) -> None:
    sent = state.outcome.exception().request
    log.info("retrying %s %s in %.1fs (attempt %d)", sent.method, sent.url, state.next_action.sleep, state.attempt_number)


@dataclass
class RestClient:
    base_url: str
    headers: Dict[str, str] = field(default_factory=dict)
    auth: Optional[Auth] = None
    retry: Retry = field(default_factory=Retry)
    response_actions: List[Dict[str, Any]] = field(default_factory=list)
    timeout: float = 60.0
    session: Any = None

    def __post_init__(self) -> None:
        if self.session is None:
            import requests

            self.session = requests.Session()
        if not self.base_url.endswith("/"):
            self.base_url += "/"

    def url(self, path: str) -> str:
        return urljoin(self.base_url, path.lstrip("/")) if not path.startswith(("http://", "https://")) else path

    def send(self, request: Request, actions: Optional[List[Dict[str, Any]]] = None) -> Any:
        """The response to `request` after retries, or None when a status rule says ignore."""
        return self.retry.retrying()(self._attempt, request, [*(actions or []), *self.response_actions])

    def _attempt(self, request: Request, rules: List[Dict[str, Any]]) -> Any:
        import requests

        sent = Request(request.url, request.method, dict(request.params), {**self.headers, **request.headers}, request.json)
        if self.auth is not None:
            self.auth.apply(sent, self.session)  # per attempt: an OAuth2 token may expire while waiting
        try:
            response = self.session.request(
                sent.method, sent.url, params=sent.params, headers=sent.headers, json=sent.json, timeout=self.timeout
            )
        except requests.ConnectionError as e:
            raise RetryableError(sent, None, str(e)) from e
        action = _action_for(rules, response)
        if action == "ignore":
            return None
        if action == "fail":
            raise HttpError(sent, response.status_code, response.text[:200])
        if response.status_code in RETRY_STATUS:
            raise RetryableError(sent, response.status_code, f"still failing after {self.retry.max_attempts} attempts", response)
        if response.status_code >= 400:
            raise HttpError(sent, response.status_code, response.text[:200])
        return response

    def paginate(
        self, request: Request, paginator: Optional[Paginator], data_selector: Optional[str] = None,
        actions: Optional[List[Dict[str, Any]]] = None,
    ) -> Iterator[List[Any]]:
        """Pages of records of one endpoint, first to last; without a paginator, one is guessed from the first
        response (`detect_paginator`), as dlt's client does."""
        request.url = self.url(request.url)
        if paginator is not None:
            paginator.init_request(request)
        selector = data_selector or None
        while True:
            response = self.send(request, actions)
            if response is None:
                return
            body = response.json() if response.content else None
            if selector is None:  # found on the first page, as dlt's client does; later pages are read there
                selector = records_path(body)
            records = select_records(body, selector)
            if paginator is None:
                paginator = detect_paginator(response, body)
                log.warning("%s %s: no paginator configured; guessed %s from the first response, as dlt does (a guess "
                            "can miss or repeat pages: configure the paginator)", request.method, request.url, paginator)
            paginator.update_state(response, body, records)
            if records:
                yield records
            if not paginator.has_next_page:
                return
            paginator.update_request(request)


def _action_for(rules: List[Dict[str, Any]], response: Any) -> Optional[str]:
    for rule in rules:
        status = rule.get("status_code")
        content = rule.get("content")
        if status is not None and int(status) != response.status_code:
            continue
        if content is not None and content not in response.text:
            continue
        return rule.get("action")
    return None
