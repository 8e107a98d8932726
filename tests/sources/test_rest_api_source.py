"""The REST API source end to end: a real HTTP server on 127.0.0.1 -> pipeline -> real staging tables.
Each run's requests are read back from the server to prove a rerun fetches only what changed."""
from __future__ import annotations

import datetime as dt

import pytest

from python_extract.sources.registry import SourceConfigError, get_plugin, resolve_config
from python_extract.sources.rest_api.source import RestApiSource

from ..support.api_server import TOKEN
from ..support.shop_items import T0, at, item
from ..support.staging import staged


def source(api, resource: dict, **client):
    config = {"client": {"base_url": api.base_url, **client}, "resources": [resource]}
    return RestApiSource(resolve_config(get_plugin("rest_api"), config)).source()


def _requests(api, path):
    out = [q for _, p, q in api.requests if p == path]
    api.requests.clear()
    return out


OFFSET = {"type": "offset", "limit": 2, "total_path": "total"}


@pytest.mark.parametrize("place, fmt, expect", [
    ({"in": "query", "name": "since"}, None, at(3)),
    ({"in": "query", "name": "since_epoch"}, "epoch", str(int((T0 + dt.timedelta(hours=3)).timestamp()))),
    ({"in": "header", "name": "X-Since"}, None, None),
])
def test_incremental__rerun_fetches_only_changed_rows(api, pipe, place, fmt, expect):
    api.items = [item(1, 1), item(2, 2), item(3, 3)]
    inc = {"cursor_path": "updated_at", "initial_value": at(0), "start_param": place, **({"format": fmt} if fmt else {})}
    resource = {"name": "items", "primary_key": "id", "write_disposition": "merge",
                "endpoint": {"path": "items/offset", "data_selector": "items", "paginator": OFFSET, "incremental": inc}}

    # run 1: everything since the initial value
    pipe.run(source(api, resource))
    assert staged(pipe, "items", "id", "name") == [(1, "item 1"), (2, "item 2"), (3, "item 3")]
    _requests(api, "/items/offset")

    # run 2: a late update of item 2 and a new item 4; item 3 sits on the boundary and is deduplicated
    api.items[1] = item(2, 5, "item 2 v2")
    api.items.append(item(4, 6))
    pipe.run(source(api, resource))
    sent = _requests(api, "/items/offset")
    if expect is not None:
        assert sent[0][place["name"]] == expect
    assert staged(pipe, "items", "id", "name") == [
        (1, "item 1"), (2, "item 2"), (2, "item 2 v2"), (3, "item 3"), (4, "item 4")]
    assert staged(pipe, "items__tags", "value") == [("t1",), ("t2",), ("t2",), ("t3",), ("t4",)]


def test_incremental__json_body_injection_with_lookback_rereads_the_window(api, pipe):
    api.items = [item(1, 0.5), item(2, 2)]
    inc = {"cursor_path": "updated_at", "initial_value": at(0), "lookback": 3600,
           "start_param": {"in": "json", "name": "filter.updated_since"}}
    resource = {"name": "items", "primary_key": "id", "endpoint": {
        "path": "items/search", "method": "POST", "data_selector": "results",
        "paginator": {"type": "json_link", "next_url_path": "links.next"}, "incremental": inc}}
    pipe.run(source(api, resource))
    _requests(api, "/items/search")
    api.items.append(item(3, 2.5))
    pipe.run(source(api, resource))
    sent = _requests(api, "/items/search")
    assert sent[0]["json"] == {"filter": {"updated_since": at(1)}}  # last value 2h minus 1h lookback
    assert staged(pipe, "items", "id") == [(1,), (2,), (2,), (3,)]  # the lookback re-reads item 2


def test_date_windows__inject_start_and_end_per_window_and_resume(api, pipe):
    api.items = [item(1, 1), item(2, 25), item(3, 49)]
    inc = {"cursor_path": "updated_at", "initial_value": at(0), "end_value": at(72), "step": "P1D",
           "cursor_granularity": "PT1S", "format": "iso",
           "start_param": {"in": "query", "name": "since"}, "end_param": {"in": "query", "name": "until"}}
    resource = {"name": "items", "endpoint": {"path": "items/offset", "data_selector": "items",
                                              "paginator": OFFSET, "incremental": inc}}
    pipe.run(source(api, resource))
    sent = _requests(api, "/items/offset")
    # windows are inclusive [start, next start - granularity]; the last one reaches end_value whole (the CDK's)
    assert [(q["since"], q["until"]) for q in sent] == [
        (at(0), at(24 - 1 / 3600)), (at(24), at(48 - 1 / 3600)), (at(48), at(72))]
    assert staged(pipe, "items", "id") == [(1,), (2,), (3,)]
    # the state is the highest cursor value read (airbyte-cdk 7): a rerun starts there and reads that record again
    pipe.run(source(api, resource))
    assert [(q["since"], q["until"]) for q in _requests(api, "/items/offset")] == [(at(49), at(72))]
    assert staged(pipe, "items", "id") == [(1,), (2,), (3,), (3,)]


@pytest.mark.parametrize("max_parents", [10, 1])
def test_parent_child__per_parent_cursors_and_fallback_to_a_global_cursor(api, pipe, max_parents):
    api.users = [{"id": 1, "name": "ann"}, {"id": 2, "name": "bob"}]
    api.orders = {1: [{"id": 11, "updated_at": at(1)}], 2: [{"id": 21, "updated_at": at(5)}]}
    resources = [
        {"name": "users", "primary_key": "id", "endpoint": {"path": "users"}},
        {"name": "orders", "primary_key": "id", "endpoint": {
            "path": "users/{parent.id}/orders", "parent": "users", "data_selector": "orders",
            "include_from_parent": ["name"],
            "incremental": {"cursor_path": "updated_at", "initial_value": at(0),
                            "start_param": {"in": "query", "name": "since"}, "per_parent": {"max_parents": max_parents}}}},
    ]
    config = {"client": {"base_url": api.base_url}, "resources": resources}
    run = lambda: pipe.run(RestApiSource(resolve_config(get_plugin("rest_api"), config)).source())  # noqa: E731
    run()
    assert staged(pipe, "orders", "id", "_users_name") == [(11, "ann"), (21, "bob")]
    api.requests.clear()
    api.orders[1].append({"id": 12, "updated_at": at(3)})
    run()
    since = {p: q.get("since") for _, p, q in api.requests if p.endswith("/orders")}
    if max_parents == 10:  # each parent resumes from its own cursor
        assert since == {"/users/1/orders": at(1), "/users/2/orders": at(5)}
    else:  # too many parents: one global cursor, the lowest, so user 1's order 12 is not skipped
        assert since == {"/users/1/orders": at(1), "/users/2/orders": at(1)}
    assert (12, "ann") in staged(pipe, "orders", "id", "_users_name")


def test_auth_secret_from_environment(api, pipe, monkeypatch):
    api.auth = "bearer"
    api.items = [item(1, 1)]
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    config = {"client": {"base_url": api.base_url, "auth": {"type": "bearer", "token": "${SHOP_TOKEN}"}},
              "resources": [{"name": "items", "endpoint": {"path": "items/header_link", "paginator": "header_link"}}]}
    pipe.run(RestApiSource(resolve_config(get_plugin("rest_api"), config)).source())
    assert staged(pipe, "items", "id") == [(1,)]


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c["client"].update(bse_url="x"), "source.config.client: unknown key 'bse_url' (given 'x')"),
    (lambda c: c["resources"][0]["endpoint"].update(paginator={"type": "offset", "limit": "ten"}),
     "source.config.resources[0].endpoint.paginator.limit: 'ten' is not of type 'integer'"),
    (lambda c: c["resources"][0]["endpoint"].update(method="PUT"), "source.config.resources[0].endpoint.method"),
    (lambda c: c["client"].update(auth={"type": "bearer", "token": "${NOT_SET_ANYWHERE}"}),
     "source.config.client.auth.token: environment variable NOT_SET_ANYWHERE is not set"),
    (lambda c: c["client"].update(auth={"type": "bearer", "token": "inline-secret"}),
     "source.config.client.auth.token: is a secret; reference an environment variable"),
])
def test_bad_config__fails_before_any_request_naming_the_yaml_path(api, mutate, message):
    config = {"client": {"base_url": api.base_url},
              "resources": [{"name": "items", "endpoint": {"path": "items/offset", "paginator": OFFSET}}]}
    mutate(config)
    with pytest.raises(SourceConfigError) as e:
        resolve_config(get_plugin("rest_api"), config)
    assert message in str(e.value)
    assert api.requests == []


@pytest.mark.parametrize("path, paginator, selector, mode, auth", [
    ("items/page", {"type": "page_number", "base_page": 1, "total_path": "total_pages", "page_size": 2}, "data",
     "api_key_header", {"type": "api_key", "api_key": "${SHOP_SECRET}"}),
    ("items/offset", OFFSET, "items",
     "api_key_query", {"type": "api_key", "api_key": "${SHOP_SECRET}", "name": "api_key", "location": "query"}),
    ("items/cursor", {"type": "cursor", "cursor_path": "next_cursor"}, "items",
     "bearer", {"type": "bearer", "token": "${SHOP_SECRET}"}),
    ("items/json_link", {"type": "json_link", "next_url_path": "links.next"}, "results",
     "basic", {"type": "http_basic", "username": "ann", "password": "${SHOP_SECRET}"}),
    ("items/header_link", "header_link", None,
     "oauth2", {"type": "oauth2_client_credentials", "access_token_url": "oauth/token", "client_id": "client-1",
                "client_secret": "${SHOP_SECRET}"}),
    # a body that is one record holding a list: without a data_selector, the list would be the records (dlt's guess)
    ("items/single", "single_page", "$", None, None),
])
def test_paginators_and_auth__land_every_page_into_staging_through_rate_limits(
        api, pipe, monkeypatch, path, paginator, selector, mode, auth):
    from ..support.api_server import API_KEY, BASIC, CLIENT

    api.items = [item(i, i) for i in range(1, 6)]
    api.auth, api.rate_limit_every = mode, 5
    secret = {"api_key_header": API_KEY, "api_key_query": API_KEY, "bearer": TOKEN, "basic": BASIC[1],
              "oauth2": CLIENT[1]}.get(mode, "")
    monkeypatch.setenv("SHOP_SECRET", secret)
    if auth and auth["type"].startswith("oauth2"):
        auth = {**auth, "access_token_url": api.base_url + "oauth/token"}
    client = {"auth": auth} if auth else {}
    resource = {"name": "items", "endpoint": {"path": path, "paginator": paginator,
                                              **({"data_selector": selector} if selector else {})}}
    pipe.run(source(api, resource, **client))
    expected = [(1,)] if path == "items/single" else [(i,) for i in range(1, 6)]
    assert staged(pipe, "items", "id") == expected
    assert path == "items/single" or any(r for r in api.requests)  # pages were requested through the 429s


@pytest.mark.parametrize("path, landed, pages", [
    ("items/json_link", 5, 3), ("items/header_link", 5, 3), ("items/cursor", 5, 3),
    ("items/offset", 2, 1),  # a `total` alone is no offset paginator to dlt: one page, with the warning
])
def test_guessed_paginator_and_records_path__land_what_dlts_guess_reads(api, pipe, caplog, path, landed, pages):
    """No paginator and no data_selector in the config: as dlt's rest_api, the first page's response shows
    where the records are and how to page on, and a warning names the guess (the guesses themselves are
    judged against dlt in tests/parity_extract/test_rest_paginator_parity.py); what it reads lands."""
    api.items = [item(i, i) for i in range(1, 6)]
    pipe.run(source(api, {"name": "items", "endpoint": {"path": path}}))
    assert staged(pipe, "items", "id", "name") == [(i, f"item {i}") for i in range(1, landed + 1)]
    assert len([q for _, p, q in api.requests if p == "/" + path]) == pages
    assert any("no paginator configured; guessed" in r.getMessage() for r in caplog.records)
