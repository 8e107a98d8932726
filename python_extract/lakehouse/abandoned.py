"""A Delta table whose creation was killed: its folder holds files (data files, even a committed first
version) but the catalog has no entry, so every later `CREATE TABLE` of that name fails with Delta's
DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION (a managed table's folder must be empty). Nobody ever saw such
a table (a table is visible once the catalog names it): its folder is removed and the statement run again.

Another process creating the same table at this moment has a folder that looks the same; it is left
alone while it may still be working: a folder that holds only an empty `_delta_log` (a killed CREATE
TABLE; a live one commits within milliseconds) is removed once it is `STARTED_SECONDS` old, any other
once its newest file is `GRACE_SECONDS` old, and only while the catalog still has no such table
(`registered`, asked before each look and right before the removal).
Local warehouses only (on object storage the error stands).
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
STARTED_SECONDS = 5.0  # a creation that wrote no file but its log folder (or a commit's temporary file)
NON_EMPTY = re.compile(r"DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION\] Cannot create table \('(.+?)'\)\..*?"
                       r"location \('([^']+)'\) is not empty", re.S)


def abandoned_table(error: str):
    """(the table's name as Delta quotes it, its folder's URL) when `error` is that refusal, else None."""
    found = NON_EMPTY.search(error)
    return (found.group(1), found.group(2)) if found else None


def clear_abandoned_create(error: str, registered: Callable[[], bool], grace: float = GRACE_SECONDS,
                           sleep: Callable[[float], None] = time.sleep) -> bool:
    """True when `error` is Delta's refusal to create a table over a killed creation's folder and the
    statement may run again: the folder is gone (removed here, or by another process), or the table is in
    the catalog now (`registered()`: another process created it meanwhile)."""
    found = abandoned_table(error)
    url = urlparse(found[1]) if found else None
    if url is None or url.scheme not in ("", "file"):
        return False
    folder = Path(unquote(url.path))
    while True:
        if not folder.exists() or registered():
            return True
        paths = [folder, *folder.rglob("*")]
        files = [p for p in paths if p.is_file() and not p.name.endswith(".crc")]
        started_only = all(p.parent.name == "_delta_log" and p.name.endswith(".tmp") for p in files)
        age = time.time() - max(p.stat().st_mtime for p in paths)
        if age >= (min(grace, STARTED_SECONDS) if started_only else grace):
            if registered():
                return True
            log.warning("%s: the folder of table %s, whose creation never reached the catalog (a killed process's), "
                        "with %d files, is removed before the table is created", folder, found[0], len(files))
            shutil.rmtree(folder, ignore_errors=True)
            return not folder.exists()
        sleep(min(grace - age, 5.0) + 0.1)
