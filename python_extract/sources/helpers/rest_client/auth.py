"""dlt's `dlt.sources.helpers.rest_client.auth`: the REST API source's auths (rest_api/auth.py) under dlt's
names, as `requests` auth objects (what dlt's `RESTClient` takes)."""
from __future__ import annotations

from typing import Any

from requests.auth import AuthBase

from ...rest_api import auth as source
from ...rest_api.paginators import Request


class _Applied(AuthBase):
    """Applies one of the source's auths to a prepared request: its headers, and its query parameters."""

    def __call__(self, prepared: Any) -> Any:
        sent = Request(prepared.url, prepared.method)
        self.apply(sent, None)  # type: ignore[attr-defined]
        prepared.headers.update(sent.headers)
        if sent.params:
            prepared.prepare_url(prepared.url, sent.params)
        return prepared


class BearerTokenAuth(_Applied, source.Bearer):
    def __init__(self, token: str) -> None:
        source.Bearer.__init__(self, token=token)


class APIKeyAuth(_Applied, source.ApiKey):
    def __init__(self, name: str = "Authorization", api_key: str = "", location: str = "header") -> None:
        source.ApiKey.__init__(self, api_key=api_key, name=name, location=location)  # type: ignore[arg-type]


class HttpBasicAuth(_Applied, source.HttpBasic):
    def __init__(self, username: str, password: str) -> None:
        source.HttpBasic.__init__(self, username=username, password=password)
