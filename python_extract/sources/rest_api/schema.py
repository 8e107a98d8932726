"""The REST API source's config (the `source.config` block of a pipeline YAML) as pydantic models, and
the JSON Schema generated from them.

Its shape follows dlt's rest_api: `client` (base_url, headers, auth, paginator, retry), optional
`resource_defaults` merged into every resource, and `resources`, each an `endpoint` (path, method,
params, json, data_selector, paginator, response_actions, incremental, parent) plus table hints.
Paginators and auths are their dataclasses' init fields (paginators.py, auth.py).
"""
from __future__ import annotations

from typing import Any, Dict, List, Literal, Union

from pydantic import Field

from ..config import ConfigModel, TableHints, component_models, json_schema
from .auth import AUTHS
from .paginators import PAGINATORS

StrMap = Dict[str, Union[str, float, bool]]
Paginator = Union[Literal[tuple(sorted(PAGINATORS))], component_models(PAGINATORS)]
Auth = component_models(AUTHS, secrets=("api_key", "token", "password", "client_secret"))


class Inject(ConfigModel):
    """Where a cursor bound goes in the request."""
    in_: Literal["query", "header", "json"] = Field(alias="in")
    name: str
    """query parameter, header, or dotted path in the JSON body"""


class PerParent(ConfigModel):
    max_parents: int = Field(None, ge=1)
    """past this many parents, one global cursor (default 1000)"""


class Clamping(ConfigModel):
    """Date windows on whole periods (the CDK's `clamping`; `weekday` is its `target_details.weekday`)."""
    target: Literal["DAY", "WEEK", "MONTH"]
    weekday: Literal["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"] = None
    """with WEEK: the day a week starts on"""


class Incremental(ConfigModel):
    """A dlt cursor, or with `step` + `cursor_granularity` Airbyte date windows."""
    cursor_path: str
    type: Literal["datetime", "date", "number", "string"] = None
    initial_value: Any = None
    end_value: Any = None
    range_start: Literal["open", "closed"] = None
    range_end: Literal["open", "closed"] = None
    lookback: float = Field(None, ge=0)
    """seconds"""
    row_order: Literal["asc", "desc"] = None
    on_cursor_value_missing: Literal["raise", "include", "exclude"] = None
    step: str = None
    cursor_granularity: str = None
    lookback_window: str = None
    """with step: an ISO 8601 duration (Airbyte's), instead of `lookback` seconds"""
    clamping: Clamping = None
    """with step: windows start and end on whole days, weeks or months (the CDK's)"""
    cursor_formats: List[str] = None
    """with step: strftime patterns of the records' cursor values, tried in order (Airbyte's
    cursor_datetime_formats; default `format`)"""
    start_param: Inject = None
    end_param: Inject = None
    format: str = None
    """iso (default), epoch, date, or a strftime pattern"""
    per_parent: PerParent = None
    global_substream_cursor: bool = None
    """with `endpoint.parent`: one cursor for every parent, asked from less the last sync's duration (the CDK's)"""


class ResponseAction(ConfigModel):
    status_code: int = None
    content: str = None
    action: Literal["ignore", "fail"]


class Endpoint(ConfigModel):
    path: str = None
    method: Literal["GET", "POST"] = None
    params: StrMap = None
    headers: StrMap = None
    json_body: Dict[str, Any] = Field(None, alias="json")
    data_selector: str = None
    paginator: Paginator = None
    response_actions: List[ResponseAction] = None
    incremental: Incremental = None
    parent: str = None
    include_from_parent: List[str] = None
    incremental_dependency: bool = None
    """with `parent`: read only the parents changed since the last sync, by the parent's incremental block"""


class RetryConfig(ConfigModel):
    max_attempts: int = Field(None, ge=1)
    backoff_factor: float = None
    max_retry_after: float = None


class Client(ConfigModel):
    base_url: str
    headers: StrMap = None
    auth: Auth = None
    paginator: Paginator = None
    retry: RetryConfig = None
    response_actions: List[ResponseAction] = None
    timeout: float = None


class ResourceDefaults(TableHints):
    name: str = None
    endpoint: Union[str, Endpoint] = None
    columns: Dict[str, Any] = None
    selected: bool = None


class Resource(ResourceDefaults):
    name: str


class RestApiConfig(ConfigModel):
    client: Client
    resource_defaults: ResourceDefaults = None
    resources: List[Union[str, Resource]] = Field(min_length=1)


CONFIG_SCHEMA: Dict[str, Any] = json_schema(RestApiConfig)
