"""The judged side: the same API read by sparkload's REST source (its `incremental` block with date
windows) through the real extractor, with the state carried from sync to sync as the pipeline carries it:
what a sync commits is the state of its last sealed load package (a failed sync keeps the packages it
sealed before the failure, and only those). No Spark: the packages are read back from disk."""
from __future__ import annotations

import copy
import uuid
from pathlib import Path
from typing import Any, Dict, Optional

import pandas  # noqa: F401 - imported before time is frozen: its import hangs under freezegun
import pyarrow.parquet as pq

import python_extract.pipeline  # noqa: F401 - imported before time is frozen (its import-time type table)
from python_extract.errors import PipelineStepFailed
from python_extract.extract.extractor import Extractor
from python_extract.hooks import Hooks
from python_extract.normalize import Schema
from python_extract.packages import PackageStorage
from python_extract.sources.rest_api.source import RestApiSource
from python_extract.state import decode_value, new_state

STREAM = "events"


def read(home: Path, base_url: str, incremental: Dict[str, Any], state: Optional[Dict[str, Any]],
         paginated: bool = False) -> Dict[str, Any]:
    """One sync: {"records": ids of the rows landed, "state": the resource's state committed, "failed"}."""
    paginator = {"type": "cursor", "cursor_path": "next_page", "cursor_param": "page"} if paginated else "single_page"
    config = {"client": {"base_url": base_url, "paginator": paginator},
              "resources": [{"name": STREAM, "primary_key": "id",
                             "endpoint": {"path": "events", "data_selector": "data" if paginated else None,
                                          "incremental": incremental}}]}
    resource = RestApiSource(config, name="api").resource(STREAM)
    pipeline_state = new_state("parity")
    if state is not None:
        pipeline_state["sources"] = {"api": {"resources": {STREAM: copy.deepcopy(state)}}}
    storage = PackageStorage(home / uuid.uuid4().hex)
    extractor = Extractor(storage, "parity", Schema("parity"), pipeline_state, Hooks(), default_source="api")
    try:
        extractor.extract([resource])
        failed = False
    except PipelineStepFailed:
        failed = True
    ids = []
    committed = state
    for package in extractor.sealed:
        folder = package.table_dir(STREAM)
        if folder.exists():
            ids += [row["id"] for part in sorted(folder.glob("*.parquet")) for row in pq.read_table(part).to_pylist()]
        if package.state is not None:
            committed = decode_value(package.state)["sources"]["api"]["resources"][STREAM]
    return {"records": ids, "state": copy.deepcopy(committed), "failed": failed}


def airbyte_state(state: Optional[Dict[str, Any]], cursor_field: str) -> Optional[Dict[str, Any]]:
    """The resource's window checkpoint in the shape of the CDK's stream state: {cursor_field: value}."""
    dlt_cursor = ((state or {}).get("incremental") or {}).get(cursor_field)
    if dlt_cursor is not None:  # a cursor without windows (dlt's)
        return {cursor_field: dlt_cursor["last_value"]}
    saved = ((state or {}).get("windows") or {}).get("window")
    if not saved:
        return None
    if "cursor_value" in saved:
        return {cursor_field: saved["cursor_value"]}
    return {cursor_field: str(saved.get("last_end"))}
