"""Entry point of the `rest_api` source plugin."""
from ..registry import SourcePlugin
from .schema import CONFIG_SCHEMA
from .source import RestApiSource

plugin = SourcePlugin(
    name="rest_api",
    description="Declarative REST API: auth, paginators, incremental cursors or date windows, parent/child endpoints",
    config_schema=CONFIG_SCHEMA,
    build=lambda config, name: RestApiSource(config, name).source(),
)
