"""Which files a glob names, with their modification times: local paths (with `**`), and any fsspec URL
(`s3://…`, `gs://…`, `memory://…`) when fsspec is installed.
"""
from __future__ import annotations

import datetime as dt
import glob
import os
from dataclasses import dataclass
from typing import IO, List

from ... import timeutil


@dataclass(frozen=True, order=True)
class FileItem:
    """A file, ordered by (modified, url): the order the files source loads them in."""
    modified: float
    url: str
    size: int = 0


def _is_remote(pattern: str) -> bool:
    return "://" in pattern and not pattern.startswith("file://")


def _mtime(info: dict) -> float:
    for key in ("mtime", "LastModified", "last_modified", "updated", "created"):
        value = info.get(key)
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, dt.datetime):
            return value.timestamp()
        if isinstance(value, str):
            parsed = timeutil.parse_timestamp(value)
            if parsed is None:
                raise ValueError(f"file modified time {key}={value!r} is not an ISO 8601 timestamp")
            return parsed.timestamp()
    return 0.0


def list_files(pattern: str) -> List[FileItem]:
    """The files matching `pattern`, oldest first (ties broken by path)."""
    if _is_remote(pattern):
        try:
            import fsspec
        except ImportError as e:
            raise ValueError(f"{pattern}: remote URLs need fsspec (pip install fsspec and its protocol package)") from e
        fs, path = fsspec.core.url_to_fs(pattern)
        protocol = pattern.split("://", 1)[0]
        found = fs.glob(path, detail=True)
        items = [FileItem(_mtime(info), f"{protocol}://{name.lstrip('/')}" if protocol != "memory" else f"memory://{name}", int(info.get("size") or 0))
                 for name, info in found.items() if info.get("type") != "directory"]
    else:
        local = pattern[len("file://"):] if pattern.startswith("file://") else pattern
        items = []
        for name in glob.glob(os.path.expanduser(local), recursive=True):
            if os.path.isfile(name):
                st = os.stat(name)
                items.append(FileItem(st.st_mtime, os.path.abspath(name), st.st_size))
    return sorted(items)


def open_file(item: FileItem) -> IO[bytes]:
    if _is_remote(item.url):
        import fsspec

        return fsspec.open(item.url, "rb").open()
    return open(item.url, "rb")
