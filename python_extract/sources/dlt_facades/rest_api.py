"""dlt's `rest_api_source(config)` / `rest_api_resources(config)` over the `rest_api` plugin.

dlt's dict is the plugin's config in most keys (client, resource_defaults, resources, endpoint,
paginator, data_selector, response_actions, table hints); this module rewrites the rest:
- a param `{"type": "incremental", "cursor_path": ..., "initial_value": ...}`, a param written
  `"{incremental.start_value}"` / `"{incremental.end_value}"` beside `endpoint.incremental`, and
  `incremental.start_param` / `end_param` (a query parameter's name) become the plugin's
  `incremental` block with `start_param` / `end_param: {in: query, name}`;
- a param `{"type": "resolve", "resource": "issues", "field": "number"}` and a path placeholder
  `{resources.issues.number}` become `endpoint.parent: issues` with `{parent.number}` where dlt puts the
  value (the path where it names the param, else the query);
- `include_from_parent` moves into the endpoint; `processing_steps` become `add_filter` / `add_map` /
  `add_yield_map` of the built resource; `auth` without `type` is a bearer token, as dlt's.
Refused by name: a `session`, an auth object, `data=` bodies, `convert`, `last_value_func`, an endpoint's own
`auth`, callables in `response_actions`, and a `DltResource` in `resources`.
"""
from __future__ import annotations

import copy
import re
from typing import Any, Dict, List, Optional

from ...errors import ConfigError
from . import apply_steps, checked

_RESOURCES = re.compile(r"\{resources\.([A-Za-z0-9_\-]+)\.([^}]+)\}")
_INCREMENTAL_KEYS = {"cursor_path": "cursor_path", "initial_value": "initial_value", "end_value": "end_value",
                     "range_start": "range_start", "range_end": "range_end", "lag": "lookback", "row_order": "row_order",
                     "on_cursor_value_missing": "on_cursor_value_missing"}
_REFUSED = {"convert": "a conversion callable", "last_value_func": "a custom last_value_func"}


def _incremental(spec: Dict[str, Any], where: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key, value in spec.items():
        if key in ("type", "start_param", "end_param"):
            continue
        if key in _REFUSED:
            raise ConfigError(f"rest_api_source: {where}.{key} ({_REFUSED[key]}) is not supported by sparkload; remove it")
        if key not in _INCREMENTAL_KEYS:
            raise ConfigError(f"rest_api_source: {where}.{key} is not a key of dlt's incremental; expected one of "
                              f"{', '.join(sorted(_INCREMENTAL_KEYS))}, start_param, end_param")
        out[_INCREMENTAL_KEYS[key]] = value
    for key in ("start_param", "end_param"):
        if spec.get(key):
            out[key] = {"in": "query", "name": spec[key]}
    return out


def _endpoint(endpoint: Any, where: str) -> Dict[str, Any]:
    """dlt's endpoint as the plugin's."""
    ep = {"path": endpoint} if isinstance(endpoint, str) else copy.deepcopy(endpoint)
    for key in ("data", "auth"):
        if key in ep:
            raise ConfigError(f"rest_api_source: {where}.{key} is not supported by sparkload (see docs/sources.md#dlts-python-sources); remove it")
    for i, action in enumerate(ep.get("response_actions") or []):
        if not isinstance(action, dict) or callable(action.get("action")) or isinstance(action.get("action"), list):
            raise ConfigError(f"rest_api_source: {where}.response_actions[{i}]: only dicts with action 'ignore' or 'fail' are supported by sparkload")
    inc = _incremental(ep.pop("incremental"), f"{where}.incremental") if ep.get("incremental") else None
    parent: Optional[str] = None
    path = ep.get("path") or ""

    def parent_of(name: str) -> None:
        nonlocal parent
        if parent not in (None, name):
            raise ConfigError(f"rest_api_source: {where} resolves from {parent} and {name}; sparkload takes one parent")
        parent = name

    def from_resources(match: "re.Match[str]") -> str:
        parent_of(match.group(1))
        return "{parent.%s}" % match.group(2)

    path = _RESOURCES.sub(from_resources, path)
    params: Dict[str, Any] = {}
    for key, value in (ep.get("params") or {}).items():
        if isinstance(value, dict) and value.get("type") == "incremental":
            inc = {**_incremental(value, f"{where}.params.{key}"), "start_param": {"in": "query", "name": key}}
        elif isinstance(value, dict) and value.get("type") == "resolve":
            parent_of(value["resource"])
            placeholder = "{parent.%s}" % value["field"]
            if "{%s}" % key in path:
                path = path.replace("{%s}" % key, placeholder)
            else:
                params[key] = placeholder
        elif value in ("{incremental.start_value}", "{incremental.end_value}"):
            if inc is None:
                raise ConfigError(f"rest_api_source: {where}.params.{key} uses {value} without an endpoint incremental")
            inc["start_param" if value.endswith("start_value}") else "end_param"] = {"in": "query", "name": key}
        else:
            params[key] = value
    if "path" in ep:
        ep["path"] = path
    ep["params"] = params
    if not params:
        ep.pop("params")
    if inc is not None:
        ep["incremental"] = inc
    if parent is not None:
        ep["parent"] = parent
    return ep


def _resource(entry: Any, where: str, defaults: bool = False) -> Any:
    if isinstance(entry, str):
        return entry
    if not isinstance(entry, dict):
        raise ConfigError(f"rest_api_source: {where} is a {type(entry).__name__}; sparkload takes dlt's dict config only "
                          "(a resource object in `resources` is not supported)")
    out = {k: v for k, v in entry.items() if k not in ("include_from_parent", "processing_steps")}
    if "endpoint" in entry:
        out["endpoint"] = _endpoint(entry["endpoint"], f"{where}.endpoint")
    elif not defaults:
        out["endpoint"] = {"path": entry.get("name")}
    if entry.get("include_from_parent"):
        out.setdefault("endpoint", {})["include_from_parent"] = list(entry["include_from_parent"])
    return out


def _client(client: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(client)
    if "session" in out:
        raise ConfigError("rest_api_source: client.session is not supported by sparkload (its client keeps its own); remove it")
    auth = out.get("auth")
    if auth is not None and not isinstance(auth, dict):
        raise ConfigError(f"rest_api_source: client.auth is a {type(auth).__name__}; sparkload takes dlt's auth dict "
                          "({'type': 'bearer' | 'api_key' | 'http_basic' | 'oauth2_client_credentials', ...})")
    if isinstance(auth, dict) and "type" not in auth:
        out["auth"] = {"type": "bearer", **auth}
    return out


def to_plugin_config(config: Dict[str, Any]) -> Dict[str, Any]:
    """dlt's `RESTAPIConfig` as the `rest_api` plugin's config, checked against its schema."""
    if not isinstance(config, dict) or "client" not in config or "resources" not in config:
        raise ConfigError("rest_api_source: config must be dlt's dict with `client` and `resources`")
    unknown = sorted(set(config) - {"client", "resources", "resource_defaults"})
    if unknown:
        raise ConfigError(f"rest_api_source: unknown config key {unknown[0]}; expected client, resources, resource_defaults")
    out: Dict[str, Any] = {"client": _client(config["client"]),
                           "resources": [_resource(r, f"resources[{i}]") for i, r in enumerate(config["resources"])]}
    if config.get("resource_defaults"):
        out["resource_defaults"] = _resource(config["resource_defaults"], "resource_defaults", defaults=True)
    return checked("rest_api", out, "rest_api_source")


def _steps(config: Dict[str, Any]) -> Dict[str, List[Dict[str, Any]]]:
    default = (config.get("resource_defaults") or {}).get("processing_steps") or []
    return {r["name"]: r.get("processing_steps") or default for r in config["resources"] if isinstance(r, dict)}


def rest_api_resources(config: Dict[str, Any]) -> List[Any]:
    """dlt's: the resources of a REST API config (every one, the unselected too, as dlt returns them)."""
    from ..rest_api.source import RestApiSource

    built = RestApiSource(to_plugin_config(config), "rest_api")
    steps = _steps(config)
    return [apply_steps(built.resource(name), steps.get(name), f"rest_api_source: resource {name}") for name in built.resources]


def rest_api_source(config: Dict[str, Any], name: Optional[str] = None, section: Optional[str] = None,
                    max_table_nesting: Optional[int] = None, root_key: Optional[bool] = None, schema: Any = None,
                    schema_contract: Any = None, parallelized: bool = False) -> Any:
    """dlt's: a source (named `rest_api` unless `name`) of the config's selected resources."""
    from ...extract import Source
    from ..rest_api.source import RestApiSource
    from . import refuse

    refuse("rest_api_source", {"section": section, "root_key": root_key, "schema": schema, "parallelized": parallelized},
           {"section": None, "root_key": None, "schema": None, "parallelized": False})
    built = RestApiSource(to_plugin_config(config), name or "rest_api")
    steps = _steps(config)
    selected = [n for n, cfg in built.resources.items() if cfg.get("selected", True)]
    return Source(name or "rest_api", [apply_steps(built.resource(n), steps.get(n), f"rest_api_source: resource {n}")
                                       for n in selected], max_table_nesting=max_table_nesting, schema_contract=schema_contract)
