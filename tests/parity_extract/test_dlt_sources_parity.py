"""dlt's Python sources ported by changing the import: the same `rest_api_source` / `rest_api_resources`
config, `sql_database` / `sql_table` arguments and `filesystem(...) | read_*()` pipes run through the real
dlt 1.31 (duckdb) and through sparkload's facades over its source plugins (python_extract/sources/
dlt_facades/), on the same input, two runs with the input changed between them. Compared after each run:
the tables (compare.py: values, types, links, loads) and each resource's cursor state."""
from __future__ import annotations

import copy
import datetime as dt
from typing import Any, Callable, Dict, List

import pytest

from ..sources.api_server import ApiServer, ShopApi, iso
from .compare import differences
from .conftest import record
from .sides import DltSide, SparkloadSide

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _items(n: int, changed: int = 0) -> List[Dict[str, Any]]:
    hours = lambda i: i + (10 if i <= changed else 0)  # noqa: E731 - the first `changed` items are updated later
    return [{"id": i, "name": f"item {i}{'*' if i <= changed else ''}", "updated_at": iso(T0 + dt.timedelta(hours=hours(i)))}
            for i in range(1, n + 1)]


def _shop(run: int) -> ShopApi:
    """Run 0: 5 items, 2 users with orders; run 1: 7 items (2 updated), a third user, one more order."""
    users = [{"id": u, "name": f"user {u}"} for u in range(1, 3 + run)]
    orders = {u: [{"id": u * 100 + k, "updated_at": iso(T0 + dt.timedelta(hours=k))} for k in range(1, 2 + run + (u == 1))]
              for u in range(1, 3 + run)}
    return ShopApi(items=_items(5 + 2 * run, changed=2 * run), users=users, orders=orders)


INITIAL = iso(T0)
REST_CASES: Dict[str, Callable[[str], Dict[str, Any]]] = {
    "incremental_param": lambda url: {
        "client": {"base_url": url, "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}},
        "resources": [{"name": "r_inc_param", "primary_key": "id",
                       "endpoint": {"path": "items/page", "data_selector": "data", "params": {
                           "since": {"type": "incremental", "cursor_path": "updated_at", "initial_value": INITIAL}}}}]},
    "endpoint_incremental_start_param": lambda url: {
        "client": {"base_url": url, "paginator": {"type": "json_link", "next_url_path": "links.next"}},
        "resources": [{"name": "r_inc_block", "endpoint": {"path": "items/json_link", "data_selector": "results",
                                                            "incremental": {"start_param": "since", "cursor_path": "updated_at",
                                                                            "initial_value": INITIAL}}}]},
    "incremental_placeholder": lambda url: {
        "client": {"base_url": url},
        "resource_defaults": {"primary_key": "id",
                              "endpoint": {"paginator": {"type": "offset", "limit": 2, "total_path": "total"}}},
        "resources": [{"name": "r_inc_placeholder", "endpoint": {
            "path": "items/offset", "data_selector": "items", "params": {"since": "{incremental.start_value}"},
            "incremental": {"cursor_path": "updated_at", "initial_value": INITIAL}}}]},
    "resolve_param_child": lambda url: {
        "client": {"base_url": url, "paginator": "single_page"},
        "resources": [{"name": "r_users", "primary_key": "id", "endpoint": "users"},
                      {"name": "r_orders", "primary_key": "id",
                       "include_from_parent": ["name"],
                       "endpoint": {"path": "users/{user_id}/orders", "data_selector": "orders",
                                    "params": {"user_id": {"type": "resolve", "resource": "r_users", "field": "id"}}}}]},
    "resources_placeholder_child_unselected_parent": lambda url: {
        "client": {"base_url": url, "paginator": "single_page"},
        "resources": [{"name": "r_users2", "endpoint": "users", "selected": False},
                      {"name": "r_orders2", "endpoint": {"path": "users/{resources.r_users2.id}/orders", "data_selector": "orders"}}]},
    "processing_steps_and_string_resource": lambda url: {
        "client": {"base_url": url, "paginator": "single_page"},
        "resources": ["users", {"name": "r_steps", "endpoint": "users", "write_disposition": "replace",
                                "processing_steps": [{"filter": lambda u: u["id"] != 2},
                                                     {"map": lambda u: {**u, "name": u["name"].upper()}}]}]},
}


def _state(side: Any, resource: str) -> Any:
    """A resource's cursors: values as stored, the boundary hashes by count (each side hashes its own way)."""
    cursors = copy.deepcopy(side.resource_state(resource).get("incremental") or {})
    for entry in cursors.values():
        entry["unique_hashes"] = len(entry.get("unique_hashes") or [])
    return cursors


def _number_loads(runs: Dict[str, int], tables: Dict[str, Any], run: int) -> None:
    """Each load id first seen after run `run` numbered `run` (a run of several sources lands several loads)."""
    for table in tables.values():
        for row in table.rows:
            runs.setdefault(row["_dlt_load_id"], run) if "_dlt_load_id" in row else None


@pytest.mark.parametrize("form", ["source", "resources"])
def test_rest_api__dlts_config_lands_the_same_tables_and_cursors_as_dlt_run_after_run(home, lakehouse, form):
    """Every REST case in one pipeline per side (`rest_api_source(config)` per case, or the cases'
    `rest_api_resources(config)` together), run twice against a shop API that changed in between."""
    from dlt.sources.rest_api import rest_api_resources as dlt_resources
    from dlt.sources.rest_api import rest_api_source as dlt_source

    from python_extract.sources.rest_api import rest_api_resources, rest_api_source

    theirs, ours = DltSide(home, f"rest_{form}"), SparkloadSide(lakehouse, home, f"rest_{form}")
    runs: List[Dict[str, Dict[str, int]]] = [{}, {}]
    for run in range(2):
        for side, (make_source, make_resources), at in ((theirs, (dlt_source, dlt_resources), 0), (ours, (rest_api_source, rest_api_resources), 1)):
            api = _shop(run)
            with ApiServer(api):
                configs = [case(api.base_url) for case in REST_CASES.values()]
                if form == "source":
                    data = [make_source(c, name=f"src_{i}") for i, c in enumerate(configs)]
                    for source in data:
                        side.run(source)
                else:
                    side.run([r for c in configs for r in make_resources(c) if r.name != "r_users2"])
        their_tables, our_tables = theirs.tables(), ours.tables()
        _number_loads(runs[0], their_tables, run)
        _number_loads(runs[1], our_tables, run)
        for case, config in REST_CASES.items():
            roots = [r if isinstance(r, str) else r["name"] for r in config("x")["resources"]]
            for root in roots:
                if root == "r_users2":
                    continue
                found = differences(their_tables, our_tables, root, runs[0], runs[1])
                assert not found, (case, run, root, found)
            for root in roots:
                assert _state(theirs, root) == _state(ours, root), (case, run, root)
    assert len(our_tables) == 7 and "r_users2" not in our_tables
    for case in REST_CASES:
        record("dlt python sources: rest_api", "identical")
