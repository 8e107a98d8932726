"""dlt's `dlt.sources.helpers.rest_client.paginators`: the REST API source's paginators (rest_api/paginators.py,
dlt's stop rules) under dlt's class names and constructor arguments, driven the way dlt's `RESTClient`
drives them (`init_request(request)`, `update_state(response, data)`, `update_request(request)`,
`has_next_page`). `BasePaginator` is the base of a paginator of one's own, as in dlt."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, List, Optional

from ...rest_api import paginators as source


class BasePaginator(ABC):
    """A paginator of one's own: set `self._has_next_page`, implement `update_state` and `update_request`.
    A subclass missing one of them cannot be created (as in dlt). The built-in paginators below are
    registered as its subclasses, so `isinstance(p, BasePaginator)` holds for them too."""

    def __init__(self) -> None:
        self._has_next_page = True

    @property
    def has_next_page(self) -> bool:
        return self._has_next_page

    def init_request(self, request: Any) -> None:
        """Prepare the first request (optional)."""

    @abstractmethod
    def update_state(self, response: Any, data: Optional[List[Any]] = None) -> None:
        """Read a response (and the records selected from it): set `_has_next_page` and the next request's state."""

    @abstractmethod
    def update_request(self, request: Any) -> None:
        """Set the next request's parameters from the state."""


class _Driven:
    """One of the source's paginators driven as dlt's: `update_state(response, data)`."""

    def update_state(self, response: Any, data: Optional[List[Any]] = None) -> None:  # type: ignore[override]
        body = response.json() if response.content else None
        source.Paginator.update_state(self, response, body, data or [])  # type: ignore[arg-type]


class SinglePagePaginator(_Driven, source.SinglePage):
    def __init__(self) -> None:
        source.SinglePage.__init__(self)


class JSONLinkPaginator(_Driven, source.JsonLink):
    def __init__(self, next_url_path: str = "next") -> None:
        source.JsonLink.__init__(self, next_url_path=next_url_path)


JSONResponsePaginator = JSONLinkPaginator  # dlt's older name


class HeaderLinkPaginator(_Driven, source.HeaderLink):
    def __init__(self, links_next_key: str = "next") -> None:
        source.HeaderLink.__init__(self, links_next_key=links_next_key)


class JSONResponseCursorPaginator(_Driven, source.Cursor):
    def __init__(self, cursor_path: str = "cursors.next", cursor_param: Optional[str] = None,
                 cursor_body_path: Optional[str] = None, *, stop_after_empty_page: bool = False,
                 has_more_path: Optional[str] = None) -> None:
        if cursor_body_path is not None:
            raise TypeError("JSONResponseCursorPaginator: cursor_body_path is not supported by sparkload; send the cursor "
                            "as a query parameter (cursor_param)")
        source.Cursor.__init__(self, cursor_path=cursor_path, cursor_param=cursor_param or "cursor",
                               stop_after_empty_page=stop_after_empty_page, has_more_path=has_more_path)


class OffsetPaginator(_Driven, source.Offset):
    def __init__(self, limit: int, offset: int = 0, offset_param: str = "offset", limit_param: str = "limit",
                 total_path: Optional[str] = "total", maximum_offset: Optional[int] = None, *,
                 stop_after_empty_page: bool = True, has_more_path: Optional[str] = None) -> None:
        source.Offset.__init__(self, limit=limit, offset=offset, offset_param=offset_param, limit_param=limit_param,
                               total_path=total_path, maximum_offset=maximum_offset,
                               stop_after_empty_page=stop_after_empty_page, has_more_path=has_more_path)


class PageNumberPaginator(_Driven, source.PageNumber):
    def __init__(self, base_page: int = 0, page: Optional[int] = None, page_param: str = "page",
                 total_path: Optional[str] = "total", maximum_page: Optional[int] = None, *,
                 stop_after_empty_page: bool = True, has_more_path: Optional[str] = None) -> None:
        source.PageNumber.__init__(self, base_page=base_page, page=page, page_param=page_param, total_path=total_path,
                                   maximum_page=maximum_page, stop_after_empty_page=stop_after_empty_page,
                                   has_more_path=has_more_path)


_DRIVEN = {source.SinglePage: SinglePagePaginator, source.JsonLink: JSONLinkPaginator, source.HeaderLink: HeaderLinkPaginator,
           source.Cursor: JSONResponseCursorPaginator, source.Offset: OffsetPaginator, source.PageNumber: PageNumberPaginator}


for _builtin in set(_DRIVEN.values()):
    BasePaginator.register(_builtin)


def _driven(paginator: source.Paginator) -> Any:
    """One of the source's paginators (a guessed one) as its dlt-named class, with the same state."""
    driven = object.__new__(_DRIVEN[type(paginator)])
    driven.__dict__.update(paginator.__dict__)
    return driven
