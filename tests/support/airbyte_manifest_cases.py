"""The cases of the manifest differential, as data: a real connector's manifest (airbyte_manifests.py), its
config, the local API's routes with their records (airbyte_connector_api.py), and the syncs (time frozen at
`now`; records added or updated, or a window failing, before each sync). `purpose` names a difference
kept on purpose (docs/parity.md, Airbyte section)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from .airbyte_connector_api import Route

UTC = dt.timezone.utc
JAN = dt.datetime(2024, 1, 1, tzinfo=UTC)


def at(days: float) -> dt.datetime:
    return JAN + dt.timedelta(days=days)


def ms(days: float) -> int:
    return int(at(days).timestamp() * 1000)


def sec(days: float) -> int:
    return int(at(days).timestamp())


def dmy(days: float) -> str:
    return at(days).strftime("%d/%m/%Y %H:%M")


@dataclass
class Sync:
    now: dt.datetime
    change: Callable[[Dict[str, Route]], None] = lambda routes: None


@dataclass
class Case:
    name: str
    connector: str  # a real connector's (manifests.PACKAGES), or "" with `manifest`
    config: Dict[str, Any]
    routes: Callable[[], Dict[str, Route]]
    syncs: List[Sync]
    checkpoint_records: int = 10_000
    purpose: Optional[str] = None
    manifest: Optional[Dict[str, Any]] = None


# dixa: one stream, windows of `batch_size` days in epoch milliseconds, a nested object per record
def dixa_routes() -> Dict[str, Route]:
    records = [{"id": f"c{i}", "updated_at": ms(d), "direction": "inbound" if i % 2 else "outbound",
                "requester": {"name": f"customer {i}", "email": f"c{i}@example.com"}, "_at": at(d)}
               for i, d in enumerate([0, 2, 9, 11, 15, 22, 30], start=1)]
    return {"/v1/conversation_export": Route(records, since="updated_after", until="updated_before", fmt="%ms")}


def dixa_sync2(routes: Dict[str, Route]) -> None:
    rows = routes["/v1/conversation_export"].records
    rows += [{"id": "c8", "updated_at": ms(34), "direction": "inbound", "requester": {"name": "customer 8"}, "_at": at(34)}]
    updated = dict(rows[1], updated_at=ms(36), direction="closed", _at=at(36))  # c2 again, later
    rows.append(updated)
    del rows[1]


def dixa_fail(routes: Dict[str, Route]) -> None:
    routes["/v1/conversation_export"].fail = str(ms(20))  # the third window
    # the second window answers late, so the third fails while the second is still being read: the CDK
    # reports the error first and the second window's STATE after it (the cause of a flake, seen twice)
    routes["/v1/conversation_export"].slow = str(ms(10))


# delighted: four streams, week windows in epoch seconds, paged by a Link header (people) and by page numbers
def _people(n: int, first: int, days: float) -> List[Dict[str, Any]]:
    return [{"id": str(first + i), "email": f"p{first + i}@example.com", "name": f"person {first + i}",
             "created_at": sec(days) + i, "_at": at(days) + dt.timedelta(seconds=i)} for i in range(n)]


def delighted_routes() -> Dict[str, Route]:
    window = dict(since="since", until="until", fmt="%s")
    responses = [{"id": str(500 + i), "person": str(i % 7), "score": i % 11, "comment": None if i % 3 else f"ok {i}",
                  "created_at": sec(1), "updated_at": sec(1 + i / 200), "_at": at(1 + i / 200)} for i in range(120)]
    return {
        "/v1/people.json": Route(_people(130, 1, 2) + _people(5, 200, 20), paging="link", **window),
        "/v1/unsubscribes.json": Route([{"person_id": str(i), "email": f"p{i}@example.com", "unsubscribed_at": sec(i * 3),
                                         "_at": at(i * 3)} for i in range(1, 6)], paging="page", **window),
        "/v1/bounces.json": Route([{"person_id": str(i), "email": f"p{i}@example.com", "bounced_at": sec(i * 5 + 0.5),
                                    "_at": at(i * 5 + 0.5)} for i in range(1, 4)], paging="page", **window),
        "/v1/survey_responses.json": Route(responses, since="updated_since", until="updated_until", fmt="%s", paging="page"),
    }


def delighted_sync2(routes: Dict[str, Route]) -> None:
    routes["/v1/people.json"].records += _people(3, 300, 33)
    responses = routes["/v1/survey_responses.json"].records
    responses.append(dict(responses[0], score=10, comment="changed my mind", updated_at=sec(35), _at=at(35)))
    del responses[0]
    routes["/v1/bounces.json"].records.append({"person_id": "9", "email": "p9@example.com", "bounced_at": sec(32), "_at": at(32)})


# datascope: two full-refresh streams paged by offset, two incremental streams with day windows as `dd/mm/YYYY HH:MM`
def datascope_routes() -> Dict[str, Route]:
    window = dict(since="start", until="end", fmt="%d/%m/%Y %H:%M", day_until=True, paging="offset")
    return {
        "/api/external/locations": Route([{"id": i, "name": f"store {i}", "code": f"S{i:03d}", "_at": JAN} for i in range(250)], paging="offset"),
        "/api/external/metadata_objects": Route([{"id": i, "name": f"list {i}", "metadata_type": "list", "_at": JAN} for i in range(3)], paging="offset"),
        "/api/external/v2/answers": Route([{"form_answer_id": 1000 + i, "form_name": "audit", "user_name": f"inspector {i % 4}",
                               "created_at": dmy(i / 12), "_at": at(i / 12)} for i in range(0, 200, 7)], **window),
        "/api/external/notifications": Route([{"id": i, "type": "task", "created_at": dmy(i * 2 + 0.25), "_at": at(i * 2 + 0.25)}
                                 for i in range(1, 8)], **window),
    }


def datascope_sync2(routes: Dict[str, Route]) -> None:
    routes["/api/external/locations"].records = [r for r in routes["/api/external/locations"].records if r["id"] != 7]  # a store closed
    routes["/api/external/v2/answers"].records.append({"form_answer_id": 5000, "form_name": "audit", "user_name": "late",
                                          "created_at": dmy(21.5), "_at": at(21.5)})
    routes["/api/external/notifications"].records.append({"id": 99, "type": "alert", "created_at": dmy(24), "_at": at(24)})


CASES = [
    Case("dixa", "dixa", {"api_token": "t0ken", "start_date": "2024-01-01T00:00:00Z", "batch_size": 10}, dixa_routes,
         [Sync(at(31)), Sync(at(45), dixa_sync2)]),
    Case("dixa_fails_in_window_3", "dixa", {"api_token": "t0ken", "start_date": "2024-01-01T00:00:00Z", "batch_size": 10},
         dixa_routes, [Sync(at(31), dixa_fail), Sync(at(45), lambda routes: setattr(routes["/v1/conversation_export"], "fail", None))],
         checkpoint_records=1, purpose="records_after_failure"),
    Case("delighted", "delighted", {"api_key": "k3y", "since": "2024-01-01 00:00:00"}, delighted_routes,
         [Sync(at(31)), Sync(at(40), delighted_sync2)]),
    Case("datascope", "datascope", {"api_key": "k3y", "start_date": "01/01/2024 00:00"}, datascope_routes,
         [Sync(at(20)), Sync(at(26), datascope_sync2)]),
]


# substreams (no real connector of the three has an incremental one): projects -> comments, one comments
# cursor per project, as the CDK's SubstreamPartitionRouter keeps them
ISO = "%Y-%m-%dT%H:%M:%SZ"


def iso(days: float) -> str:
    return at(days).strftime(ISO)


def _stream(name: str, path: str, incremental: bool, router: Optional[Dict[str, Any]] = None,
            global_cursor: bool = False) -> Dict[str, Any]:
    retriever: Dict[str, Any] = {
        "type": "SimpleRetriever",
        "requester": {"type": "HttpRequester", "url_base": "https://api.example.com/v1/", "path": path},
        "record_selector": {"type": "RecordSelector", "extractor": {"type": "DpathExtractor", "field_path": []}}}
    if router:
        retriever["partition_router"] = router
    stream = {"type": "DeclarativeStream", "name": name, "primary_key": ["id"], "retriever": retriever,
              "schema_loader": {"type": "InlineSchemaLoader", "schema": {"type": "object"}}}
    if incremental:
        stream["incremental_sync"] = {
            "type": "DatetimeBasedCursor", "cursor_field": "updated_at", "datetime_format": ISO,
            "start_datetime": "2024-01-01T00:00:00Z",
            "start_time_option": {"type": "RequestOption", "field_name": "since", "inject_into": "request_parameter"},
            **({"global_substream_cursor": True} if global_cursor else {})}
    return stream


def substream_manifest(incremental_dependency: bool = False, global_cursor: bool = False) -> Dict[str, Any]:
    projects = _stream("projects", "projects", incremental=incremental_dependency)
    router = {"type": "SubstreamPartitionRouter", "parent_stream_configs": [{
        "type": "ParentStreamConfig", "stream": projects, "parent_key": "id", "partition_field": "project_id",
        **({"incremental_dependency": True} if incremental_dependency else {})}]}
    comments = _stream("comments", "projects/{{ stream_partition.project_id }}/comments", True, router, global_cursor)
    return {"version": "6.0.0", "type": "DeclarativeSource", "check": {"type": "CheckStream", "stream_names": ["projects"]},
            "spec": {"type": "Spec", "connection_specification": {"type": "object", "properties": {}}},
            "streams": [projects, comments]}


def _project(i: int, days: float) -> Dict[str, Any]:
    return {"id": i, "name": f"project {i}", "updated_at": iso(days), "_at": at(days)}


def _comment(i: int, project: int, days: float, text: str = "") -> Dict[str, Any]:
    return {"id": i, "project_id": project, "body": text or f"comment {i}", "updated_at": iso(days), "_at": at(days)}


def substream_routes() -> Dict[str, Route]:
    window = dict(since="since", fmt=ISO)
    comments = {1: [_comment(11, 1, 1), _comment(12, 1, 4)], 2: [_comment(21, 2, 2)], 3: [_comment(31, 3, 6), _comment(32, 3, 7)]}
    routes = {"/v1/projects": Route([_project(1, 1), _project(2, 3), _project(3, 5)], **window)}
    routes.update({f"/v1/projects/{p}/comments": Route(rows, **window) for p, rows in comments.items()})
    return routes


def substream_sync2(routes: Dict[str, Route]) -> None:
    routes["/v1/projects"].records = [r for r in routes["/v1/projects"].records if r["id"] != 1]
    routes["/v1/projects"].records += [_project(1, 9), _project(4, 10)]  # project 1 touched, project 4 new
    routes["/v1/projects/1/comments"].records.append(_comment(13, 1, 9))
    routes["/v1/projects/2/comments"].records.append(_comment(22, 2, 9.5))  # its project did not change
    routes["/v1/projects/3/comments"].records[1:] = [_comment(32, 3, 9.7, "edited")]
    routes["/v1/projects/4/comments"] = Route([_comment(41, 4, 10)], since="since", fmt=ISO)


CASES += [
    Case("substream_per_partition_state", "", {}, substream_routes, [Sync(at(8)), Sync(at(12), substream_sync2)],
         manifest=substream_manifest()),
    Case("substream_incremental_dependency", "", {}, substream_routes, [Sync(at(8)), Sync(at(12), substream_sync2)],
         manifest=substream_manifest(incremental_dependency=True)),
    Case("substream_global_substream_cursor", "", {}, substream_routes, [Sync(at(8)), Sync(at(12), substream_sync2)],
         manifest=substream_manifest(global_cursor=True)),
]


# dynamic_streams: one stream per table the API lists (the CDK's HttpComponentsResolver filling a stream
# template), each incremental on its own cursor; a table listed only from the second sync on is a new stream
def dynamic_manifest() -> Dict[str, Any]:
    template = _stream("table", "tables/table/rows", incremental=True)
    resolver = {"type": "HttpComponentsResolver", "retriever": {
        "type": "SimpleRetriever",
        "requester": {"type": "HttpRequester", "url_base": "https://api.example.com/v1/", "path": "tables"},
        "record_selector": {"type": "RecordSelector", "extractor": {"type": "DpathExtractor", "field_path": []}}},
        "components_mapping": [
            {"type": "ComponentMappingDefinition", "field_path": ["name"], "value": "{{ components_values['name'] }}"},
            {"type": "ComponentMappingDefinition", "field_path": ["retriever", "requester", "path"],
             "value": "tables/{{ components_values['name'] }}/rows"}]}
    return {"version": "6.0.0", "type": "DeclarativeSource", "check": {"type": "CheckStream", "stream_names": ["orders"]},
            "spec": {"type": "Spec", "connection_specification": {"type": "object", "properties": {}}},
            "streams": [], "dynamic_streams": [{"type": "DynamicDeclarativeStream", "name": "tables",
                                                "stream_template": template, "components_resolver": resolver}]}


def _row(i: int, days: float) -> Dict[str, Any]:
    return {"id": i, "amount": i * 10, "updated_at": iso(days), "_at": at(days)}


def dynamic_routes() -> Dict[str, Route]:
    window = dict(since="since", fmt=ISO)
    return {"/v1/tables": Route([{"name": "orders", "_at": JAN}, {"name": "refunds", "_at": JAN}]),
            "/v1/tables/orders/rows": Route([_row(1, 1), _row(2, 3)], **window),
            "/v1/tables/refunds/rows": Route([_row(7, 2)], **window)}


def dynamic_sync2(routes: Dict[str, Route]) -> None:
    routes["/v1/tables"].records.append({"name": "invoices", "_at": JAN})
    routes["/v1/tables/invoices/rows"] = Route([_row(20, 1), _row(21, 9)], since="since", fmt=ISO)
    routes["/v1/tables/orders/rows"].records.append(_row(3, 10))


CASES += [
    Case("dynamic_streams", "", {}, dynamic_routes, [Sync(at(8)), Sync(at(12), dynamic_sync2)], manifest=dynamic_manifest()),
]
