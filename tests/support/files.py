"""A table's files as table maintenance counts them: (data files, delete files) of its current version,
Iceberg's position-delete files or Delta's deletion vectors (replayed from the table's `_delta_log`:
Delta has no metadata table of its files)."""
from __future__ import annotations

from typing import Tuple

from python_extract.lakehouse.delta_log import live_files
from python_extract.lakehouse.session import session_format


def table_files(spark, table: str) -> Tuple[int, int]:
    if session_format(spark) == "delta":
        return _delta_files(spark, table)
    found = {0: 0, 1: 0}
    for r in spark.sql(f"select content, count(*) as n from {table}.files group by content").collect():
        found[r["content"]] = r["n"]
    return found[0], found[1]


def _delta_files(spark, table: str) -> Tuple[int, int]:
    files = live_files(spark, table)
    return len(files), sum(1 for f in files if f.deletion_vector)
