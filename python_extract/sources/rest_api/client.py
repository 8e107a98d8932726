"""The HTTP client of the REST API source: sends requests with auth, retries what is worth retrying,
applies per-status rules, and pages through an endpoint.

Retries: HTTP 429 and 5xx (and connection errors) up to `max_attempts`, waiting `Retry-After` when the
server says (seconds or an HTTP date, capped by `max_retry_after`), else exponential backoff from
`backoff_factor`. Status rules (`response_actions`): `{status_code: 404, action: ignore}` treats that
response as an empty page; `action: fail` fails at once; every other 4xx fails with the status, URL
and the start of the body.

Errors: `HttpError` (a failed request, named by method, URL and status).
"""
from __future__ import annotations

import email.utils
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import urljoin

from .auth import Auth
from .paginators import Paginator, Request
from .selector import select_records

log = logging.getLogger("sparkload.rest_api")

RETRY_STATUS = {429, 500, 502, 503, 504}


class HttpError(Exception):
    def __init__(self, request: Request, status: Optional[int], detail: str):
        self.status = status
        super().__init__(f"{request.method} {request.url} failed{f' with HTTP {status}' if status else ''}: {detail}")


@dataclass
class Retry:
    max_attempts: int = 5
    backoff_factor: float = 0.5
    max_retry_after: float = 60.0

    def wait(self, attempt: int, response: Any) -> float:
        header = response.headers.get("Retry-After") if response is not None else None
        if header:
            try:
                seconds = float(header)
            except ValueError:
                parsed = email.utils.parsedate_to_datetime(header)
                seconds = parsed.timestamp() - time.time()
            return max(0.0, min(seconds, self.max_retry_after))
        return self.backoff_factor * (2 ** attempt)


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
        import requests

        rules = [*(actions or []), *self.response_actions]
        for attempt in range(self.retry.max_attempts):
            sent = Request(request.url, request.method, dict(request.params), {**self.headers, **request.headers}, request.json)
            if self.auth is not None:
                self.auth.apply(sent, self.session)
            response = None
            try:
                response = self.session.request(
                    sent.method, sent.url, params=sent.params, headers=sent.headers, json=sent.json, timeout=self.timeout
                )
            except requests.ConnectionError as e:
                if attempt + 1 == self.retry.max_attempts:
                    raise HttpError(sent, None, str(e)) from e
            if response is not None:
                action = _action_for(rules, response)
                if action == "ignore":
                    return None
                if action == "fail":
                    raise HttpError(sent, response.status_code, response.text[:200])
                if response.status_code not in RETRY_STATUS:
                    if response.status_code >= 400:
                        raise HttpError(sent, response.status_code, response.text[:200])
                    return response
                if attempt + 1 == self.retry.max_attempts:
                    raise HttpError(sent, response.status_code, f"still failing after {attempt + 1} attempts")
            delay = self.retry.wait(attempt, response)
            log.info("retrying %s %s in %.1fs (attempt %d)", sent.method, sent.url, delay, attempt + 1)
            time.sleep(delay)
        raise AssertionError("unreachable")

    def paginate(
        self, request: Request, paginator: Paginator, data_selector: Optional[str] = None,
        actions: Optional[List[Dict[str, Any]]] = None,
    ) -> Iterator[List[Any]]:
        """Pages of records of one endpoint, first to last."""
        request.url = self.url(request.url)
        paginator.init_request(request)
        while True:
            response = self.send(request, actions)
            if response is None:
                return
            body = response.json() if response.content else None
            records = select_records(body, data_selector)
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
