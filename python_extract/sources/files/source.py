"""The files source: resources reading the files a glob names (local paths, or fsspec URLs), in csv,
jsonl, json or parquet, in chunks of `chunk_size` records, each file loaded once.

Incremental by file: files are taken oldest first by (modified time, path). The resource state keeps
`last_modified` (the newest modified time loaded) and `recent` — the files loaded whose modified time is
within `lookback_seconds` of it (at least those sharing it) — so the state stays bounded by that window,
however many files were ever loaded. A file is loaded when its modified time is not older than the
window and it is not in `recent` with the same time: a new file loads, a modified file (new mtime)
loads again, an unchanged rerun loads nothing. A file that appears with a modified time older than the
window is not seen: widen `lookback_seconds` for sources that copy files with their original times.
The state is committed with the data of the same run, so a crash never marks a file loaded whose rows
did not land.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List

from ...contract import TABLE_HINTS
from ...extract import Source
from ...extract.resource import Resource, ResourceState
from .listing import FileItem, list_files, open_file
from .readers import READERS, detect_format



def new_files(files: List[FileItem], state: Dict[str, Any], lookback: float) -> List[FileItem]:
    """The files still to load given the resource state (see the module docstring)."""
    last = state.get("last_modified")
    recent = state.get("recent", {})
    floor = None if last is None else last - lookback
    return [f for f in files if (floor is None or f.modified >= floor) and recent.get(f.url) != f.modified]


def remember(state: Dict[str, Any], loaded: FileItem, lookback: float) -> None:
    """Record one loaded file and drop what fell out of the window."""
    last = max(state.get("last_modified") or loaded.modified, loaded.modified)
    recent = dict(state.get("recent", {}), **{loaded.url: loaded.modified})
    state["last_modified"] = last
    state["recent"] = {url: m for url, m in recent.items() if m >= last - lookback}


def file_resource(cfg: Dict[str, Any]) -> Resource:
    pattern, fmt = cfg["glob"], cfg.get("format", "auto")
    chunk_size, lookback = int(cfg.get("chunk_size", 10_000)), float(cfg.get("lookback_seconds", 0))
    options = {"delimiter": cfg.get("delimiter", ",")}
    every_run = cfg.get("incremental", True) is False

    def read(item: FileItem) -> Iterator[List[Dict[str, Any]]]:
        reader = READERS[detect_format(item.url) if fmt == "auto" else fmt]
        with open_file(item) as raw:
            for chunk in reader(raw, item.url, chunk_size, options):
                if cfg.get("file_column"):
                    for row in chunk:
                        row[cfg["file_column"]] = item.url
                yield chunk

    def files(state=ResourceState()):
        todo = list_files(pattern) if every_run else new_files(list_files(pattern), state, lookback)
        for item in todo:
            yield from read(item)
            if not every_run:
                remember(state, item, lookback)

    hints = {k: cfg[k] for k in TABLE_HINTS if k in cfg}
    return Resource(files, cfg["name"], **hints)


def files_source(config: Dict[str, Any], name: str = "files") -> Source:
    return Source(name, [file_resource(r) for r in config["resources"]])
