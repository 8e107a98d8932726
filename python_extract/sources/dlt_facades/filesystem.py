"""dlt's `filesystem(...)` resource and its `read_csv` / `read_jsonl` / `read_parquet` transformers over the
`files` plugin's listing (listing.py: a local glob or an fsspec URL) and readers (readers.py).

`filesystem(bucket_url, file_glob)` yields pages of `files_per_page` file items as dlt's (`file_url`,
`file_name`, `relative_path`, `mime_type`, `modification_date`, `size_in_bytes`; `file_content` with
`extract_content=True`), each a dict with `open()` and `read_bytes()`; `filesystem(...) | read_csv()` reads
each file with the plugin's reader. An `incremental` on `modification_date` (the argument, or
`apply_hints(incremental=...)`) keeps the readers to new and changed files, as in dlt.
Differences from dlt: `read_csv` reads with the plugin's reader, so values stay text (declare `columns`
types; dlt's pandas infers them) and only `sep` / `delimiter` of pandas' arguments is taken; refused by
name: `credentials` (fsspec reads its own: environment, profiles), `kwargs`, `client_kwargs`,
`fetch_file_info`, `read_parquet(use_pyarrow=True)` and other pandas arguments.
"""
from __future__ import annotations

import datetime as dt
import mimetypes
import os
from typing import Any, Dict, Iterator, List, Optional

from ...errors import ConfigError
from ...extract.resource import Resource, transformer
from ..files.listing import FileItem, list_files, open_file
from ..files.readers import read_csv as _csv, read_jsonl as _jsonl, read_parquet as _parquet
from . import refuse


class FileItemDict(dict):
    """dlt's file item: its fields as a dict (what lands when `filesystem()` runs alone), and the file."""

    def __init__(self, fields: Dict[str, Any], item: FileItem):
        super().__init__(fields)
        self.item = item

    def open(self, mode: str = "rb", **_: Any) -> Any:
        if mode != "rb":
            raise ConfigError(f"file {self['file_url']}: open(mode={mode!r}); sparkload opens files as bytes ('rb')")
        return open_file(self.item)

    def read_bytes(self) -> bytes:
        with self.open() as raw:
            return raw.read()


def _local_root(bucket_url: str) -> Optional[str]:
    if bucket_url.startswith("file://"):
        return bucket_url[len("file://"):]
    return None if "://" in bucket_url else os.path.abspath(os.path.expanduser(bucket_url))


def _fields(item: FileItem, bucket_url: str) -> Dict[str, Any]:
    root = _local_root(bucket_url)
    if root is not None:
        relative = os.path.relpath(item.url, root).replace(os.sep, "/")
        url = "file://" + item.url
    else:
        relative = item.url[len(bucket_url.rstrip("/")) + 1:]
        url = item.url
    mime, _ = mimetypes.guess_type(relative)
    return {"file_name": relative.rsplit("/", 1)[-1], "relative_path": relative, "file_url": url,
            "mime_type": mime or "application/octet-stream",
            "modification_date": dt.datetime.fromtimestamp(item.modified, dt.timezone.utc),
            "size_in_bytes": item.size}


def filesystem(bucket_url: str, credentials: Any = None, file_glob: str = "*", files_per_page: int = 100,
               extract_content: bool = False, kwargs: Any = None, client_kwargs: Any = None, incremental: Any = None,
               fetch_file_info: bool = False) -> Resource:
    """dlt's: a resource (named `filesystem`, primary key `file_url`) listing the files under `bucket_url`
    that `file_glob` matches, oldest first."""
    refuse("filesystem", {"credentials": credentials, "kwargs": kwargs, "client_kwargs": client_kwargs,
                          "fetch_file_info": fetch_file_info},
           {"credentials": None, "kwargs": None, "client_kwargs": None, "fetch_file_info": False})
    root = _local_root(bucket_url)
    pattern = os.path.join(root, file_glob) if root is not None else bucket_url.rstrip("/") + "/" + file_glob

    def files() -> Iterator[List[FileItemDict]]:
        page: List[FileItemDict] = []
        for item in list_files(pattern):
            entry = FileItemDict(_fields(item, bucket_url), item)
            if extract_content:
                entry["file_content"] = entry.read_bytes()
            page.append(entry)
            if len(page) >= files_per_page:
                yield page
                page = []
        if page:
            yield page

    return Resource(files, "filesystem", primary_key="file_url", incremental=incremental)


def _each(items: Any) -> List[FileItemDict]:
    return items if isinstance(items, list) else [items]


def _read(items: Any, reader: Any, chunksize: int, options: Dict[str, Any]) -> Iterator[List[Dict[str, Any]]]:
    for entry in _each(items):
        with entry.open() as raw:
            yield from reader(raw, entry.item.url, chunksize, options)


@transformer
def read_csv(items: Any, chunksize: int = 10000, **pandas_kwargs: Any) -> Iterator[List[Dict[str, Any]]]:
    """dlt's: the records of each CSV file (a header row); values stay text."""
    pandas_kwargs = dict(pandas_kwargs.pop("pandas_kwargs", None) or {}, **pandas_kwargs)  # as the resource binding passes them
    delimiter = pandas_kwargs.pop("sep", pandas_kwargs.pop("delimiter", ","))
    if pandas_kwargs:
        raise ConfigError(f"read_csv: {sorted(pandas_kwargs)[0]}= is not supported by sparkload (its CSV reader takes "
                          "only sep / delimiter); remove it")
    yield from _read(items, _csv, chunksize, {"delimiter": delimiter})


@transformer
def read_jsonl(items: Any, chunksize: int = 1000) -> Iterator[List[Dict[str, Any]]]:
    """dlt's: the records of each JSON lines file."""
    yield from _read(items, _jsonl, chunksize, {})


@transformer
def read_parquet(items: Any, chunksize: int = 1000, use_pyarrow: bool = False) -> Iterator[List[Dict[str, Any]]]:
    """dlt's: the records of each Parquet file, as dicts."""
    if use_pyarrow:
        raise ConfigError("read_parquet: use_pyarrow=True is not supported by sparkload; remove it (records are read as dicts)")
    yield from _read(items, _parquet, chunksize, {})
