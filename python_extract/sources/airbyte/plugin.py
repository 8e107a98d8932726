"""Entry point of the `airbyte` source plugin, and its config schema."""
from ..registry import SourcePlugin
from .source import AirbyteSource

CONFIG_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "additionalProperties": False,
    "oneOf": [{"required": ["package"]}, {"required": ["executable"]}],
    "properties": {
        "package": {"type": "string", "description": "PyPI package, e.g. airbyte-source-faker"},
        "version": {"type": "string"},
        "executable": {"type": "string", "description": "a connector command already on PATH"},
        "venvs_dir": {"type": "string", "description": "where connector environments go (default $SPARKLOAD_HOME/connectors)"},
        "config": {"type": "object", "description": "the connector's own config; use ${ENV} for its secrets"},
        "check": {"type": "boolean"},
        "checkpoint_records": {"type": "integer", "minimum": 1,
                               "description": "seal a load at the first STATE after this many records (default 10000)"},
        "streams": {"type": "array", "items": {"anyOf": [
            {"type": "string"},
            {"type": "object", "required": ["name"], "additionalProperties": False, "properties": {
                "name": {"type": "string"}, "sync_mode": {"enum": ["incremental", "full_refresh"]},
                "cursor_field": {"type": "array", "items": {"type": "string"}}}}]}},
    },
}

EXAMPLE = """\
    package: airbyte-source-faker     # a PyPI connector, installed into its own environment
    config: {count: 1000, seed: 1}    # the connector's config; secrets as "${ENV_VAR}"
    streams: [users, products, purchases]
"""

plugin = SourcePlugin(
    name="airbyte",
    description="An Airbyte connector (PyPI package or executable) over the Airbyte protocol, state committed with the data",
    config_schema=CONFIG_SCHEMA,
    example=EXAMPLE,
    build=lambda config, name: AirbyteSource(config, name).source(),
)
