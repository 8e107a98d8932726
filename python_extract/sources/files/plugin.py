"""Entry point of the `files` source plugin, and its config schema."""
from ..registry import SourcePlugin
from .readers import FORMATS
from .source import files_source

_KEYS = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}

CONFIG_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["resources"], "additionalProperties": False,
    "properties": {"resources": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["name", "glob"], "additionalProperties": False,
        "properties": {
            "name": {"type": "string"}, "glob": {"type": "string"},
            "format": {"enum": ["auto", *FORMATS]}, "chunk_size": {"type": "integer", "minimum": 1},
            "delimiter": {"type": "string"}, "lookback_seconds": {"type": "number", "minimum": 0},
            "incremental": {"type": "boolean"}, "file_column": {"type": "string"},
            "table_name": {"type": "string"}, "primary_key": _KEYS, "merge_key": _KEYS,
            "write_disposition": {"anyOf": [{"enum": ["append", "replace", "merge"]}, {"type": "object"}]},
            "columns": {"type": "object"}, "max_table_nesting": {"type": "integer", "minimum": 0},
        }}}},
}

EXAMPLE = """\
    resources:
      - name: orders
        glob: data/orders/*.csv          # edit: local glob or an fsspec URL
        format: auto                     # csv | jsonl | json | parquet | auto (by extension)
        primary_key: id
        write_disposition: merge
"""

plugin = SourcePlugin(
    name="files",
    description="Files from a glob (local or fsspec URL): csv, jsonl, json, parquet; each file loaded once",
    config_schema=CONFIG_SCHEMA,
    example=EXAMPLE,
    build=lambda config, name: files_source(config, name),
)
