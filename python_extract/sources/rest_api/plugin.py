"""Entry point of the `rest_api` source plugin."""
from ..registry import SourcePlugin
from .schema import CONFIG_SCHEMA
from .source import RestApiSource

EXAMPLE = """\
    client:
      base_url: https://api.example.com/v1/      # edit: the API's base URL
      # auth: {type: bearer, token: "${API_TOKEN}"}   # secrets come from the environment
      paginator: {type: json_link, next_url_path: links.next}
    resource_defaults:
      primary_key: id
      write_disposition: merge
    resources:
      - name: items
        endpoint:
          path: items
          data_selector: data
          incremental:
            cursor_path: updated_at
            initial_value: "2024-01-01T00:00:00Z"
            start_param: {in: query, name: since}
"""

plugin = SourcePlugin(
    name="rest_api",
    description="Declarative REST API: auth, paginators, incremental cursors or date windows, parent/child endpoints",
    config_schema=CONFIG_SCHEMA,
    example=EXAMPLE,
    build=lambda config, name: RestApiSource(config, name).source(),
)
