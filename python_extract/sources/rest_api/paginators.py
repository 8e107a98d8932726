"""Paginators of the REST API source: each knows how to ask for the next page and when to stop.

Every paginator is a dataclass whose fields are its YAML keys (`type` picks the class). Names, defaults
and stop rules are dlt's `rest_api` paginators' (judged by tests/parity_extract/test_rest_paginator_parity.py):

| type          | fields (default)                                                                  |
|---------------|-----------------------------------------------------------------------------------|
| `single_page` | —                                                                                 |
| `json_link`   | `next_url_path` (`next`): JSONPath of the next page's URL in the body             |
| `header_link` | `links_next_key` (`next`): the `Link` header relation                             |
| `cursor`      | `cursor_path` (`cursors.next`, body), `cursor_param` (`cursor`, the query parameter) |
| `offset`      | `limit` (100), `offset` (0), `offset_param`, `limit_param`, `total_path` (`total`), `maximum_offset` |
| `page_number` | `base_page` (0), `page` (the first, default `base_page`), `page_param` (`page`), `total_path` (`total`: the number of pages), `maximum_page`, `page_size`/`page_size_param` |

When the run stops:
- `json_link`, `header_link`, `cursor`: when the response has no next URL or cursor (an empty or false one).
- `offset`, `page_number`: after an empty page, or when the offset or page reaches the total (`total_path`;
  a response without it, or with a total that is not a number, fails the run: set `total_path: null` where
  the API gives none), or `maximum_offset`.
- All: an empty page where `stop_after_empty_page` (true for `offset` and `page_number`, false for the
  others, as in dlt); `has_more_path` false (a response without it, or with a value that is not a boolean,
  fails); `maximum_pages` (sparkload's: a cap across the whole run).
A page shorter than asked for is not the last one: an API may leave records out of a page after paging.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, List, Optional, Tuple, Type
from urllib.parse import urljoin

from ...errors import SparkloadError
from .selector import find_all, find_value


class UnexpectedResponse(SparkloadError):
    """The API answered without what the paginator reads (a total, a `has_more` flag), or not as a number
    or boolean: named by the response's URL and the JSONPath."""


def _found(body: Any, path: str, response: Any, what: str) -> Any:
    """The value at `path` in the body; UnexpectedResponse when there is none."""
    found = find_all(body, path) if body is not None else []
    if not found or found[0] is None:
        raise UnexpectedResponse(f"{getattr(response, 'url', 'the response')}: no {what} at `{path}` in the response body "
                                 "(set the paginator's path to where the API has it, or to null where it has none)")
    return found[0]


@dataclass
class Request:
    """What the client sends: paginators and incremental injection edit it in place."""
    url: str
    method: str = "GET"
    params: Dict[str, Any] = field(default_factory=dict)
    headers: Dict[str, str] = field(default_factory=dict)
    json: Optional[Any] = None


_BOOLEANS = {**dict.fromkeys(("yes", "true", "t", "y", "1"), True), **dict.fromkeys(("no", "false", "f", "n", "0"), False)}


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
        else:
            self._advance(response, body, records)
            if self.has_more_path is not None:
                self.has_next_page = self.has_next_page and self._has_more(response, body)

    def _has_more(self, response: Any, body: Any) -> bool:
        value = _found(body, self.has_more_path, response, "has_more flag")
        if isinstance(value, str) and value.lower() in _BOOLEANS:
            return _BOOLEANS[value.lower()]
        if not isinstance(value, bool):
            raise UnexpectedResponse(f"{getattr(response, 'url', 'the response')}: `{self.has_more_path}` is {value!r}, not a boolean")
        return value

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
    stop_after_empty_page: bool = False
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
    stop_after_empty_page: bool = False
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
    stop_after_empty_page: bool = False
    cursor_path: str = "cursors.next"
    cursor_param: str = "cursor"
    _cursor: Any = field(default=None, init=False)

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        self._cursor = find_value(body, self.cursor_path)
        self.has_next_page = bool(self._cursor)  # as dlt: no cursor, an empty or a false one ends the run

    def update_request(self, request: Request) -> None:
        request.params[self.cursor_param] = self._cursor


@dataclass
class Offset(Paginator):
    type: ClassVar[str] = "offset"
    limit: int = 100
    offset: int = 0
    offset_param: str = "offset"
    limit_param: str = "limit"
    total_path: Optional[str] = "total"
    maximum_offset: Optional[int] = None

    def init_request(self, request: Request) -> None:
        request.params[self.offset_param] = self.offset
        request.params[self.limit_param] = self.limit

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        total = _total(self.total_path, response, body)
        self.offset += self.limit
        self.has_next_page = (total is None or self.offset < total) and (
            self.maximum_offset is None or self.offset < self.maximum_offset)

    def update_request(self, request: Request) -> None:
        request.params[self.offset_param] = self.offset


@dataclass
class PageNumber(Paginator):
    type: ClassVar[str] = "page_number"
    base_page: int = 0
    page_param: str = "page"
    total_path: Optional[str] = "total"
    page_size: Optional[int] = None
    page_size_param: str = "per_page"
    page: Optional[int] = None  # the first page asked for (default base_page)
    maximum_page: Optional[int] = None  # no page from this one on is asked for
    _page: int = field(default=0, init=False)

    def init_request(self, request: Request) -> None:
        self._page = self.base_page if self.page is None else self.page
        request.params[self.page_param] = self._page
        if self.page_size is not None:
            request.params[self.page_size_param] = self.page_size

    def _advance(self, response: Any, body: Any, records: List[Any]) -> None:
        total = _total(self.total_path, response, body)
        self._page += 1
        self.has_next_page = (total is None or self._page < total + self.base_page) and (
            self.maximum_page is None or self._page < self.maximum_page)

    def update_request(self, request: Request) -> None:
        request.params[self.page_param] = self._page


def _total(path: Optional[str], response: Any, body: Any) -> Optional[int]:
    """The total at `path` (None without a path); UnexpectedResponse when missing or not a number."""
    if not path:
        return None
    value = _found(body, path, response, "total")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UnexpectedResponse(f"{getattr(response, 'url', 'the response')}: the total at `{path}` is {value!r}, not a number") from None


PAGINATORS: Dict[str, Type[Paginator]] = {
    cls.type: cls for cls in (SinglePage, JsonLink, HeaderLink, Cursor, Offset, PageNumber)
}


def detect_paginator(response: Any, body: Any) -> Paginator:
    """The paginator of an endpoint that has none, guessed from its first response as dlt's client guesses
    it: a `Link: <...>; rel="next"` header (header_link); else the first key starting with `next` (or its
    `href`/`url`), looking depth first: a URL (`http...` or `/...`) makes json_link; else a key `total_pages`,
    `pages` or `totalpages` holding a number makes page_number (base_page 0, the first request had no page);
    else that `next` key makes cursor; else single_page."""
    if response.links.get("next"):
        return HeaderLink()
    next_path, value = _first(body, (), _next_key)
    if next_path and isinstance(value, str) and value.startswith(("http", "/")):
        return JsonLink(next_url_path=".".join(next_path))
    pages_path, pages = _first(body, (), _pages_key)
    if pages_path:
        try:
            int(pages)
            return PageNumber(total_path=".".join(pages_path))
        except (TypeError, ValueError):
            pass
    if next_path:
        return Cursor(cursor_path=".".join(next_path))
    return SinglePage()


_SCALAR = (str, int, float)


def _first(node: Any, keys: Tuple[str, ...], pick) -> Tuple[Optional[Tuple[str, ...]], Any]:
    """Depth first through the body's objects: the keys and value of the first entry `pick(key, value)` takes."""
    if not isinstance(node, dict):
        return None, None
    for key, value in node.items():
        found = pick(key, value)
        if found is not None:
            return (*keys, *found[0]), found[1]
        if isinstance(value, dict):
            deeper = _first(value, (*keys, key), pick)
            if deeper[0]:
                return deeper
    return None, None


def _next_key(key: str, value: Any) -> Optional[Tuple[Tuple[str, ...], Any]]:
    if key.lower().startswith("next"):
        if isinstance(value, dict):
            for inner, link in value.items():
                if inner.lower().startswith(("href", "url")) and isinstance(link, _SCALAR):
                    return (key, inner), link
        elif isinstance(value, _SCALAR):
            return (key,), value
    return None


def _pages_key(key: str, value: Any) -> Optional[Tuple[Tuple[str, ...], Any]]:
    return ((key,), value) if key.lower() in ("total_pages", "pages", "totalpages") and isinstance(value, _SCALAR) else None


def build_paginator(config: Any) -> Optional[Paginator]:
    """A fresh paginator from its config: a dict with `type` plus fields, or just the type name; None for
    none (the client then guesses one from the first response: `detect_paginator`)."""
    if config is None:
        return None
    if isinstance(config, Paginator):
        return type(config)(**{f.name: getattr(config, f.name) for f in fields(config) if f.init})
    if isinstance(config, str):
        config = {"type": config}
    options = dict(config)
    kind = options.pop("type", None)
    if kind not in PAGINATORS:
        raise ValueError(f"paginator type {kind!r} is unknown; expected one of {', '.join(sorted(PAGINATORS))}")
    return PAGINATORS[kind](**options)
