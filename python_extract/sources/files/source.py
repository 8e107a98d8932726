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

Dated snapshots (one full extract per file, e.g. `customers_2024-01-02.csv`): `date_column` adds to each
record the date `date_pattern` finds in the file's name (a name without one is an error naming the
file), and `load_per_file` makes each file its own load (a checkpoint after each file, which commits the
file's rows with the state that marks it loaded). A scd2 model with `boundary_column` then replays them
into history in date order (docs/beyond-dlt.md#snapshot-replay).
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any, Dict, Iterator, List

from ...contract import TABLE_HINTS
from ...errors import ConfigError
from ...extract import Source
from ...extract.checkpoint import CHECKPOINT
from ...extract.resource import Resource, ResourceState
from ...timeutil import parse_date
from .listing import FileItem, list_files, open_file
from .readers import READERS, detect_format

DATE_PATTERN = r"(\d{4}-\d{2}-\d{2}|\d{8})"


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


def date_in_name(url: str, pattern: str) -> dt.date:
    """The date the first group of `pattern` (else its whole match) finds in the file name of `url`:
    YYYY-MM-DD or YYYYMMDD. `date_in_name('s3://b/customers_2024-01-02.csv', DATE_PATTERN)` is 2024-01-02."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    found = re.search(pattern, name)
    if found is None:
        raise ValueError(f"file {url}: its name has no date matching date_pattern {pattern!r}")
    text = found.group(1) if found.re.groups else found.group(0)
    try:
        return parse_date(text)
    except ValueError:
        raise ValueError(f"file {url}: {text!r} (date_pattern {pattern!r}) is not a date YYYY-MM-DD or YYYYMMDD") from None


def file_resource(cfg: Dict[str, Any]) -> Resource:
    pattern, fmt = cfg["glob"], cfg.get("format", "auto")
    chunk_size, lookback = int(cfg.get("chunk_size", 10_000)), float(cfg.get("lookback_seconds", 0))
    options = {"delimiter": cfg.get("delimiter", ",")}
    every_run = cfg.get("incremental", True) is False
    date_pattern = cfg.get("date_pattern") or DATE_PATTERN
    if cfg.get("date_pattern") and not cfg.get("date_column"):
        raise ConfigError(f"files resource {cfg['name']}: date_pattern needs date_column, the column to hold the date")
    try:
        re.compile(date_pattern)
    except re.error as e:
        raise ConfigError(f"files resource {cfg['name']}: date_pattern {date_pattern!r} is not a regular expression: {e}") from None
    added = {"file_column": lambda item: item.url, "date_column": lambda item: date_in_name(item.url, date_pattern)}

    def read(item: FileItem) -> Iterator[List[Dict[str, Any]]]:
        reader = READERS[detect_format(item.url) if fmt == "auto" else fmt]
        columns = {cfg[key]: value(item) for key, value in added.items() if cfg.get(key)}
        with open_file(item) as raw:
            for chunk in reader(raw, item.url, chunk_size, options):
                for row in chunk if columns else ():
                    row.update(columns)
                yield chunk

    def files(state=ResourceState()):
        todo = list_files(pattern) if every_run else new_files(list_files(pattern), state, lookback)
        for item in todo:
            yield from read(item)
            if not every_run:
                remember(state, item, lookback)
            if cfg.get("load_per_file"):
                yield CHECKPOINT

    hints = {k: cfg[k] for k in TABLE_HINTS if k in cfg}
    return Resource(files, cfg["name"], **hints)


def files_source(config: Dict[str, Any], name: str = "files") -> Source:
    return Source(name, [file_resource(r) for r in config["resources"]])
