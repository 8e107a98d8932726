"""Config and secrets shared by sources and resources, as dlt's: arguments whose default is
`config.value` or `secrets.value` are filled in when the caller does not pass them.

Lookup of argument `api_key` of source `github`, through the one settings resolver (`settings.py`),
first hit wins:
  1. environment: `SOURCES__GITHUB__API_KEY`, `SOURCES__API_KEY`, `API_KEY`
  2. files, secrets before config: `.dlt/secrets.toml`, `.dlt/config.toml`, `.dlt/secrets.yaml`,
     `.dlt/config.yaml` under the working directory, or under `SPARKLOAD_CONFIG_DIR` when set;
     keys `[sources.github] api_key`, `[sources] api_key`, top-level `api_key`.
Raises `ConfigFieldMissing` naming every key looked up.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, List

from ..errors import ConfigFieldMissing
from ..settings import Settings


class _Marker:
    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self) -> str:
        return f"{self.kind}.value"


class _Namespace:
    def __init__(self, kind: str):
        self.value = _Marker(kind)


config = _Namespace("config")
secrets = _Namespace("secrets")


def _paths(section: str, name: str) -> List[List[str]]:
    return [["sources", section, name], ["sources", name], [name]]


def resolve(name: str, section: str) -> Any:
    """The value of `name` for source/resource `section`; raises ConfigFieldMissing."""
    settings = Settings()
    paths = _paths(section, name)
    env_names = ["__".join(p.upper() for p in path) for path in paths]
    found = settings.lookup(env_names, paths)
    if found is None:
        raise ConfigFieldMissing(name, settings.looked_up(env_names, paths))
    return found.value


def with_config(fn: Callable[..., Any], section: str) -> Callable[..., Any]:
    """`fn` with its `config.value` / `secrets.value` arguments filled in from the providers."""
    signature = inspect.signature(fn)
    wanted = [p.name for p in signature.parameters.values() if isinstance(p.default, _Marker)]
    if not wanted:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs)
        for name in wanted:
            if name not in bound.arguments:
                kwargs[name] = resolve(name, section)
        return fn(*args, **kwargs)

    return call
