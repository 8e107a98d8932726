"""Entry point of the `sql_database` source plugin, and its config schema."""
from typing import Annotated, Any, Dict, List, Literal

from pydantic import Field, WithJsonSchema

from ..config import ConfigModel, Secret, TableHints, json_schema
from ..registry import SourcePlugin
from .source import SqlDatabaseSource



# a value the cursor column is compared with: a string, number or date (YAML reads 2024-01-01 as a date)
CursorValue = Annotated[Any, WithJsonSchema({"not": {"type": ["object", "array"]}})]


class Incremental(ConfigModel):
    """A cursor column pushed into the query's WHERE."""
    cursor_path: str
    initial_value: CursorValue = None
    end_value: CursorValue = None
    range_start: Literal["open", "closed"] = None
    range_end: Literal["open", "closed"] = None
    lag: float = Field(None, ge=0)


class TableOptions(TableHints):
    incremental: Incremental = None
    chunk_size: int = Field(None, ge=1)


class SqlDatabaseConfig(ConfigModel):
    credentials: Secret
    """SQLAlchemy URL, e.g. ${PG_URL}"""
    schema_: str = Field(None, alias="schema")
    tables: List[str] = None
    """default: every table of the schema"""
    chunk_size: int = Field(None, ge=1)
    table_options: Dict[str, TableOptions] = None


CONFIG_SCHEMA = json_schema(SqlDatabaseConfig)

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
