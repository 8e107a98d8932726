"""The REST API source's paginators against dlt 1.31's: one paginator config, written as dlt's `rest_api`
takes it, built by dlt (`rest_api.config_setup.create_paginator`, run by its `RESTClient.paginate`) and by
sparkload (`build_paginator`, run by the source's `RestClient.paginate`), each against its own copy of one
local API. Compared: the records read, in order, every request sent (path and query), and whether the run
fails. The API may leave records out of a page after paging (`hidden`): a short page in the middle, or an
empty one, as APIs that filter by permission return."""
from __future__ import annotations

import datetime as dt
from typing import Any, Dict, List, Optional, Tuple

import pytest

from python_extract.sources.rest_api.client import RestClient
from python_extract.sources.rest_api.paginators import Request, build_paginator

from ..support.api_server import ApiServer, ShopApi, iso
from ..support.tally import record_vs_dlt as record

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
ITEMS = [{"id": i, "name": f"item {i}", "updated_at": iso(T0 + dt.timedelta(hours=i))} for i in range(1, 8)]

# (case, endpoint, paginator config, data selector); pages hold 2 records (per_page, limit, cursor step)
PAGINATORS: List[Tuple[str, str, Any, Optional[str]]] = [
    ("offset_total", "items/offset", {"type": "offset", "limit": 2, "total_path": "total"}, "items"),
    ("offset_default_total", "items/offset", {"type": "offset", "limit": 2}, "items"),
    ("offset_no_total", "items/offset", {"type": "offset", "limit": 2, "total_path": None}, "items"),
    ("offset_maximum", "items/offset", {"type": "offset", "limit": 2, "total_path": None, "maximum_offset": 4}, "items"),
    ("offset_missing_total", "items/offset", {"type": "offset", "limit": 2, "total_path": "count"}, "items"),
    ("page_total", "items/page", {"type": "page_number", "base_page": 1, "total_path": "total_pages"}, "data"),
    ("page_default_base", "items/page", {"type": "page_number", "total_path": "total_pages"}, "data"),
    ("page_no_total", "items/page", {"type": "page_number", "base_page": 1, "total_path": None}, "data"),
    ("page_maximum", "items/page", {"type": "page_number", "base_page": 1, "total_path": None, "maximum_page": 3}, "data"),
    ("page_first", "items/page", {"type": "page_number", "base_page": 1, "page": 2, "total_path": "total_pages"}, "data"),
    ("cursor", "items/cursor", {"type": "cursor", "cursor_path": "next_cursor", "cursor_param": "cursor"}, "items"),
    ("cursor_has_more", "items/cursor", {"type": "cursor", "cursor_path": "next_cursor", "cursor_param": "cursor",
                                         "has_more_path": "has_more"}, "items"),
    ("cursor_stop_empty", "items/cursor", {"type": "cursor", "cursor_path": "next_cursor", "cursor_param": "cursor",
                                           "stop_after_empty_page": True}, "items"),
    ("json_link", "items/json_link", {"type": "json_link", "next_url_path": "links.next"}, "results"),
    ("header_link", "items/header_link", "header_link", None),
    ("single_page", "items/json_link", "single_page", "results"),
    # no paginator: guessed from the first response
    *[(f"guessed_{style}", f"items/{style}", None, None) for style in ("header_link", "json_link", "page", "cursor", "offset")],
]
HIDDEN = {"all_shown": (), "short_page": (2,), "empty_page": (3, 4)}


def _run(paginate, hidden: Tuple[int, ...]) -> Dict[str, Any]:
    api = ShopApi(items=[dict(item) for item in ITEMS], hidden=hidden)
    with ApiServer(api):
        try:
            ids = [row["id"] for page in paginate(api.base_url) for row in page]
            error = None
        except Exception as e:  # noqa: BLE001 - compared by kind: both fail, or neither
            ids, error = None, type(e).__name__
    sent = [(path, tuple(sorted(query.items()))) for _, path, query in api.requests]
    return {"ids": ids, "requests": sent, "fails": error is not None}


@pytest.mark.parametrize("hidden", list(HIDDEN))
@pytest.mark.parametrize("case, path, config, selector", PAGINATORS, ids=[p[0] for p in PAGINATORS])
def test_rest_paginators__read_the_same_records_with_the_same_requests_as_dlt(case, path, config, selector, hidden):
    from dlt.sources.helpers.rest_client import RESTClient
    from dlt.sources.rest_api.config_setup import create_paginator

    theirs = _run(lambda url: RESTClient(base_url=url).paginate(path, paginator=create_paginator(config), data_selector=selector),
                  HIDDEN[hidden])
    ours = _run(lambda url: RestClient(url).paginate(Request(path), build_paginator(config), selector), HIDDEN[hidden])
    record("rest paginators", "identical" if ours == theirs else "differs")
    assert ours == theirs


ROWS = [{"id": 1}, {"id": 2}]
# (case, response body, data_selector): where the records of a page are
BODIES: List[Tuple[str, Any, Optional[str]]] = [
    ("list", ROWS, None),
    ("wrapper_key", {"data": ROWS, "meta": {"total": 2}}, None),
    ("other_key", {"users": ROWS}, None),
    ("nested_wrapper", {"response": {"items": ROWS}, "count": 2}, None),
    ("wrapper_after_a_nested_list", {"meta": {"tags": ["a", "b"]}, "results": ROWS}, None),
    ("no_wrapper_first_list_wins", {"links": [{"rel": "self"}], "users": ROWS}, None),
    ("list_three_keys_deep", {"a": {"b": {"items": ROWS}}}, None),
    ("list_four_keys_deep", {"a": {"b": {"c": {"items": ROWS}}}}, None),
    ("single_object", {"id": 1, "name": "x"}, None),
    ("object_under_wrapper", {"data": {"id": 1}}, None),
    ("empty_list", {"data": []}, None),
    ("scalar", "text", None),
    ("selector_list", {"result": {"rows": ROWS}}, "result.rows"),
    ("selector_object", {"result": {"row": {"id": 1}}}, "result.row"),
    ("selector_each", {"result": ROWS}, "result[*]"),
    ("selector_missing", {"result": ROWS}, "other"),
]


@pytest.mark.parametrize("case, body, selector", BODIES, ids=[b[0] for b in BODIES])
def test_rest_data_selector__takes_the_same_records_from_a_response_as_dlt(case, body, selector):
    import json

    import requests
    from dlt.sources.helpers.rest_client import RESTClient

    from python_extract.sources.rest_api.selector import records_path, select_records

    response = requests.Response()
    response.status_code, response._content = 200, json.dumps(body).encode()
    client = RESTClient(base_url="http://127.0.0.1")
    theirs = client.extract_response(response, selector or client.detect_data_selector(response))
    ours = select_records(body, selector or records_path(body))
    record("rest data selector", "identical" if ours == theirs else "differs")
    assert ours == theirs
