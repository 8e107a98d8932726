"""A Delta table whose creation was killed: its folder holds files but no committed version and the
catalog has no entry, so every later `CREATE TABLE` of that name fails with Delta's
DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION. Nobody ever saw such a table (a table is visible once its
first version is committed and the catalog names it): its folder is removed and the statement run again.

Another process creating the same table at this moment has a folder that looks the same; it is left
alone while it may still be writing: a folder holding data files is removed only once its newest file is
`GRACE_SECONDS` old (a killed CTAS), one holding only an empty `_delta_log` at once (a killed CREATE TABLE
writes no data; a live one commits within milliseconds). A folder that gets a committed version meanwhile
is a live table: kept, and the error stands. Local warehouses only (object storage: the error stands).
"""
from __future__ import annotations

import logging
import re
import shutil
import time
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlparse

log = logging.getLogger("sparkload.lakehouse")

GRACE_SECONDS = 60.0
NON_EMPTY = re.compile(r"DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION\].*?location \('([^']+)'\) is not empty", re.S)
COMMIT = re.compile(r"\d{20}\.(json|checkpoint.*\.parquet)")


def clear_abandoned_create(error: str, grace: float = GRACE_SECONDS, sleep: Callable[[float], None] = time.sleep) -> bool:
    """True when `error` is Delta's refusal to create a table over a killed creation's folder and that
    folder is gone now (removed here, or by another process): the statement may run again."""
    found = NON_EMPTY.search(error)
    url = urlparse(found.group(1)) if found else None
    if url is None or url.scheme not in ("", "file"):
        return False
    folder = Path(unquote(url.path))
    while True:
        if not folder.exists():
            return True
        files = [p for p in folder.rglob("*") if p.is_file()]
        if any(COMMIT.fullmatch(p.name) for p in files if p.parent.name == "_delta_log"):
            return False  # a committed version: a table, not an abandoned creation
        data = [p for p in files if "_delta_log" not in p.relative_to(folder).parts]
        age = time.time() - max((p.stat().st_mtime for p in data), default=0.0)
        if not data or age >= grace:
            log.warning("%s: the folder of a table whose creation never committed (a killed process's), "
                        "with %d files and no Delta version, is removed before the table is created", folder, len(files))
            shutil.rmtree(folder, ignore_errors=True)
            return not folder.exists()
        sleep(min(grace - age, 5.0) + 0.1)
