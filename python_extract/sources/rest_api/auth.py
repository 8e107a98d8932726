"""Authentication of the REST API source. Each class's fields are its YAML keys; `type` picks it.

| type                 | fields                                                          |
|----------------------|-----------------------------------------------------------------|
| `api_key`            | `api_key`, `name` (default `X-API-Key`), `location` header|query |
| `bearer`             | `token`                                                         |
| `http_basic`         | `username`, `password`                                          |
| `oauth2_client_credentials` | `access_token_url`, `client_id`, `client_secret`, `scopes`, `default_token_expiration` |

Secret values are resolved from the environment before they get here (see `registry.py`); nothing in
this module reads or logs them.
"""
from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, List, Literal, Optional, Type

from .paginators import Request


@dataclass
class Auth:
    type: ClassVar[str] = ""

    def apply(self, request: Request, session: Any) -> None:
        """Add credentials to `request`; `session` is the HTTP session (OAuth2 fetches tokens with it)."""


@dataclass
class ApiKey(Auth):
    type: ClassVar[str] = "api_key"
    api_key: str = ""
    name: str = "X-API-Key"
    location: Literal["header", "query"] = "header"

    def __post_init__(self) -> None:
        if self.location not in ("header", "query"):
            raise ValueError(f"api_key auth: location={self.location!r}; expected header or query")

    def apply(self, request: Request, session: Any) -> None:
        target = request.headers if self.location == "header" else request.params
        target[self.name] = self.api_key


@dataclass
class Bearer(Auth):
    type: ClassVar[str] = "bearer"
    token: str = ""

    def apply(self, request: Request, session: Any) -> None:
        request.headers["Authorization"] = f"Bearer {self.token}"


@dataclass
class HttpBasic(Auth):
    type: ClassVar[str] = "http_basic"
    username: str = ""
    password: str = ""

    def apply(self, request: Request, session: Any) -> None:
        raw = f"{self.username}:{self.password}".encode()
        request.headers["Authorization"] = "Basic " + base64.b64encode(raw).decode("ascii")


@dataclass
class OAuth2ClientCredentials(Auth):
    type: ClassVar[str] = "oauth2_client_credentials"
    access_token_url: str = ""
    client_id: str = ""
    client_secret: str = ""
    scopes: List[str] = field(default_factory=list)
    default_token_expiration: int = 3600
    _token: Optional[str] = field(default=None, init=False, repr=False)
    _expires_at: float = field(default=0.0, init=False, repr=False)

    def apply(self, request: Request, session: Any) -> None:
        if self._token is None or time.monotonic() >= self._expires_at - 30:
            self._refresh(session)
        request.headers["Authorization"] = f"Bearer {self._token}"

    def _refresh(self, session: Any) -> None:
        data: Dict[str, str] = {"grant_type": "client_credentials"}
        if self.scopes:
            data["scope"] = " ".join(self.scopes)
        response = session.post(self.access_token_url, data=data, auth=(self.client_id, self.client_secret), timeout=30)
        if response.status_code != 200:
            raise PermissionError(
                f"oauth2 token request to {self.access_token_url} failed with HTTP {response.status_code}"
            )
        body = response.json()
        self._token = body["access_token"]
        self._expires_at = time.monotonic() + float(body.get("expires_in", self.default_token_expiration))


AUTHS: Dict[str, Type[Auth]] = {
    cls.type: cls for cls in (ApiKey, Bearer, HttpBasic, OAuth2ClientCredentials)
}


def build_auth(config: Optional[Dict[str, Any]]) -> Optional[Auth]:
    if not config:
        return None
    options = dict(config)
    kind = options.pop("type", None)
    if kind not in AUTHS:
        raise ValueError(f"auth type {kind!r} is unknown; expected one of {', '.join(sorted(AUTHS))}")
    return AUTHS[kind](**options)
