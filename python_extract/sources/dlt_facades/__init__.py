"""dlt's Python sources as thin facades over sparkload's source plugins: `rest_api_source` /
`rest_api_resources`, `sql_database` / `sql_table`, `filesystem` with `read_csv` / `read_jsonl` /
`read_parquet`. Each adapts dlt's arguments to its plugin's config (checked against the plugin's schema)
and builds the plugin's resources; nothing here reads an API, a database or a file itself.

They are imported under dlt's module paths: `from python_extract.sources.rest_api import rest_api_source`
(dlt: `from dlt.sources.rest_api import rest_api_source`), and likewise `.sql_database`, `.filesystem`.
An argument sparkload does not support is refused by name (`ConfigError`), never ignored.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable

from ...errors import ConfigError


def refuse(who: str, given: Dict[str, Any], defaults: Dict[str, Any], why: str = "not supported by sparkload") -> None:
    """A ConfigError naming the first argument of `given` that is not at its default."""
    for name, value in given.items():
        if name in defaults and value is not defaults[name] and value != defaults[name]:
            raise ConfigError(f"{who}: {name}={value!r} is {why}; remove it (docs/sources.md#dlts-python-sources)")


def checked(plugin_name: str, config: Dict[str, Any], who: str) -> Dict[str, Any]:
    """`config` checked against the plugin's JSON Schema; its problems as one ConfigError line."""
    import jsonschema
    from jsonschema.exceptions import best_match

    from ..registry import _problems, get_plugin

    validator = jsonschema.Draft202012Validator(get_plugin(plugin_name).config_schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path)):
        problems += _problems(best_match([error]), config, config, "config")
    if problems:
        raise ConfigError(f"{who}: " + "; ".join(problems))
    return config


def apply_steps(resource: Any, steps: Iterable[Dict[str, Any]], who: str) -> Any:
    """dlt's rest_api `processing_steps`: filter / map / yield_map, in order."""
    adders = {"filter": resource.add_filter, "map": resource.add_map, "yield_map": resource.add_yield_map}
    for step in steps or ():
        unknown = sorted(set(step) - set(adders))
        if unknown or len(step) != 1:
            raise ConfigError(f"{who}: processing step {sorted(step)} must have one key of {', '.join(adders)}")
        (kind, fn), = step.items()
        adders[kind](fn)
    return resource
