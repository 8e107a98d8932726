"""Paginators of the REST API source: each knows how to ask for the next page and when to stop.

Every paginator is a dataclass whose fields are its YAML keys (`type` picks the class):

| type          | fields                                                                 |
|---------------|------------------------------------------------------------------------|
| `single_page` | —                                                                      |
| `json_link`   | `next_url_path`: JSONPath of the next page's URL in the body           |
| `header_link` | `links_next_key` (default `next`): the `Link` header relation          |
| `cursor`      | `cursor_path` (body), `cursor_param` (query parameter to send it in)   |
| `offset`      | `limit`, `offset` (start), `offset_param`, `limit_param`, `total_path`  |
| `page_number` | `base_page`, `page_param`, `total_path` (number of pages), `page_size`/`page_size_param` |

Stop conditions shared by all: an empty page (`stop_after_empty_page`, default true), `has_more_path`
(a boolean in the body), a total (`total_path`), and `maximum_pages` (a cap across the whole run).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, List, Optional, Type
from urllib.parse import urljoin

from .selector import find_value


@dataclass
class Request:
    """What the client sends: paginators and incremental injection edit it in place."""
    url: str
    method: str = "GET"
    params: Dict[str, Any] = field(default_factory=dict)
    headers: Dict[str, str] = field(default_factory=dict)
    json: Optional[Any] = None


@dataclass
class Paginator:
    type: ClassVar[str] = ""
    stop_after_empty_page: bool = True
    has_more_path: Optional[str] = None
    maximum_pages: Optional[int] = None
    has_next_page: bool = field(default=True, init=False)
    pages: int = field(default=0, init=False)

    def init_request(self, request: Request) -> None:
        """Prepare the first request (e.g. the first offset)."""

    def update_state(self, response: Any, body: Any, records: List[Any]) -> None:
        """Read the response: sets `has_next_page` and what the next request needs."""
        self.pages += 1
        if self.maximum_pages is not None and self.pages >= self.maximum_pages:
            self.has_next_page = False
        elif self.stop_after_empty_page and not records:
            self.has_next_page = False
        elif self.has_more_path is not None and not find_value(body, self.has_more_path):
            self.has_next_page = False
        else:
            self._advance(response, body, records)

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self.has_next_page = False

    def update_request(self, request: Request) -> None:
        """Turn the request into the next page's."""


@dataclass
class SinglePage(Paginator):
    type: ClassVar[str] = "single_page"


@dataclass
class JsonLink(Paginator):
    type: ClassVar[str] = "json_link"
    next_url_path: str = "next"
    _next: Optional[str] = field(default=None, init=False)

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self._next = find_value(body, self.next_url_path)
        self.has_next_page = bool(self._next)

    def update_request(self, request: Request) -> None:
        request.url = urljoin(request.url, self._next)
        request.params = {}  # the next URL carries its own query


@dataclass
class HeaderLink(Paginator):
    type: ClassVar[str] = "header_link"
    links_next_key: str = "next"
    _next: Optional[str] = field(default=None, init=False)

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self._next = response.links.get(self.links_next_key, {}).get("url")
        self.has_next_page = bool(self._next)

    def update_request(self, request: Request) -> None:
        request.url = urljoin(request.url, self._next)
        request.params = {}


@dataclass
class Cursor(Paginator):
    type: ClassVar[str] = "cursor"
    cursor_path: str = "cursors.next"
    cursor_param: str = "cursor"
    _cursor: Any = field(default=None, init=False)

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self._cursor = find_value(body, self.cursor_path)
        self.has_next_page = self._cursor not in (None, "")

    def update_request(self, request: Request) -> None:
        request.params[self.cursor_param] = self._cursor


@dataclass
class Offset(Paginator):
    type: ClassVar[str] = "offset"
    limit: int = 100
    offset: int = 0
    offset_param: str = "offset"
    limit_param: str = "limit"
    total_path: Optional[str] = None
    maximum_offset: Optional[int] = None

    def init_request(self, request: Request) -> None:
        request.params[self.offset_param] = self.offset
        request.params[self.limit_param] = self.limit

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self.offset += self.limit
        total = find_value(body, self.total_path) if self.total_path else None
        limit = self.maximum_offset if total is None else int(total)
        # as dlt's: a page shorter than `limit` is not the last one (an API may leave records out of a page
        # after paging); without a total or `maximum_offset`, the empty page after the last ends the run
        self.has_next_page = limit is None or self.offset < limit

    def update_request(self, request: Request) -> None:
        request.params[self.offset_param] = self.offset


@dataclass
class PageNumber(Paginator):
    type: ClassVar[str] = "page_number"
    base_page: int = 1
    page_param: str = "page"
    total_path: Optional[str] = None
    page_size: Optional[int] = None
    page_size_param: str = "per_page"
    _page: int = field(default=0, init=False)

    def init_request(self, request: Request) -> None:
        self._page = self.base_page
        request.params[self.page_param] = self._page
        if self.page_size is not None:
            request.params[self.page_size_param] = self.page_size

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self._page += 1
        total = find_value(body, self.total_path) if self.total_path else None
        self.has_next_page = total is None or self._page < int(total) + self.base_page

    def update_request(self, request: Request) -> None:
        request.params[self.page_param] = self._page


PAGINATORS: Dict[str, Type[Paginator]] = {
    cls.type: cls for cls in (SinglePage, JsonLink, HeaderLink, Cursor, Offset, PageNumber)
}


def build_paginator(config: Any) -> Paginator:
    """A fresh paginator from its config: a dict with `type` plus fields, or just the type name."""
    if config is None:
        return SinglePage()
    if isinstance(config, Paginator):
        return type(config)(**{f.name: getattr(config, f.name) for f in fields(config) if f.init})
    if isinstance(config, str):
        config = {"type": config}
    options = dict(config)
    kind = options.pop("type", None)
    if kind not in PAGINATORS:
        raise ValueError(f"paginator type {kind!r} is unknown; expected one of {', '.join(sorted(PAGINATORS))}")
    return PAGINATORS[kind](**options)
