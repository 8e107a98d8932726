"""Entry point of the `airbyte_manifest` source plugin (a low-code manifest run by airbyte-cdk), and its
config schema."""
from typing import Any, Dict, List, Literal, Union

from pydantic import Field

from ..config import ConfigModel, WriteDisposition, json_schema
from ..registry import SourcePlugin
from .manifest import ManifestSource


class Stream(ConfigModel):
    name: str
    sync_mode: Literal["incremental", "full_refresh"] = None
    write_disposition: WriteDisposition = None
    """default: merge (delete-insert) for incremental with a primary key, append without, replace for full refresh"""


class ManifestConfig(ConfigModel):
    """A connector's declarative manifest and the connector's own config."""

    manifest: str
    """path of the connector's manifest.yaml (relative: to the working directory)"""
    config: Dict[str, Any] = None
    """the connector's config, checked against the manifest's spec; use ${ENV} for its secrets"""
    streams: List[Union[str, Stream]] = None
    """the streams to read (default: all)"""
    checkpoint_records: int = Field(None, ge=1)
    """seal a load at the first STATE after this many records (default 10000)"""
    check: bool = None
    """run the manifest's `check` before reading (default true; a failure reads nothing)"""


CONFIG_SCHEMA = json_schema(ManifestConfig)

EXAMPLE = """\
    manifest: source_dixa/manifest.yaml   # a connector's low-code manifest
    config: {api_token: "${DIXA_API_TOKEN}", start_date: "2024-01-01T00:00:00Z", batch_size: 31}
    streams: [conversation_export]
"""


def _build(config: Dict[str, Any], name: str) -> Any:
    streams = [s if isinstance(s, str) else {k: v for k, v in s.items() if v is not None} for s in config.get("streams") or []]
    return ManifestSource(config["manifest"], config.get("config"), streams or None, name,
                          int(config.get("checkpoint_records") or 10_000), config.get("check", True) is not False).source()


plugin = SourcePlugin(
    name="airbyte_manifest",
    description="An Airbyte low-code connector's manifest.yaml, run by airbyte-cdk, state committed with the data",
    config_schema=CONFIG_SCHEMA,
    example=EXAMPLE,
    build=_build,
)
