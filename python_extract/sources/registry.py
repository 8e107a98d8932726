"""Source plugins: discovery through the entry-point group `sparkload.sources`, and config checking.

A plugin is a `SourcePlugin`: a name, a one-line description, the JSON Schema of its config (the
built-in plugins generate it from pydantic models, see config.py), and a `build(config, name)` that returns a `Source` (or resources) ready for `pipeline.run`. A third-party
package adds a source by declaring, in its pyproject.toml:

    [project.entry-points."sparkload.sources"]
    my_api = "my_package.plugin:plugin"

Config values may reference the environment: `${NAME}` is replaced by `$NAME` (a `string.Template`
that reads only the braced form, so `$.data` and `$$` stay as written). A config field marked
`"secret": true` in the schema (`config.Secret`) must be such a reference (secrets are never inlined
in YAML). All of it is checked before any request is sent, with jsonschema (its `best_match` per
error); each problem is one line naming the YAML path, and the value as written in the file
(`source.config.resources[0].endpoint.paginator.limit: 'ten' is not of type 'integer'`).

Errors: `SourceConfigError` (bad config: unknown key, wrong type, missing or inlined secret; names the plugin),
`UnknownSource` (no plugin of that name; lists the installed ones).
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from ..errors import ConfigError, did_you_mean
from ..settings import Settings

GROUP = "sparkload.sources"
# this package's own plugins, found from its code: a checkout on PYTHONPATH, or an editable install made
# before a plugin was added, has them too (pyproject.toml declares the same entry points for installers)
BUILT_IN = {
    "rest_api": "python_extract.sources.rest_api.plugin",
    "files": "python_extract.sources.files.plugin",
    "sql_database": "python_extract.sources.sql_database.plugin",
    "airbyte": "python_extract.sources.airbyte.plugin",
    "airbyte_manifest": "python_extract.sources.airbyte.manifest_plugin",
}


class SourceConfigError(ConfigError):
    def __init__(self, problems: List[str], plugin: Optional[str] = None):
        self.problems, self.plugin = problems, plugin
        super().__init__(f"invalid {plugin + ' ' if plugin else ''}source config: " + "; ".join(problems))


class UnknownSource(ConfigError):
    pass


@dataclass(frozen=True)
class SourcePlugin:
    name: str
    description: str
    config_schema: Dict[str, Any]
    build: Callable[..., Any]  # build(config, name); with needs_home, build(config, name, home)
    example: str = ""  # a commented YAML `config:` body that `sparkload init` starts a pipeline file from
    # the plugin keeps files under the lakehouse home (Airbyte's connector environments): the caller passes the
    # home in, so no plugin imports the lakehouse (tests/test_imports.py checks)
    needs_home: bool = False


def discover() -> Dict[str, SourcePlugin]:
    """Installed source plugins by name."""
    found: Dict[str, SourcePlugin] = {name: import_module(module).plugin for name, module in BUILT_IN.items()}
    for ep in entry_points(group=GROUP):
        if ep.name in BUILT_IN:
            continue
        plugin = ep.load()
        found[plugin.name] = plugin
    return dict(sorted(found.items()))


def get_plugin(name: str) -> SourcePlugin:
    plugins = discover()
    if not isinstance(name, str) or name not in plugins:
        raise UnknownSource(f"no source plugin named {str(name)[:80]!r}{did_you_mean(name, plugins)}; "
                            f"installed: {', '.join(plugins) or 'none'}")
    return plugins[name]


def build_source(spec: Dict[str, Any], prefix: str = "source", home: Optional[Path] = None) -> Any:
    """The source a pipeline YAML's `source: {type: <plugin>, name: ..., config: {...}}` describes,
    its config checked (and secrets resolved) before anything runs; `home` (the lakehouse home) goes to a
    plugin that `needs_home`."""
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
    if plugin.needs_home:
        return plugin.build(config, spec.get("name") or plugin.name, home)
    return plugin.build(config, spec.get("name") or plugin.name)


def _path(prefix: str, parts: Any) -> str:
    out = prefix
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _secret_paths(schema: Dict[str, Any], value: Any, parts: tuple = (), root: Optional[Dict[str, Any]] = None) -> List[tuple]:
    """Paths in `value` whose schema says `secret: true`."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return []
    if schema.get("$ref", "").startswith("#/$defs/"):  # pydantic's references to its nested models
        schema = {**root["$defs"][schema["$ref"][len("#/$defs/"):]], **{k: v for k, v in schema.items() if k != "$ref"}}
    if schema.get("secret"):
        return [parts]
    found: List[tuple] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            prop = schema.get("properties", {}).get(key) or schema.get("additionalProperties")
            found += _secret_paths(prop, sub, parts + (key,), root) if isinstance(prop, dict) else []
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, sub in enumerate(value):
            found += _secret_paths(schema["items"], sub, parts + (i,), root)
    for combinator in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(combinator, []):
            found += _secret_paths(option.get("then", option), value, parts, root)
    return sorted(set(found), key=str)


class EnvReference(string.Template):
    """`${NAME}` only: `$NAME`, `$$` and a lone `$` (JSONPath's `$.data`) stay as written."""
    pattern = r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}|(?P<escaped>(?!))|(?P<named>(?!))|(?P<invalid>(?!)))"


def _resolve(value: Any, parts: tuple, env: Dict[str, str], problems: List[str], prefix: str) -> Any:
    if isinstance(value, dict):
        return {k: _resolve(v, parts + (k,), env, problems, prefix) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, parts + (i,), env, problems, prefix) for i, v in enumerate(value)]
    if isinstance(value, str):
        template = EnvReference(value)
        missing = [n for n in template.get_identifiers() if n not in env]
        if missing:
            problems.append(f"{_path(prefix, parts)}: environment variable {', '.join(missing)} is not set")
            return value
        return template.substitute(env)
    return value


def _get(value: Any, parts: Any) -> Any:
    for p in parts:
        value = value[p]
    return value


def _problems(error: Any, raw: Any, resolved: Any, prefix: str) -> List[str]:
    """One line per problem naming the key and the value as written in the file (a `${NAME}` stays a
    reference, so no resolved secret is printed)."""
    parts = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        given = ", ".join(f"{key!r} (given {_get(raw, parts + (key,))!r})" for key in error.instance if key not in known)
        return [f"{_path(prefix, parts)}: unknown key {given}; expected one of {', '.join(known)}"]
    message = error.message
    if error.validator == "not" and error.validator_value == {"type": ["object", "array"]}:  # a cursor value
        message = f"{str(error.instance)[:80]!r} is a {type(error.instance).__name__}; expected one value (a string, number or date)"
    written, used = _get(raw, parts), _get(resolved, parts)
    if written != used:
        message = message.replace(repr(used), repr(written))
    return [f"{_path(prefix, parts)}: {message}"]


def resolve_config(plugin: SourcePlugin, raw: Dict[str, Any], prefix: str = "source.config",
                   env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """The plugin's config with environment references resolved, checked against its schema."""
    import jsonschema
    from jsonschema.exceptions import best_match

    env = dict(Settings().environ) if env is None else env
    problems: List[str] = []
    for parts in _secret_paths(plugin.config_schema, raw):
        secret = _get(raw, parts)
        if not (isinstance(secret, str) and EnvReference(secret).get_identifiers()):
            problems.append(f"{_path(prefix, parts)}: is a secret; reference an environment variable (${{NAME}}) instead of writing it in the file")
    resolved = _resolve(raw, (), env, problems, prefix)
    validator = jsonschema.Draft202012Validator(plugin.config_schema)
    for error in sorted(validator.iter_errors(resolved), key=lambda e: list(e.absolute_path)):
        problems += _problems(best_match([error]), raw, resolved, prefix)
    if problems:
        raise SourceConfigError(problems, plugin.name)
    return resolved
