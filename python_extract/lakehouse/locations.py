"""Where a table's files live: its location as the catalog gives it, and that location as a local folder.

    >>> local_folder("file:/tmp/lake/warehouse/raw.db/odd%20name")
    PosixPath('/tmp/lake/warehouse/raw.db/odd name')
    >>> local_folder("s3a://bucket/raw/items") is None
    True
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional
from urllib.parse import unquote, urlparse


def table_location(spark, table: str) -> str:
    """The location of table `table` (`file:/...`, `s3a://...`; "" when the catalog gives none), read off
    `describe table extended`'s detailed section, after its column rows (a column may be named `Location`).
    On Delta this is a catalog read, where `describe detail` also counts the table's files and bytes, a Spark
    job of its own: 0.76 s a table against 0.04 s, measured on 30 small tables of two commits each."""
    detailed = False
    for row in spark.sql(f"describe table extended {table}").collect():
        detailed = detailed or row[0] == "# Detailed Table Information"
        if detailed and row[0] == "Location":
            return row[1] or ""
    return ""


def local_folder(location: str) -> Optional[Path]:
    """`location` as a local folder, or None when it is on object storage (or empty)."""
    parsed = urlparse(location)
    return Path(unquote(parsed.path)) if parsed.path and parsed.scheme in ("", "file") else None
