"""The REST client against a real HTTP server on 127.0.0.1: every paginator, auth mode, retry rule."""
from __future__ import annotations

import datetime as dt
import time

import pytest

from python_extract.sources.rest_api.auth import build_auth
from python_extract.sources.rest_api.client import HttpError, RestClient, Retry
from python_extract.sources.rest_api.paginators import Request, build_paginator

from ..support.api_server import API_KEY, BASIC, CLIENT, TOKEN, ApiServer, ShopApi, iso

pytestmark = pytest.mark.fast

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _items(n: int = 5):
    return [{"id": i, "name": f"item {i}", "updated_at": iso(T0 + dt.timedelta(hours=i))} for i in range(1, n + 1)]


@pytest.fixture
def api():
    with ApiServer(ShopApi(items=_items())) as served:
        yield served


def _ids(client, path, paginator, selector=None, **request):
    pages = list(client.paginate(Request(path, **request), build_paginator(paginator), selector))
    return [r["id"] for page in pages for r in page], len(pages)


@pytest.mark.parametrize("path, paginator, selector", [
    ("items/page", {"type": "page_number", "base_page": 1, "total_path": "total_pages", "page_size": 2}, "data"),
    ("items/offset", {"type": "offset", "limit": 2, "total_path": "total"}, "items"),
    ("items/cursor", {"type": "cursor", "cursor_path": "next_cursor", "cursor_param": "cursor"}, "items"),
    ("items/cursor", {"type": "cursor", "cursor_path": "next_cursor", "has_more_path": "has_more"}, "items"),
    ("items/json_link", {"type": "json_link", "next_url_path": "links.next"}, "results"),
    ("items/header_link", "header_link", None),
])
def test_paginate__every_paginator_reads_all_pages_in_order(api, path, paginator, selector):
    ids, pages = _ids(RestClient(api.base_url), path, paginator, selector)
    assert ids == [1, 2, 3, 4, 5]
    assert pages == 3


def test_paginate__maximum_pages_caps_the_run(api):
    ids, _ = _ids(RestClient(api.base_url), "items/offset", {"type": "offset", "limit": 2, "maximum_pages": 2}, "items")
    assert ids == [1, 2, 3, 4]


def test_paginate__offset_without_total_reads_on_past_a_short_page_until_an_empty_one(api):
    api.hidden = (2,)  # the first page holds one record of its two: it is not the last page
    ids, pages = _ids(RestClient(api.base_url), "items/offset", {"type": "offset", "limit": 2, "total_path": None}, "items")
    assert (ids, pages) == ([1, 3, 4, 5], 3)
    offsets = [q.get("offset") for _, path, q in api.requests if path == "/items/offset"]
    assert offsets == ["0", "2", "4", "6"]  # as dlt's OffsetPaginator: the empty page at 6 ends the run


def test_selector__a_single_object_response_is_one_record(api):
    ids, pages = _ids(RestClient(api.base_url), "items/single", "single_page")
    assert (ids, pages) == ([1], 1)


@pytest.mark.parametrize("mode, auth", [
    ("api_key_header", {"type": "api_key", "api_key": API_KEY}),
    ("api_key_query", {"type": "api_key", "api_key": API_KEY, "name": "api_key", "location": "query"}),
    ("bearer", {"type": "bearer", "token": TOKEN}),
    ("basic", {"type": "http_basic", "username": BASIC[0], "password": BASIC[1]}),
    ("oauth2", {"type": "oauth2_client_credentials", "access_token_url": "oauth/token",
                "client_id": CLIENT[0], "client_secret": CLIENT[1]}),
])
def test_auth__each_mode_is_accepted_and_its_absence_refused(api, mode, auth):
    api.auth = mode
    if auth["type"].startswith("oauth2"):
        auth = {**auth, "access_token_url": api.base_url + auth["access_token_url"]}
    ids, _ = _ids(RestClient(api.base_url, auth=build_auth(auth)), "items/header_link", "header_link")
    assert ids == [1, 2, 3, 4, 5]
    with pytest.raises(HttpError, match="HTTP 401"):
        _ids(RestClient(api.base_url), "items/header_link", "header_link")


def test_retry__429_waits_retry_after_then_succeeds(api):
    api.rate_limit_every = 2
    started = time.monotonic()
    ids, _ = _ids(RestClient(api.base_url), "items/offset", {"type": "offset", "limit": 2, "total_path": "total"}, "items")
    assert ids == [1, 2, 3, 4, 5]
    assert len([r for r in api.requests if r[1] == "/items/offset"]) == 5  # 3 pages + 2 throttled
    assert time.monotonic() - started >= 2.0  # two Retry-After: 1 waits


def test_retry__gives_up_after_max_attempts_naming_url_and_status(api):
    api.rate_limit_every = 1
    client = RestClient(api.base_url, retry=Retry(max_attempts=2, max_retry_after=0))
    with pytest.raises(HttpError, match=r"GET http://127.0.0.1:\d+/items/offset failed with HTTP 429"):
        _ids(client, "items/offset", "offset", "items")


def test_response_actions__ignore_404_and_fail_on_content(api):
    client = RestClient(api.base_url)
    pages = list(client.paginate(Request("users/99/orders"), build_paginator(None), "orders",
                                 actions=[{"status_code": 404, "action": "ignore"}]))
    assert pages == []
    with pytest.raises(HttpError, match="HTTP 404"):
        list(client.paginate(Request("users/99/orders"), build_paginator(None), "orders"))


def test_time_filter__query_header_and_json_body_injection(api):
    client = RestClient(api.base_url)
    since = iso(T0 + dt.timedelta(hours=4))
    by_query, _ = _ids(client, "items/offset", {"type": "offset", "limit": 2}, "items", params={"since": since})
    by_header, _ = _ids(client, "items/offset", {"type": "offset", "limit": 2}, "items", headers={"X-Since": since})
    by_body, _ = _ids(client, "items/search", {"type": "json_link", "next_url_path": "links.next"}, "results",
                      method="POST", json={"filter": {"updated_since": since}})
    assert by_query == by_header == by_body == [4, 5]


def test_source__an_endpoint_ending_in_a_placeholder_is_one_record_per_parent_as_in_dlts_rest_api(api):
    """`users/{parent.id}` without data_selector or paginator: the whole body is the record (not the list it
    holds, which dlt's guess takes elsewhere) and one page is read, whatever the client's paginator."""
    from python_extract.sources.registry import get_plugin, resolve_config
    from python_extract.sources.rest_api.source import RestApiSource

    api.users = [{"id": 1, "name": "Ann", "roles": ["admin", "dev"]}, {"id": 2, "name": "Bob", "roles": []}]
    config = {"client": {"base_url": api.base_url, "paginator": {"type": "offset", "limit": 2, "total_path": None, "maximum_offset": 6}},
              "resources": [{"name": "users", "endpoint": {"path": "users", "paginator": "single_page"}},
                            {"name": "user", "endpoint": {"path": "users/{parent.id}", "parent": "users"}}]}
    source = RestApiSource(resolve_config(get_plugin("rest_api"), config))
    endpoint = source.resources["user"]["endpoint"]
    pages = [list(source.pages(endpoint, parent=user)) for user in api.users]
    assert pages == [[[api.users[0]]], [[api.users[1]]]]
    assert [path for _, path, _ in api.requests] == ["/users/1", "/users/2"]  # no offset pages after the record
