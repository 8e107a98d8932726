"""Entry point of the `airbyte` source plugin, and its config schema."""
from typing import Any, Dict, List, Literal, Union

from pydantic import ConfigDict, Field

from ..config import ConfigModel, json_schema
from ..registry import SourcePlugin
from .source import AirbyteSource



class Stream(ConfigModel):
    name: str
    sync_mode: Literal["incremental", "full_refresh"] = None
    cursor_field: List[str] = None


class AirbyteConfig(ConfigModel):
    """A connector from `package` (PyPI) or `executable` (on PATH): exactly one of them."""
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["package"]}, {"required": ["executable"]}]})

    package: str = None
    """PyPI package, e.g. airbyte-source-faker"""
    version: str = None
    executable: str = None
    """a connector command already on PATH"""
    venvs_dir: str = None
    """where connector environments go (default $SPARKLOAD_HOME/connectors)"""
    config: Dict[str, Any] = None
    """the connector's own config; use ${ENV} for its secrets"""
    check: bool = None
    checkpoint_records: int = Field(None, ge=1)
    """seal a load at the first STATE after this many records (default 10000)"""
    streams: List[Union[str, Stream]] = None


CONFIG_SCHEMA = json_schema(AirbyteConfig)

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
    needs_home=True,  # its connector environments default to <home>/connectors
    build=lambda config, name, home=None: AirbyteSource(config, name, home).source(),
)
