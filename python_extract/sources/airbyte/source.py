"""Airbyte connectors as sparkload sources: one resource per selected stream, reading the connector's
RECORD messages into staging tables (nested objects through our normalizer), with the catalog's
primary key and sync mode as resource hints (incremental + primary key: merge; full refresh: replace).

State: a STATE message is a checkpoint — the records before it and that state may land together as
one load; a load is sealed at the first STATE after `checkpoint_records` records (default 10,000; 1
seals at every STATE), so small slices do not each cost a load. The stored state (a list holding the stream's last STATE message) is passed back with `--state`
on the next run. Records after the last STATE land too, but the state stays at that STATE, so the next
run re-reads them (merge models deduplicate by primary key). A connector that crashes, exits non-zero
or emits a TRACE error fails the run with its own message; the checkpoints it had reached stay.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from ...errors import ConfigError
from ...extract import Source
from ...extract.checkpoint import CHECKPOINT
from ...extract.resource import Resource, ResourceState
from .connector import Connector, configured_catalog, resolve_executable

log = logging.getLogger("sparkload.airbyte")


def _key(paths: List[List[str]]) -> List[str]:
    return ["__".join(p) for p in paths]


class AirbyteSource:
    def __init__(self, config: Dict[str, Any], name: str = "airbyte", home: Optional[Path] = None):
        """`home`: the lakehouse home, passed in by the caller (registry.build_source); connector
        environments go to `venvs_dir`, else `<home>/connectors`."""
        self.name = name
        self.checkpoint_records = int(config.get("checkpoint_records", 10_000))
        venvs_dir = config.get("venvs_dir") or (Path(home) / "connectors" if home is not None else None)
        if venvs_dir is None and config.get("package"):
            raise ConfigError(f"airbyte source {name}: give venvs_dir, or build it through a pipeline (which passes the lakehouse home)")
        command = resolve_executable(config, Path(venvs_dir or "."))
        self.connector = Connector(command, config.get("config") or {})
        if config.get("check", True):
            self.connector.check()
        self.catalog = configured_catalog(self.connector.discover(), config.get("streams"))

    def resource(self, configured: Dict[str, Any]) -> Resource:
        stream = configured["stream"]
        incremental = configured["sync_mode"] == "incremental"
        one = {"streams": [configured]}

        def read(saved=ResourceState()) -> Iterator[Any]:
            state = saved.get("airbyte_state") if incremental else None
            records = since_checkpoint = states = 0
            for message in self.connector.read(one, state):
                kind = message.get("type")
                if kind == "RECORD":
                    records += 1
                    since_checkpoint += 1
                    yield message["record"]["data"]
                elif kind == "STATE":
                    states += 1
                    log.debug("airbyte stream %s STATE %s", stream["name"], json.dumps(message["state"]))
                    saved["airbyte_state"] = [message["state"]]
                    if since_checkpoint >= self.checkpoint_records:
                        since_checkpoint = 0
                        yield CHECKPOINT
            log.info("airbyte stream %s: %d records, %d state messages", stream["name"], records, states)

        primary_key = _key(configured.get("primary_key") or [])
        disposition = {"disposition": "merge", "strategy": "upsert"} if incremental and primary_key else (
            "append" if incremental else "replace")
        return Resource(read, stream["name"], primary_key=primary_key or None, write_disposition=disposition)

    def source(self) -> Source:
        return Source(self.name, [self.resource(c) for c in self.catalog["streams"]])
