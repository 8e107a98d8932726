"""dlt's `dlt.sources.helpers.rest_client` for a ported resource: `RESTClient` and `paginate`, with the
paginators and auths of `.paginators` and `.auth` (dlt's names), on the REST API source's parts: its
paginators and stop rules, its records look-up (`data_selector`, or found on the first page as dlt finds
it), and the retrying session of `python_extract.sources.helpers.requests`.

    from python_extract.sources.helpers.rest_client import RESTClient
    from python_extract.sources.helpers.rest_client.paginators import HeaderLinkPaginator

    client = RESTClient(base_url="https://api.github.com", paginator=HeaderLinkPaginator())
    for page in client.paginate("/repos/dlt-hub/dlt/issues", params={"state": "open"}):
        yield page

As in dlt: `paginate` yields every page (an empty one too) as a `PageData` list carrying its `request`,
`response`, `paginator` and `auth`; an error status raises `requests.HTTPError` unless `hooks={"response":
[...]}` replace that check (a hook may raise `IgnoreResponseException` to end the pages); `request`, `get`
and `post` return the response as it came. Refused by name: `data=` bodies, the OAuth2 auth class, a JSON-body
cursor (`cursor_body_path`).
"""
from __future__ import annotations

import copy
import logging
from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import urljoin, urlparse

from requests import Request, Response

from ...rest_api.paginators import detect_paginator
from ...rest_api.selector import records_path, select_records
from ..requests import Session
from .exceptions import IgnoreResponseException
from .paginators import BasePaginator, _driven

__all__ = ["RESTClient", "PageData", "paginate"]
log = logging.getLogger("sparkload.rest_client")


class PageData(List[Any]):
    """One page of records, with the request, response, paginator and auth that produced it."""

    def __init__(self, data: List[Any], request: Request, response: Response, paginator: Any, auth: Any) -> None:
        super().__init__(data)
        self.request, self.response, self.paginator, self.auth = request, response, paginator, auth


class RESTClient:
    def __init__(self, base_url: str, headers: Optional[Dict[str, str]] = None, auth: Any = None,
                 paginator: Optional[BasePaginator] = None, data_selector: Optional[str] = None,
                 session: Any = None) -> None:
        self.base_url, self.headers, self.auth = base_url, headers, auth
        self.paginator, self.data_selector = paginator, data_selector
        self.session = session if session is not None else Session(raise_for_status=False)

    def _url(self, path: str) -> str:
        if urlparse(path).scheme in ("http", "https"):
            return path
        return urljoin(self.base_url.rstrip("/") + "/", path.lstrip("/")) if path else self.base_url

    def _request(self, path: str, method: str, headers: Optional[Dict[str, Any]], params: Optional[Dict[str, Any]],
                 json: Any, auth: Any, hooks: Any, data: Any) -> Request:
        if data is not None:
            raise TypeError("RESTClient: data= (a form or raw body) is not supported by sparkload; send json=")
        return Request(method=method.upper(), url=self._url(path), headers={**(self.headers or {}), **(headers or {})},
                       params=params, json=json, auth=auth or self.auth, hooks=hooks)

    def _send(self, request: Request, **kwargs: Any) -> Response:
        """`request` through the session's `request`, where the retries are."""
        return self.session.request(request.method, request.url, params=request.params, headers=request.headers,
                                    json=request.json, auth=request.auth, hooks=request.hooks, **kwargs)

    def request(self, path: str = "", method: str = "GET", **kwargs: Any) -> Response:
        request = self._request(path, method, kwargs.pop("headers", None), kwargs.pop("params", None),
                                kwargs.pop("json", None), kwargs.pop("auth", None), kwargs.pop("hooks", None),
                                kwargs.pop("data", None))
        return self._send(request, **kwargs)

    def get(self, path: str, params: Optional[Dict[str, Any]] = None, **kwargs: Any) -> Response:
        return self.request(path, method="GET", params=params, **kwargs)

    def post(self, path: str, json: Optional[Dict[str, Any]] = None, **kwargs: Any) -> Response:
        return self.request(path, method="POST", json=json, **kwargs)

    def paginate(self, path: str = "", method: str = "GET", params: Optional[Dict[str, Any]] = None, json: Any = None,
                 auth: Any = None, paginator: Optional[BasePaginator] = None, data_selector: Optional[str] = None,
                 hooks: Optional[Dict[str, Any]] = None, headers: Optional[Dict[str, Any]] = None, *,
                 data: Any = None, **kwargs: Any) -> Iterator[PageData]:
        paginator = paginator if paginator else copy.deepcopy(self.paginator)
        auth = auth or self.auth
        check = not (hooks and "response" in hooks)  # response hooks of one's own replace the status check
        request = self._request(path, method, headers, params, json, auth, hooks, data)
        if paginator is not None:
            paginator.init_request(request)
        selector = data_selector or self.data_selector or None
        while True:
            try:
                response = self._send(request, **kwargs)
            except IgnoreResponseException:
                return
            if check:  # after the session's retries, as dlt's check comes after its retries
                response.raise_for_status()
            body = response.json()
            if selector is None:
                selector = records_path(body)
            records = select_records(body, selector)
            if paginator is None:  # guessed from the first response, as dlt's client does
                paginator = _driven(detect_paginator(response, body))
                log.warning("%s: no paginator given; guessed %s from the first response, as dlt does (a guess can "
                            "miss or repeat pages: pass paginator=)", response.url, type(paginator).__name__)
            paginator.update_state(response, records)
            paginator.update_request(request)
            yield PageData(records, request=request, response=response, paginator=paginator, auth=auth)
            if not paginator.has_next_page:
                return


def paginate(url: str = "", method: str = "GET", headers: Optional[Dict[str, Any]] = None,
             params: Optional[Dict[str, Any]] = None, json: Any = None, auth: Any = None,
             paginator: Optional[BasePaginator] = None, data_selector: Optional[str] = None,
             hooks: Optional[Dict[str, Any]] = None) -> Iterator[PageData]:
    """Pages of `url` (dlt's `rest_client.paginate`): `RESTClient(base_url=url).paginate(...)`."""
    return RESTClient(base_url=url, headers=headers).paginate(
        method=method, params=params, json=json, auth=auth, paginator=paginator, data_selector=data_selector, hooks=hooks)
