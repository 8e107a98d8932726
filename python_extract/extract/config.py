"""Config and secrets shared by sources and resources, as dlt's: arguments whose default is
`config.value` or `secrets.value` are filled in when the caller does not pass them.

Lookup of argument `api_key` of source `github` (first hit wins):
  1. environment: `SOURCES__GITHUB__API_KEY`, `SOURCES__API_KEY`, `API_KEY`
  2. files, secrets before config: `.dlt/secrets.toml`, `.dlt/config.toml`, `.dlt/secrets.yaml`,
     `.dlt/config.yaml` under the working directory, or under `SPARKLOAD_CONFIG_DIR` when set;
     keys `[sources.github] api_key`, `[sources] api_key`, top-level `api_key`.
Raises `ConfigFieldMissing` naming every key looked up.
"""
from __future__ import annotations

import functools
import inspect
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from ..errors import ConfigFieldMissing


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
FILES = ("secrets.toml", "config.toml", "secrets.yaml", "config.yaml")


def _config_dir() -> Path:
    return Path(os.environ.get("SPARKLOAD_CONFIG_DIR") or Path.cwd() / ".dlt")


def _read(path: Path) -> Dict[str, Any]:
    if path.suffix == ".toml":
        import tomllib

        return tomllib.loads(path.read_text())
    import yaml

    return yaml.safe_load(path.read_text()) or {}


def _paths(section: str, name: str) -> List[List[str]]:
    return [["sources", section, name], ["sources", name], [name]]


def resolve(name: str, section: str) -> Any:
    """The value of `name` for source/resource `section`; raises ConfigFieldMissing."""
    looked: List[str] = []
    for path in _paths(section, name):
        key = "__".join(p.upper() for p in path)
        looked.append(key)
        if key in os.environ:
            return os.environ[key]
    folder = _config_dir()
    for file in FILES:
        doc = _read(folder / file) if (folder / file).exists() else None
        for path in _paths(section, name):
            looked.append(f"{folder / file}:{'.'.join(path)}")
            node: Optional[Any] = doc
            for part in path:
                node = node.get(part) if isinstance(node, dict) else None
            if node is not None:
                return node
    raise ConfigFieldMissing(name, looked)


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
