"""JSON Schema of the REST API source's config (the `source.config` block of a pipeline YAML).

Its shape follows dlt's rest_api: `client` (base_url, headers, auth, paginator, retry), optional
`resource_defaults` merged into every resource, and `resources`, each an `endpoint` (path, method,
params, json, data_selector, paginator, response_actions, incremental, parent) plus table hints.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Dict

from .auth import AUTHS
from .paginators import PAGINATORS

_STR_MAP = {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}}
_KEYS = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}

_TYPES = {"int": "integer", "str": "string", "bool": "boolean", "float": "number", "List[str]": "array"}


def _field_schema(annotation: str) -> Dict[str, Any]:
    optional = annotation.startswith("Optional[")
    inner = annotation[len("Optional["):-1] if optional else annotation
    kind = _TYPES.get(inner)
    if kind is None:
        return {}
    return {"type": [kind, "null"] if optional else kind}


def component_schema(classes: Dict[str, type], secrets: tuple = ()) -> Dict[str, Any]:
    """One schema per component class (paginator, auth): its init fields are its YAML keys."""
    options = []
    for name, cls in sorted(classes.items()):
        props: Dict[str, Any] = {"type": {"const": name}}
        for f in fields(cls):
            if f.init:
                props[f.name] = {**_field_schema(str(f.type)), **({"secret": True} if f.name in secrets else {})}
        options.append({"type": "object", "required": ["type"], "properties": props, "additionalProperties": False,
                        "if": {"properties": {"type": {"const": name}}}})
    by_type = [{"if": o.pop("if"), "then": o} for o in options]
    return {"type": "object", "required": ["type"], "properties": {"type": {"enum": sorted(classes)}}, "allOf": by_type}


PAGINATOR = {"anyOf": [{"type": "string", "enum": sorted(PAGINATORS)}, component_schema(PAGINATORS)]}
AUTH = component_schema(AUTHS, secrets=("api_key", "token", "password", "client_secret"))

INJECT = {
    "type": "object", "required": ["in", "name"], "additionalProperties": False,
    "properties": {"in": {"enum": ["query", "header", "json"]}, "name": {"type": "string"}},
}

INCREMENTAL = {
    "type": "object", "required": ["cursor_path"], "additionalProperties": False,
    "properties": {
        "cursor_path": {"type": "string"},
        "type": {"enum": ["datetime", "date", "number", "string"]},
        "initial_value": {}, "end_value": {},
        "range_start": {"enum": ["open", "closed"]}, "range_end": {"enum": ["open", "closed"]},
        "lookback": {"type": "number", "minimum": 0},
        "row_order": {"enum": ["asc", "desc"]},
        "on_cursor_value_missing": {"enum": ["raise", "include", "exclude"]},
        "step": {"type": "string"}, "cursor_granularity": {"type": "string"},
        "start_param": INJECT, "end_param": INJECT,
        "format": {"type": "string"},
        "per_parent": {"type": "object", "additionalProperties": False,
                       "properties": {"max_parents": {"type": "integer", "minimum": 1}}},
    },
}

ENDPOINT = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "path": {"type": "string"}, "method": {"enum": ["GET", "POST"]},
        "params": _STR_MAP, "headers": _STR_MAP, "json": {"type": "object"},
        "data_selector": {"type": "string"}, "paginator": PAGINATOR,
        "response_actions": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["action"],
            "properties": {"status_code": {"type": "integer"}, "content": {"type": "string"},
                           "action": {"enum": ["ignore", "fail"]}}}},
        "incremental": INCREMENTAL,
        "parent": {"type": "string"},
        "include_from_parent": {"type": "array", "items": {"type": "string"}},
    },
}

RESOURCE_PROPS: Dict[str, Any] = {
    "name": {"type": "string"},
    "endpoint": {"anyOf": [{"type": "string"}, ENDPOINT]},
    "table_name": {"type": "string"},
    "primary_key": _KEYS, "merge_key": _KEYS,
    "write_disposition": {"anyOf": [{"enum": ["append", "replace", "merge"]}, {"type": "object"}]},
    "columns": {"type": "object"},
    "max_table_nesting": {"type": "integer", "minimum": 0},
    "selected": {"type": "boolean"},
}

CONFIG_SCHEMA: Dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["client", "resources"], "additionalProperties": False,
    "properties": {
        "client": {
            "type": "object", "required": ["base_url"], "additionalProperties": False,
            "properties": {
                "base_url": {"type": "string"}, "headers": _STR_MAP, "auth": AUTH, "paginator": PAGINATOR,
                "retry": {"type": "object", "additionalProperties": False, "properties": {
                    "max_attempts": {"type": "integer", "minimum": 1}, "backoff_factor": {"type": "number"},
                    "max_retry_after": {"type": "number"}}},
                "response_actions": ENDPOINT["properties"]["response_actions"],
                "timeout": {"type": "number"},
            },
        },
        "resource_defaults": {"type": "object", "additionalProperties": False, "properties": RESOURCE_PROPS},
        "resources": {"type": "array", "minItems": 1, "items": {
            "anyOf": [{"type": "string"},
                      {"type": "object", "required": ["name"], "additionalProperties": False, "properties": RESOURCE_PROPS}]}},
    },
}
