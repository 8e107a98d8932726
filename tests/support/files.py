"""A table's files as table maintenance counts them: (data files, delete files) of its current version,
Iceberg's position-delete files or Delta's deletion vectors (replayed from the table's `_delta_log`:
Delta has no metadata table of its files)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Tuple
from urllib.parse import unquote, urlparse

from python_extract.lakehouse.session import session_format


def table_files(spark, table: str) -> Tuple[int, int]:
    if session_format(spark) == "delta":
        return _delta_files(spark, table)
    found = {0: 0, 1: 0}
    for r in spark.sql(f"select content, count(*) as n from {table}.files group by content").collect():
        found[r["content"]] = r["n"]
    return found[0], found[1]


def _delta_files(spark, table: str) -> Tuple[int, int]:
    location = Path(unquote(urlparse(spark.sql(f"describe detail {table}").first()["location"]).path))
    live = {}
    for commit in sorted((location / "_delta_log").glob("*.json")):
        actions = [json.loads(line) for line in commit.read_text().splitlines() if line.strip()]
        for action in actions:  # a file whose deletion vector changes is removed and added in one commit
            if "remove" in action:
                live.pop((action["remove"]["path"], json.dumps(action["remove"].get("deletionVector"))), None)
        for action in actions:
            if "add" in action:
                live[(action["add"]["path"], json.dumps(action["add"].get("deletionVector")))] = action["add"].get("deletionVector")
    return len(live), sum(1 for vector in live.values() if vector)
