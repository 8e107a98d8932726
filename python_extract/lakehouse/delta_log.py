"""A local Delta table's live data files, read from its `_delta_log` (Delta has no metadata table of its
files, as Iceberg's `<table>.files`): each commit's `remove` actions, then its `add` actions, replayed in
order. Used by table maintenance's figures (benchmarks) and the tests that count a table's files.

Only local tables (`file:` locations); the JSON commits must all be there, which they are for the 30 days
of `delta.logRetentionDuration` (a checkpoint does not remove them)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from .locations import local_folder, table_location


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the table's location
    size: int  # bytes
    deletion_vector: bool  # some of its rows are deleted by a deletion vector
    modification_time: int  # ms since the epoch, when the file was written


def log_dir(spark, table: str) -> Path:
    """The `_delta_log` folder of local Delta table `table` (ValueError for a table on object storage)."""
    location = table_location(spark, table)
    folder = local_folder(location)
    if folder is None:
        raise ValueError(f"{table} is not a local table ({location}): its Delta log is not read here")
    return folder / "_delta_log"


def live_files(spark, table: str) -> List[DataFile]:
    """The data files of the table's current version, each with its size and whether a deletion vector
    applies to it."""
    live: dict = {}
    for commit in sorted(log_dir(spark, table).glob("[0-9]*.json"), key=lambda p: int(p.stem)):
        actions = [json.loads(line) for line in commit.read_text().splitlines() if line.strip()]
        # a file whose deletion vector changes is removed and added again in one commit
        for action in actions:
            if "remove" in action:
                live.pop(action["remove"]["path"], None)
        for action in actions:
            if "add" in action:
                add = action["add"]
                live[add["path"]] = DataFile(add["path"], int(add["size"]), bool(add.get("deletionVector")),
                                            int(add.get("modificationTime", 0)))
    return list(live.values())


def version(spark, table: str) -> Optional[int]:
    """The table's current version, or None for a table without a commit."""
    rows = spark.sql(f"describe history {table} limit 1").collect()
    return int(rows[0]["version"]) if rows else None
