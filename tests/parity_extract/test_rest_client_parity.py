"""dlt's `dlt.sources.helpers.rest_client` against sparkload's `python_extract.sources.helpers.rest_client`:
the same code (a case below, given one side's modules) run against its own copy of one local API. Compared:
the pages yielded (the ids of each page's records, every page, an empty one too, and its response's
status), every request the API got (path and query) and the error raised, by class name."""
from __future__ import annotations

import datetime as dt
import importlib
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Tuple

import pytest

from ..support.api_server import API_KEY, BASIC, TOKEN, ApiServer, ShopApi, iso
from ..support.tally import record_vs_dlt as record

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
ITEMS = [{"id": i, "name": f"item {i}", "updated_at": iso(T0 + dt.timedelta(hours=i))} for i in range(1, 8)]


def _side(package: str) -> SimpleNamespace:
    modules = {name: importlib.import_module(f"{package}.{name}") for name in ("paginators", "auth", "exceptions")}
    return SimpleNamespace(client=importlib.import_module(package), **modules)


def _custom(side):
    """A paginator of one's own, as dlt's docs write one: `after` from the body's `links.next` query."""
    class AfterPaginator(side.paginators.BasePaginator):
        def __init__(self):
            super().__init__()
            self.after = None

        def update_state(self, response, data=None):
            nxt = response.json()["links"]["next"]
            self.after = nxt.split("after=")[1] if nxt else None
            self._has_next_page = self.after is not None

        def update_request(self, request):
            request.params = {**(request.params or {}), "after": self.after}
    return AfterPaginator()


def _ignore_404(side):
    def hook(response, *args, **kwargs):
        if response.status_code == 404:
            raise side.exceptions.IgnoreResponseException
    return {"response": [hook]}


P = lambda side: side.paginators  # noqa: E731
# (case, API settings, code run on one side: (side, base_url) -> pages)
CASES: List[Tuple[str, Dict[str, Any], Callable]] = [
    ("offset", {}, lambda s, url: s.client.RESTClient(url).paginate("items/offset", paginator=P(s).OffsetPaginator(limit=2),
                                                                     data_selector="items")),
    ("offset_no_total_emptied_page", {"hidden": (3, 4)}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/offset", paginator=P(s).OffsetPaginator(limit=2, total_path=None, stop_after_empty_page=False,
                                                        maximum_offset=8), data_selector="items")),
    ("page_number", {}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/page", paginator=P(s).PageNumberPaginator(base_page=1, total_path="total_pages"))),
    ("page_number_maximum", {}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/page", paginator=P(s).PageNumberPaginator(base_page=1, total_path=None, maximum_page=3))),
    ("cursor", {"hidden": (3, 4)}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/cursor", paginator=P(s).JSONResponseCursorPaginator(cursor_path="next_cursor", cursor_param="cursor"))),
    ("json_link_on_the_client", {}, lambda s, url: s.client.RESTClient(
        url, paginator=P(s).JSONLinkPaginator(next_url_path="links.next"), data_selector="results").paginate("items/json_link")),
    ("header_link_absolute_url", {}, lambda s, url: s.client.RESTClient("http://unused.invalid").paginate(
        url + "items/header_link", paginator=P(s).HeaderLinkPaginator())),
    ("single_page_params_headers", {}, lambda s, url: s.client.RESTClient(url, headers={"X-Client": "a"}).paginate(
        "items/json_link", params={"since": "2026-01-01T03:00:00Z"}, headers={"X-Other": "b"},
        paginator=P(s).SinglePagePaginator())),
    ("custom_paginator", {}, lambda s, url: s.client.RESTClient(url).paginate("items/json_link", paginator=_custom(s),
                                                                               data_selector="results")),
    ("bearer", {"auth": "bearer"}, lambda s, url: s.client.RESTClient(url, auth=s.auth.BearerTokenAuth(TOKEN)).paginate(
        "items/offset", paginator=P(s).OffsetPaginator(limit=3))),
    ("api_key_header", {"auth": "api_key_header"}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/offset", auth=s.auth.APIKeyAuth(name="X-API-Key", api_key=API_KEY), paginator=P(s).OffsetPaginator(limit=3))),
    ("api_key_query", {"auth": "api_key_query"}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/offset", auth=s.auth.APIKeyAuth(name="api_key", api_key=API_KEY, location="query"),
        paginator=P(s).OffsetPaginator(limit=3))),
    ("http_basic", {"auth": "basic"}, lambda s, url: s.client.RESTClient(url, auth=s.auth.HttpBasicAuth(*BASIC)).paginate(
        "items/offset", paginator=P(s).OffsetPaginator(limit=3))),
    ("wrong_token_fails", {"auth": "bearer"}, lambda s, url: s.client.RESTClient(url, auth=s.auth.BearerTokenAuth("no")).paginate(
        "items/offset", paginator=P(s).OffsetPaginator(limit=3))),
    ("not_found_fails", {}, lambda s, url: s.client.RESTClient(url).paginate("nothing/here", paginator=P(s).SinglePagePaginator())),
    ("not_found_ignored_by_a_hook", {}, lambda s, url: s.client.RESTClient(url).paginate(
        "nothing/here", paginator=P(s).SinglePagePaginator(), hooks=_ignore_404(s))),
    ("rate_limited_retried", {"rate_limit_every": 3}, lambda s, url: s.client.RESTClient(url).paginate(
        "items/offset", paginator=P(s).OffsetPaginator(limit=2))),
    ("module_paginate", {}, lambda s, url: s.client.paginate(url + "items/offset", params={"limit": 3},
                                                             paginator=P(s).OffsetPaginator(limit=3), data_selector="items")),
    # no paginator: guessed from the first response (header link, a `next` URL, total pages, a `next` cursor)
    *[(f"guessed_{style}", {}, lambda s, url, style=style: s.client.RESTClient(url).paginate(f"items/{style}"))
      for style in ("header_link", "json_link", "page", "cursor", "offset")],
    ("get_returns_an_error_response", {}, lambda s, url: [[s.client.RESTClient(url).get("nothing/here").status_code]]),
]


def _run(side, settings: Dict[str, Any], case: Callable) -> Dict[str, Any]:
    api = ShopApi(items=[dict(item) for item in ITEMS], **settings)
    with ApiServer(api):
        try:
            pages = [(p if isinstance(p[0] if p else None, int) else [r["id"] for r in p],
                      getattr(getattr(p, "response", None), "status_code", None)) for p in case(side, api.base_url)]
            error = None
        except Exception as e:  # noqa: BLE001 - compared by class name
            pages, error = None, type(e).__name__
    sent = [(path, tuple(sorted((k, str(v)) for k, v in query.items()))) for _, path, query in api.requests]
    return {"pages": pages, "requests": sent, "error": error}


@pytest.mark.parametrize("case, settings, code", CASES, ids=[c[0] for c in CASES])
def test_rest_client__pages_requests_and_errors_as_dlts(case, settings, code):
    theirs = _run(_side("dlt.sources.helpers.rest_client"), settings, code)
    ours = _run(_side("python_extract.sources.helpers.rest_client"), settings, code)
    record("rest client", "identical" if ours == theirs else "differs")
    assert ours == theirs


def test_rest_client__refuses_what_it_does_not_do_by_name():
    from python_extract.sources.helpers.rest_client import RESTClient
    from python_extract.sources.helpers.rest_client.paginators import JSONResponseCursorPaginator

    with pytest.raises(TypeError, match="data= .* is not supported"):
        RESTClient("http://127.0.0.1:9").post("items", data={"a": 1})
    with pytest.raises(TypeError, match="cursor_body_path is not supported"):
        JSONResponseCursorPaginator(cursor_body_path="cursor")


def _paginator_classes(side) -> Dict[str, Any]:
    """How one side's `BasePaginator` treats subclasses: one missing `update_request` is refused when created
    (the error's class), a complete one is created, and each built-in paginator is an instance of it."""
    base = side.paginators.BasePaginator

    class Incomplete(base):
        def update_state(self, response, data=None):
            self._has_next_page = False

    try:
        Incomplete()
        incomplete = None
    except Exception as e:  # noqa: BLE001 - compared by class name
        incomplete = type(e).__name__
    P = side.paginators
    builtins = [P.SinglePagePaginator(), P.JSONLinkPaginator(), P.HeaderLinkPaginator(), P.JSONResponseCursorPaginator(),
                P.OffsetPaginator(limit=2), P.PageNumberPaginator()]
    return {"incomplete": incomplete, "complete": _custom(side).has_next_page,
            "builtins": [isinstance(p, base) for p in builtins]}


def test_rest_client__base_paginator_refuses_an_incomplete_subclass_and_is_the_builtins_base_as_dlts():
    theirs = _paginator_classes(_side("dlt.sources.helpers.rest_client"))
    ours = _paginator_classes(_side("python_extract.sources.helpers.rest_client"))
    assert theirs == {"incomplete": "TypeError", "complete": True, "builtins": [True] * 6}  # dlt 1.31, as read
    assert ours == theirs
