"""The one settings resolver: where every sparkload setting and secret comes from.

Used by the lakehouse settings (`lakehouse/config.py`, and through them the CLI and the dbt adapter)
and by the `config.value` / `secrets.value` arguments of sources and resources (`extract/config.py`).
Providers, first hit wins:

  1. explicit values: keyword arguments, CLI options, a dbt profile's keys (the caller passes them);
  2. the environment (names given by the caller: `SPARKLOAD_HOME`, `SOURCES__GITHUB__API_KEY`, ...);
  3. files under `.dlt/` in the working directory, or under `SPARKLOAD_CONFIG_DIR` when set, in this
     order: `secrets.toml`, `config.toml`, `secrets.yaml`, `config.yaml` (dotted paths: `sources.github.api_key`,
     `lakehouse.home`);
  4. the setting's default (the caller's).

    >>> Settings({"SOURCES__API_KEY": "k"}).lookup(["SOURCES__GITHUB__API_KEY", "SOURCES__API_KEY"], []).value
    'k'

Imports only the standard library (and yaml for a YAML file): the dbt adapter loads it on every run.
Errors: `ConfigError` when a `.dlt/` file cannot be read or parsed (names the file).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import ConfigError

CONFIG_DIR_ENV = "SPARKLOAD_CONFIG_DIR"
FILES = ("secrets.toml", "config.toml", "secrets.yaml", "config.yaml")


@dataclass(frozen=True)
class Found:
    """A resolved value and where it came from (an environment variable, or `file:dotted.path`)."""
    value: Any
    where: str


class Settings:
    """One view of the providers: `environ` (default `os.environ`) and the `.dlt/` folder it names.
    Files are read once per instance."""

    def __init__(self, environ: Optional[Mapping[str, str]] = None, config_dir: Optional[Path] = None):
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.config_dir = Path(config_dir or self.environ.get(CONFIG_DIR_ENV) or Path.cwd() / ".dlt")
        self._documents: Optional[List[Tuple[Path, Optional[Dict[str, Any]]]]] = None

    def env(self, name: str) -> Optional[str]:
        return self.environ.get(name)

    def documents(self) -> List[Tuple[Path, Optional[Dict[str, Any]]]]:
        """Each of FILES in precedence order with its content (None: the file does not exist)."""
        if self._documents is None:
            self._documents = [(self.config_dir / name, _read(self.config_dir / name)) for name in FILES]
        return self._documents

    def lookup(self, env_names: Sequence[str], paths: Sequence[Sequence[str]]) -> Optional[Found]:
        """The first of `env_names` set in the environment, else the first of `paths` found in a file."""
        return next(iter(self._hits(env_names, paths, [])), None)

    def looked_up(self, env_names: Sequence[str], paths: Sequence[Sequence[str]]) -> List[str]:
        """Every place `lookup` reads, in its order (for a message naming them)."""
        looked: List[str] = []
        list(self._hits(env_names, paths, looked))
        return looked

    def _hits(self, env_names: Sequence[str], paths: Sequence[Sequence[str]], looked: List[str]):
        for name in env_names:
            looked.append(name)
            if name in self.environ:
                yield Found(self.environ[name], name)
        for file, doc in self.documents():
            for path in paths:
                looked.append(f"{file}:{'.'.join(path)}")
                node: Any = doc
                for part in path:
                    node = node.get(part) if isinstance(node, dict) else None
                if node is not None:
                    yield Found(node, f"{file}:{'.'.join(path)}")

    def section(self, name: str) -> Dict[str, Found]:
        """The keys of the top-level table `name` across the files, the first file holding a key winning."""
        merged: Dict[str, Found] = {}
        for file, doc in reversed(self.documents()):
            table = (doc or {}).get(name)
            if table is None:
                continue
            if not isinstance(table, dict):
                raise ConfigError(f"{file}: `{name}` is a {type(table).__name__}; expected a table of settings")
            merged.update({key: Found(value, f"{file}:{name}.{key}") for key, value in table.items()})
        return merged


def _read(path: Path) -> Optional[Dict[str, Any]]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read ({e.strerror or e})") from e
    kind = path.suffix[1:].upper()
    if path.suffix == ".toml":
        import tomllib

        parse, invalid = tomllib.loads, tomllib.TOMLDecodeError
    else:
        import yaml

        parse, invalid = yaml.safe_load, yaml.YAMLError
    try:
        doc = parse(text)
    except invalid as e:
        raise ConfigError(f"{path}: not valid {kind}: {' '.join(str(e).split())}") from e
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: holds a {type(doc).__name__}; expected a mapping of sections")
    return doc
