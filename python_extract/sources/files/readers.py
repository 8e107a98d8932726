"""Readers of the files source: each yields a file's records in chunks (lists of dicts), never the whole
file at once. Formats: csv, jsonl, json (an array, or one object), parquet. `format: auto` picks by
the file name's extension (`.csv`, `.jsonl`/`.ndjson`, `.json`, `.parquet`/`.pq`, optionally `.gz`).
"""
from __future__ import annotations

import csv
import gzip
import io
import json
from typing import IO, Any, Callable, Dict, Iterator, List

Chunk = List[Dict[str, Any]]
FORMATS = ("csv", "jsonl", "json", "parquet")


def detect_format(name: str) -> str:
    base = name[:-3] if name.endswith(".gz") else name
    ext = base.rsplit(".", 1)[-1].lower()
    found = {"csv": "csv", "jsonl": "jsonl", "ndjson": "jsonl", "json": "json", "parquet": "parquet", "pq": "parquet"}.get(ext)
    if found is None:
        raise ValueError(f"cannot tell the format of {name}: set format to one of {', '.join(FORMATS)}")
    return found


def _text(raw: IO[bytes], name: str) -> IO[str]:
    return io.TextIOWrapper(gzip.GzipFile(fileobj=raw) if name.endswith(".gz") else raw, encoding="utf-8", newline="")


def _chunks(rows: Iterator[Dict[str, Any]], size: int) -> Iterator[Chunk]:
    chunk: Chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def read_csv(raw: IO[bytes], name: str, chunk_size: int, options: Dict[str, Any]) -> Iterator[Chunk]:
    """CSV with a header row; values stay strings (declare column types to change that), empty → None."""
    reader = csv.DictReader(_text(raw, name), delimiter=options.get("delimiter", ","))
    rows = ({k: (v if v != "" else None) for k, v in row.items()} for row in reader)
    yield from _chunks(rows, chunk_size)


def read_jsonl(raw: IO[bytes], name: str, chunk_size: int, options: Dict[str, Any]) -> Iterator[Chunk]:
    rows = (json.loads(line) for line in _text(raw, name) if line.strip())
    yield from _chunks(rows, chunk_size)


def read_json(raw: IO[bytes], name: str, chunk_size: int, options: Dict[str, Any]) -> Iterator[Chunk]:
    """A JSON array of records, or one object (one record). Such a document is parsed whole."""
    data = json.load(_text(raw, name))
    yield from _chunks(iter(data if isinstance(data, list) else [data]), chunk_size)


def read_parquet(raw: IO[bytes], name: str, chunk_size: int, options: Dict[str, Any]) -> Iterator[Chunk]:
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(raw).iter_batches(batch_size=chunk_size):
        yield batch.to_pylist()


READERS: Dict[str, Callable[..., Iterator[Chunk]]] = {
    "csv": read_csv, "jsonl": read_jsonl, "json": read_json, "parquet": read_parquet,
}
