"""Entry point of the `sql_database` source plugin, and its config schema."""
from ..registry import SourcePlugin
from .source import SqlDatabaseSource

_KEYS = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
INCREMENTAL = {
    "type": "object", "required": ["cursor_path"], "additionalProperties": False,
    "properties": {"cursor_path": {"type": "string"}, "initial_value": {}, "end_value": {},
                   "range_start": {"enum": ["open", "closed"]}, "range_end": {"enum": ["open", "closed"]},
                   "lag": {"type": "number", "minimum": 0}},
}
CONFIG_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["credentials"], "additionalProperties": False,
    "properties": {
        "credentials": {"type": "string", "secret": True, "description": "SQLAlchemy URL, e.g. ${PG_URL}"},
        "schema": {"type": "string"},
        "tables": {"type": "array", "items": {"type": "string"}},
        "chunk_size": {"type": "integer", "minimum": 1},
        "table_options": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False,
            "properties": {"incremental": INCREMENTAL, "primary_key": _KEYS, "merge_key": _KEYS,
                           "write_disposition": {"anyOf": [{"enum": ["append", "replace", "merge"]}, {"type": "object"}]},
                           "table_name": {"type": "string"}, "chunk_size": {"type": "integer", "minimum": 1}}}},
    },
}

EXAMPLE = """\
    credentials: "${SOURCE_DB_URL}"     # a SQLAlchemy URL, from the environment
    # tables: [orders, customers]       # default: every table of the schema
    chunk_size: 10000
    table_options:
      orders:
        incremental: {cursor_path: updated_at, initial_value: "2024-01-01T00:00:00Z"}
"""

plugin = SourcePlugin(
    name="sql_database",
    description="SQL database tables via SQLAlchemy: reflected, incremental by a cursor column pushed into WHERE",
    config_schema=CONFIG_SCHEMA,
    example=EXAMPLE,
    build=lambda config, name: SqlDatabaseSource(config, name).source(),
)
