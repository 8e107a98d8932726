"""The REST API source: a `Source` of resources built from a declarative config (see schema.py).

Per resource: the endpoint is paged with its paginator (or the client's), records are taken with the
`data_selector`, and the `incremental` block becomes a dlt cursor (`cursor_path`, `initial_value`,
`end_value`, `range_start`/`range_end`, `lookback` seconds as lag, `row_order`,
`on_cursor_value_missing`) — or, with `step` + `cursor_granularity`, Airbyte date windows whose state
is checkpointed per window (`clamping` puts them on whole days, weeks or months; the dlt cursor options
they do not read are refused by name). The start and end of the range are injected into the request where
`start_param`/`end_param` say (`in: query|header|json`, `name`: parameter, header or dotted JSON body
path) in `format` (`iso` default, `epoch`, `date`, or a strftime pattern).

A resource with `endpoint.parent` is read per record of its parent resource: `{parent.<field>}` in
its path, params and body is replaced by the parent record's field, and `include_from_parent` copies
parent fields into its records as `_<parent>_<field>`. With an incremental block, each parent keeps
its own cursor (`per_parent.max_parents`, default 1000); past that cap the resource falls back to one
global cursor, the lowest of the per-parent ones, so no record is ever skipped. Two options of the Airbyte
CDK's substreams: `endpoint.incremental_dependency` reads the parent by its own `incremental` block on a
cursor kept in the child's state (`parent_state`), so only parents changed since the last run have their
children read; `incremental.global_substream_cursor` keeps one cursor for every parent, asked from less
`lookback_window`, the seconds the last run took. A misused option is a `ConfigError`.
"""
from __future__ import annotations

import copy
import datetime as dt
import math
import re
import time
from typing import Any, Dict, Iterator, List, Optional

from ... import timeutil
from ...contract import TABLE_HINTS
from ...errors import ConfigError, did_you_mean
from ...extract import Source, date_windows, incremental
from ...extract.resource import Resource, ResourceState, as_key_list
from .auth import build_auth
from .client import RestClient, Retry
from .paginators import Request, build_paginator
from .selector import find_value

_PLACEHOLDER = re.compile(r"\{parent\.([^}]+)\}")
DEFAULT_MAX_PARENTS = 1000


def _merge(defaults: Dict[str, Any], specific: Dict[str, Any]) -> Dict[str, Any]:
    out = copy.deepcopy(defaults)
    for key, value in specific.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def format_bound(value: Any, fmt: Optional[str]) -> Any:
    """A cursor bound as the API wants it: iso (default), epoch seconds, date, or a strftime pattern."""
    if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    moment = timeutil.parse(value) if isinstance(value, str) else value
    if isinstance(moment, dt.datetime) and moment.tzinfo is None:
        moment = moment.replace(tzinfo=timeutil.UTC)
    fmt = fmt or "iso"
    if fmt == "iso":
        return value if isinstance(value, str) else timeutil.iso_z(moment)
    if fmt in ("epoch", "%s"):
        return int(moment.timestamp())
    if fmt == "date":
        return moment.date().isoformat() if isinstance(moment, dt.datetime) else moment.isoformat()
    return moment.strftime(fmt)


def inject(request: Request, place: Optional[Dict[str, str]], value: Any) -> None:
    if place is None or value is None:
        return
    if place["in"] == "query":
        request.params[place["name"]] = value
    elif place["in"] == "header":
        request.headers[place["name"]] = str(value)
    else:
        body = request.json if isinstance(request.json, dict) else {}
        *parents, leaf = place["name"].split(".")
        node = body
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
        request.json = body


def _fill(value: Any, parent: Dict[str, Any]) -> Any:
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: str(parent[m.group(1)]), value)
    if isinstance(value, dict):
        return {k: _fill(v, parent) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, parent) for v in value]
    return value


def _single_entity(path: str) -> bool:
    """Whether the path's last segment is a placeholder (`{parent.id}`): an endpoint of one record."""
    return re.search(r"\{[A-Za-z0-9.\-_]+\}", path.rstrip("/").rsplit("/", 1)[-1]) is not None


class RestApiSource:
    """Builds the resources of one REST API config; `source()` gives the `Source` to run."""

    def __init__(self, config: Dict[str, Any], name: str = "rest_api", session: Any = None):
        self.config, self.name = config, name
        client = config["client"]
        self.client = RestClient(
            client["base_url"], headers=dict(client.get("headers") or {}), auth=build_auth(client.get("auth")),
            retry=Retry(**(client.get("retry") or {})), response_actions=list(client.get("response_actions") or []),
            timeout=float(client.get("timeout", 60)), session=session,
        )
        defaults = config.get("resource_defaults") or {}
        self.resources: Dict[str, Dict[str, Any]] = {}
        for entry in config["resources"]:
            entry = {"name": entry, "endpoint": {"path": entry}} if isinstance(entry, str) else entry
            merged = _merge(defaults, entry)
            if isinstance(merged.get("endpoint"), str):
                merged["endpoint"] = {"path": merged["endpoint"]}
            merged.setdefault("endpoint", {}).setdefault("path", merged["name"])
            self.resources[merged["name"]] = merged

    def pages(self, endpoint: Dict[str, Any], parent: Optional[Dict[str, Any]] = None,
              bounds: tuple = (None, None)) -> Iterator[List[Any]]:
        """Pages of records of `endpoint`, for one parent record and one cursor range."""
        ep = _fill(endpoint, parent) if parent is not None else endpoint
        request = Request(ep["path"], ep.get("method", "GET"), dict(ep.get("params") or {}),
                          dict(ep.get("headers") or {}), copy.deepcopy(ep.get("json")))
        inc = ep.get("incremental") or {}
        fmt = inc.get("format")
        inject(request, inc.get("start_param"), format_bound(bounds[0], fmt))
        inject(request, inc.get("end_param"), format_bound(bounds[1], fmt))
        selector, paginator = ep.get("data_selector"), ep.get("paginator")
        if _single_entity(endpoint["path"]):  # as dlt's rest_api: `users/{parent.id}` answers one record
            selector = "$" if selector is None else selector
            paginator = "single_page" if paginator is None else paginator
        paginator = build_paginator(self.config["client"].get("paginator") if paginator is None else paginator)
        yield from self.client.paginate(request, paginator, selector, ep.get("response_actions"))

    def _records(self, name: str) -> Iterator[Dict[str, Any]]:
        """Every record of a resource without cursor (how a child resource reads its parents)."""
        for page in self.pages(self.resources[name]["endpoint"]):
            yield from page

    def resource(self, name: str) -> Resource:
        cfg = self.resources[name]
        endpoint, inc = cfg["endpoint"], cfg["endpoint"].get("incremental")
        parent = endpoint.get("parent")
        if parent is not None and parent not in self.resources:
            raise ConfigError(f"resource {name}: parent {parent!r} is not a resource of this source"
                              f"{did_you_mean(str(parent), list(self.resources))}; expected one of {', '.join(self.resources)}")
        orphan = [k for k, on in (("endpoint.incremental_dependency", endpoint.get("incremental_dependency")),
                                  ("incremental.global_substream_cursor", (inc or {}).get("global_substream_cursor"))) if on]
        if parent is None and orphan:
            raise ConfigError(f"resource {name}: {orphan[0]} needs endpoint.parent (it is about a parent's records)")
        if inc and inc.get("clamping") and not inc.get("step"):
            raise ConfigError(f"resource {name}: incremental.clamping needs step and cursor_granularity (it rounds date windows)")
        if parent is not None:
            fn = self._child_fn(name, parent, endpoint, inc)
        elif inc and inc.get("step"):
            windows = _windows(name, inc)

            def fn(window=windows):
                for page in self.pages(endpoint, bounds=(window.start, window.end)):
                    for row in page:
                        window.observe(_cursor_instant(row, inc))
                    yield page
        elif inc:
            def fn(cursor=self._incremental(inc)):
                for page in self.pages(endpoint, bounds=(cursor.start_value, cursor.end_value)):
                    yield page
        else:
            def fn():
                yield from self.pages(endpoint)
        hints = {k: cfg[k] for k in TABLE_HINTS if k in cfg}
        return Resource(fn, name, **hints)

    @staticmethod
    def _incremental(inc: Dict[str, Any], **overrides: Any):
        args = dict(initial_value=inc.get("initial_value"), end_value=inc.get("end_value"),
                    range_start=inc.get("range_start", "closed"), range_end=inc.get("range_end", "open"),
                    lag=inc.get("lookback"), row_order=inc.get("row_order"),
                    on_cursor_value_missing=inc.get("on_cursor_value_missing", "raise"))
        return incremental(inc["cursor_path"], **{**args, **overrides})

    def _child_fn(self, name: str, parent: str, endpoint: Dict[str, Any], inc: Optional[Dict[str, Any]]):
        copy_fields = endpoint.get("include_from_parent") or []
        primary_key = as_key_list(self.resources[name].get("primary_key"))
        parents_of = self._parents_reader(name, parent, bool(endpoint.get("incremental_dependency")))

        def records_of(record: Dict[str, Any], bounds: tuple) -> Iterator[List[Any]]:
            for page in self.pages(endpoint, parent=record, bounds=bounds):
                for row in page:
                    for f in copy_fields:
                        row[f"_{parent}_{f}"] = record.get(f)
                yield page

        if not inc:
            def fn(state=ResourceState()):
                records, commit = parents_of(state)
                for record in records:
                    yield from records_of(record, (None, None))
                commit()
            return fn
        template = self._incremental(inc)
        if inc.get("global_substream_cursor"):
            if inc.get("per_parent") is not None:
                raise ConfigError(f"resource {name}: incremental.global_substream_cursor keeps one cursor for every parent; "
                                  "per_parent (a cursor per parent) contradicts it: keep one of the two")
            return self._global_child_fn(name, template, inc, parents_of, records_of, primary_key)
        cap = (inc.get("per_parent") or {}).get("max_parents", DEFAULT_MAX_PARENTS)

        def fn(state=ResourceState()):
            parents, commit = parents_of(state)
            parents = list(parents)
            partitions = state.setdefault("partitions", {})
            if "global" not in state and len(set(partitions) | {_key(p) for p in parents}) > cap:
                state["global"] = _lowest(partitions.values())
                partitions.clear()
            advanced = []
            for record in parents:
                shared = state.get("global")
                sub = copy.deepcopy(shared) if shared is not None else partitions.setdefault(_key(record), {})
                cursor = template.bind(sub, name, primary_key)
                kept = [row for page in records_of(record, (cursor.start_value, cursor.end_value))
                        for row in page if cursor(row)]
                cursor.commit()
                if kept:
                    advanced.append(sub)
                    yield kept
            if state.get("global") is not None and advanced:
                # a parent without new rows had none in the range, so the lowest advanced cursor is safe
                state["global"] = _lowest(advanced)
            commit()

        return fn

    @staticmethod
    def _global_child_fn(name, template, inc, parents_of, records_of, primary_key):
        """One cursor for every parent (the CDK's `global_substream_cursor`): each parent is asked from the
        highest cursor value of the last sync less `lookback_window`, the seconds that sync took, so a record
        changed under a parent read early in that sync is read again."""
        def fn(state=ResourceState()):
            started = time.perf_counter()
            parents, commit = parents_of(state)
            shared = state.setdefault("global", {})
            lag = state.get("lookback_window", 0) + (inc.get("lookback") or 0)
            cursor = copy.copy(template)
            cursor.lag = lag or None
            cursor = cursor.bind(shared, name, primary_key)
            read = False
            for record in parents:
                kept = [row for page in records_of(record, (cursor.start_value, cursor.end_value))
                        for row in page if cursor(row)]
                if kept:
                    read = True
                    yield kept
            cursor.commit()
            if read:
                state["lookback_window"] = math.ceil(time.perf_counter() - started)
            commit()

        return fn

    def _parents_reader(self, name: str, parent: str, dependency: bool):
        """`state -> (parent records, commit)`: every parent record, or with `incremental_dependency` (the
        CDK's) those changed since the last sync, by the parent's own `incremental` block on a cursor kept in
        this resource's state (`parent_state`) and committed after the last child record."""
        if not dependency:
            return lambda state: (self._records(parent), lambda: None)
        parent_endpoint = self.resources[parent]["endpoint"]
        parent_inc = parent_endpoint.get("incremental")
        if not parent_inc or parent_inc.get("step"):
            raise ConfigError(f"resource {name}: incremental_dependency needs an incremental block without `step` on "
                             f"its parent {parent!r} (its cursor says which parents changed)")
        # no boundary deduplication: a parent at the saved cursor counts as changed, as the CDK reads it again
        template = self._incremental(parent_inc, primary_key=())

        def read(state: Dict[str, Any]):
            cursor = template.bind(state.setdefault("parent_state", {}).setdefault(parent, {}), parent, [])
            records = [row for page in self.pages(parent_endpoint, bounds=(cursor.start_value, cursor.end_value))
                       for row in page if cursor(row)]
            return records, cursor.commit

        return read

    def source(self) -> Source:
        selected = [n for n, cfg in self.resources.items() if cfg.get("selected", True)]
        return Source(self.name, [self.resource(n) for n in selected])


_BOUND_PATTERNS = {"iso": None, "epoch": "%s", "date": "%Y-%m-%d"}


# dlt cursor options that date windows do not read, each with the reason it is refused there
_NOT_WITH_STEP = {
    "row_order": "a data feed read in date windows (the CDK's is_data_feed with step): the windows already bound "
                 "what a newest-first read would stop at, and an API that ignores them is read without step",
    "range_start": "a window's bounds are both inclusive, as the CDK's",
    "range_end": "a window's bounds are both inclusive, as the CDK's",
    "on_cursor_value_missing": "a record without a cursor value is landed, as the CDK does",
    "type": "date windows are datetimes",
}


def _windows(name: str, inc: Dict[str, Any]):
    """Airbyte date windows from an `incremental` block: bounds and state in `format`, state the highest
    `cursor_path` value read (the CDK's DatetimeBasedCursor)."""
    for key, reason in _NOT_WITH_STEP.items():
        if inc.get(key) is not None:
            raise ConfigError(f"resource {name}: incremental.{key} is not supported with step (date windows): {reason}")
    pattern = _BOUND_PATTERNS.get(inc.get("format") or "iso", inc.get("format"))
    lookback = inc.get("lookback_window") or (f"PT{int(inc['lookback'])}S" if inc.get("lookback") else None)
    end = inc.get("end_value")
    return date_windows(start=timeutil.parse_instant(inc["initial_value"], pattern),
                        end=None if end is None else timeutil.parse_instant(end, pattern), step=inc["step"],
                        cursor_granularity=inc.get("cursor_granularity"), lookback_window=lookback,
                        datetime_format=pattern, cursor_field=inc["cursor_path"],
                        clamping={k: v for k, v in inc["clamping"].items() if v is not None} if inc.get("clamping") else None)


def _cursor_instant(row: Any, inc: Dict[str, Any]) -> Any:
    """A record's cursor value as a datetime: by the first of `cursor_formats` that parses it (the CDK's
    `cursor_datetime_formats`), else as `format` says; None when the record has none."""
    value = find_value(row, inc["cursor_path"]) if isinstance(row, dict) else None
    if value is None:
        return None
    pattern = _BOUND_PATTERNS.get(inc.get("format") or "iso", inc.get("format"))
    for fmt in inc.get("cursor_formats") or [pattern]:
        try:
            return timeutil.parse_instant(value, fmt)
        except (ValueError, TypeError):
            continue
    raise ValueError(f"cursor {inc['cursor_path']}: {value!r} matches none of the formats {inc.get('cursor_formats') or [pattern]}")


def _key(record: Dict[str, Any]) -> str:
    return str(record.get("id", sorted(record.items())))


def _lowest(entries: Any) -> Dict[str, Any]:
    """The cursor state with the lowest last value ({} when there is none)."""
    from ...extract.incremental import cursor_key

    def last(entry: Dict[str, Any]) -> Any:
        return next(iter((entry.get("incremental") or {}).values()), {}).get("last_value")

    known = [e for e in entries if last(e) is not None]
    return copy.deepcopy(min(known, key=lambda e: cursor_key(last(e)))) if known else {}
