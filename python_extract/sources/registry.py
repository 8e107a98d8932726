"""Source plugins: discovery through the entry-point group `sparkload.sources`, and config checking.

A plugin is a `SourcePlugin`: a name, a one-line description, the JSON Schema of its config, and a
`build(config, name)` that returns a `Source` (or resources) ready for `pipeline.run`. A third-party
package adds a source by declaring, in its pyproject.toml:

    [project.entry-points."sparkload.sources"]
    my_api = "my_package.plugin:plugin"

Config values may reference the environment: a whole value `${NAME}` is replaced by `$NAME`, and
`${NAME}` inside a string is substituted. A config field marked `"secret": true` in the schema must be
such a reference (secrets are never inlined in YAML). All of it is checked before any request is sent;
errors name the YAML path (`source.config.resources[0].endpoint.paginator.type`).

Errors: `SourceConfigError` (bad config: unknown key, wrong type, missing or inlined secret),
`UnknownSource` (no plugin of that name; lists the installed ones).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable, Dict, List, Optional

from ..errors import ConfigError

GROUP = "sparkload.sources"
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class SourceConfigError(ConfigError):
    def __init__(self, problems: List[str]):
        self.problems = problems
        super().__init__("invalid source config:\n  " + "\n  ".join(problems))


class UnknownSource(ConfigError):
    pass


@dataclass(frozen=True)
class SourcePlugin:
    name: str
    description: str
    config_schema: Dict[str, Any]
    build: Callable[[Dict[str, Any], str], Any]
    example: str = ""  # a commented YAML `config:` body that `sparkload init` starts a pipeline file from


def discover() -> Dict[str, SourcePlugin]:
    """Installed source plugins by name."""
    found: Dict[str, SourcePlugin] = {}
    for ep in entry_points(group=GROUP):
        plugin = ep.load()
        found[plugin.name] = plugin
    return dict(sorted(found.items()))


def get_plugin(name: str) -> SourcePlugin:
    plugins = discover()
    if name not in plugins:
        raise UnknownSource(f"no source plugin named {name!r}; installed: {', '.join(plugins) or 'none'}")
    return plugins[name]


def build_source(spec: Dict[str, Any], prefix: str = "source") -> Any:
    """The source a pipeline YAML's `source: {type: <plugin>, name: ..., config: {...}}` describes,
    its config checked (and secrets resolved) before anything runs."""
    if not isinstance(spec, dict) or "type" not in spec:
        raise SourceConfigError([f"{prefix}: expected a mapping with `type` (a source plugin) and `config`"])
    unknown = sorted(set(spec) - {"type", "name", "config"})
    if unknown:
        raise SourceConfigError([f"{prefix}: unknown key(s) {', '.join(unknown)}; expected type, name, config"])
    try:
        plugin = get_plugin(spec["type"])
    except UnknownSource as e:
        raise SourceConfigError([f"{prefix}.type: {e}"]) from None
    config = resolve_config(plugin, spec.get("config") or {}, prefix=f"{prefix}.config")
    return plugin.build(config, spec.get("name") or plugin.name)


def _path(prefix: str, parts: Any) -> str:
    out = prefix
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _secret_paths(schema: Dict[str, Any], value: Any, parts: tuple = ()) -> List[tuple]:
    """Paths in `value` whose schema says `secret: true`."""
    if not isinstance(schema, dict):
        return []
    if schema.get("secret"):
        return [parts]
    found: List[tuple] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            prop = schema.get("properties", {}).get(key) or schema.get("additionalProperties")
            found += _secret_paths(prop, sub, parts + (key,)) if isinstance(prop, dict) else []
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, sub in enumerate(value):
            found += _secret_paths(schema["items"], sub, parts + (i,))
    for combinator in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(combinator, []):
            found += _secret_paths(option.get("then", option), value, parts)
    return sorted(set(found), key=str)


def _resolve(value: Any, parts: tuple, env: Dict[str, str], problems: List[str], prefix: str) -> Any:
    if isinstance(value, dict):
        return {k: _resolve(v, parts + (k,), env, problems, prefix) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, parts + (i,), env, problems, prefix) for i, v in enumerate(value)]
    if isinstance(value, str) and "${" in value:
        missing = [n for n in _REF.findall(value) if n not in env]
        if missing:
            problems.append(f"{_path(prefix, parts)}: environment variable {', '.join(missing)} is not set")
            return value
        whole = _REF.fullmatch(value)
        return env[whole.group(1)] if whole else _REF.sub(lambda m: env[m.group(1)], value)
    return value


def _get(value: Any, parts: tuple) -> Any:
    for p in parts:
        value = value[p]
    return value


def _deepest(error: Any) -> Any:
    """Of an error and the errors of its anyOf/allOf branches, the one deepest in the config (the most
    specific: `paginator.limit: 'ten' is not of type 'integer'` rather than `paginator: not valid`)."""
    best, stack = error, list(error.context or [])
    while stack:
        e = stack.pop()
        stack.extend(e.context or [])
        rank = (len(e.absolute_path), e.validator not in ("type", "anyOf", "oneOf", "allOf", "if"))
        if rank > (len(best.absolute_path), best.validator not in ("type", "anyOf", "oneOf", "allOf", "if")):
            best = e
    return best


def resolve_config(plugin: SourcePlugin, raw: Dict[str, Any], prefix: str = "source.config",
                   env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """The plugin's config with environment references resolved, checked against its schema."""
    import jsonschema

    env = dict(os.environ) if env is None else env
    problems: List[str] = []
    for parts in _secret_paths(plugin.config_schema, raw):
        secret = _get(raw, parts)
        if not (isinstance(secret, str) and _REF.search(secret)):
            problems.append(f"{_path(prefix, parts)}: is a secret; reference an environment variable (${{NAME}}) instead of writing it in the file")
    resolved = _resolve(raw, (), env, problems, prefix)
    validator = jsonschema.Draft202012Validator(plugin.config_schema)
    for error in sorted(validator.iter_errors(resolved), key=lambda e: list(e.absolute_path)):
        error = _deepest(error)
        problems.append(f"{_path(prefix, error.absolute_path)}: {error.message}")
    if problems:
        raise SourceConfigError(problems)
    return resolved
