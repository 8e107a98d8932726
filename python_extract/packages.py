"""Load packages on disk: the only channel between the normalize and load stages.

    <pipeline dir>/packages/new/<load_id>/          being written by extract+normalize; discarded if
                                                   the process dies before it is sealed
    <pipeline dir>/packages/normalized/<load_id>/   sealed, waiting to land
        package.json                              dataset, tables (parents first), row counts, created_at
        schema.json                               the schema (tables, columns, hints) after this package
        state.json                                the pipeline state after this package (optional)
        tables/<table>/part-<n>.parquet           rows, written in bounded batches while streaming
        landing/<table>                           marker: landing of this table started
        landed/<table>                            marker: this table's rows are in the lakehouse
    <pipeline dir>/packages/loaded/<load_id>/      complete: its `_dlt_loads` row exists

Every state change is a rename: new/ -> normalized/ when sealed, normalized/ -> loaded/ after the
`_dlt_loads` row was written. A package in normalized/ when a pipeline starts is landed first (load/).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from .normalize.schema import Schema, arrow_type

NEW = "new"
NORMALIZED = "normalized"
LOADED = "loaded"
PACKAGE_FILE = "package.json"
SCHEMA_FILE = "schema.json"
STATE_FILE = "state.json"
TABLES = "tables"
LANDING = "landing"
LANDED = "landed"
BATCH_ROWS = 50_000


def new_load_id() -> str:
    """dlt-style load id: the current unix time with microseconds; sorts in load order."""
    return f"{time.time():.6f}"


@dataclass
class LoadPackage:
    root: Path

    @property
    def load_id(self) -> str:
        return self.root.name

    @property
    def manifest(self) -> Dict[str, Any]:
        return json.loads((self.root / PACKAGE_FILE).read_text())

    @property
    def schema(self) -> Schema:
        return Schema.from_dict(json.loads((self.root / SCHEMA_FILE).read_text()))

    @property
    def state(self) -> Optional[Dict[str, Any]]:
        path = self.root / STATE_FILE
        return json.loads(path.read_text()) if path.exists() else None

    @property
    def dataset(self) -> str:
        return self.manifest["dataset"]

    def table_dir(self, table: str) -> Path:
        return self.root / TABLES / table

    def is_landed(self, table: str) -> bool:
        return (self.root / LANDED / table).exists()

    def mark_landed(self, table: str) -> None:
        self._mark(LANDED, table)

    def landing_started(self, table: str) -> bool:
        return (self.root / LANDING / table).exists()

    def mark_landing(self, table: str) -> None:
        self._mark(LANDING, table)

    def _mark(self, folder: str, table: str) -> None:
        (self.root / folder).mkdir(exist_ok=True)
        (self.root / folder / table).touch()

    def row_counts(self) -> Dict[str, int]:
        return self.manifest["row_counts"]

    def tables(self) -> List[str]:
        """Tables with rows, parents before children."""
        return [t for t in self.manifest["tables"] if self.table_dir(t).is_dir()]


class PackageWriter:
    """Streams typed rows of one load into Parquet files of a package in new/, flushing each table
    every `batch_rows` rows, so a load is never held in memory; `seal` makes it visible in one rename."""

    def __init__(self, storage: "PackageStorage", load_id: str, dataset: str, schema: Schema, batch_rows: int = BATCH_ROWS):
        self.storage, self.load_id, self.dataset, self.schema = storage, load_id, dataset, schema
        self.batch_rows = batch_rows
        self.root = storage.base / NEW / load_id
        shutil.rmtree(self.root, ignore_errors=True)
        (self.root / TABLES).mkdir(parents=True)
        self.buffers: Dict[str, List[Dict[str, Any]]] = {}
        self.arrow_buffers: Dict[str, List[Any]] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="package-writer")
        self._pending = None
        self.counts: Dict[str, int] = {}
        self._parts = 0

    def write(self, table: str, row: Dict[str, Any]) -> None:
        buffer = self.buffers.get(table)
        if buffer is None:
            buffer = self.buffers[table] = []
            self.counts.setdefault(table, 0)
        buffer.append(row)
        self.counts[table] += 1
        if len(buffer) >= self.batch_rows:
            self._flush(table)

    def write_arrow(self, table: str, data) -> None:
        """Buffer an Arrow table whose columns have the schema's types; flushed with the rows."""
        self.counts[table] = self.counts.get(table, 0) + data.num_rows
        buffer = self.arrow_buffers.setdefault(table, [])
        buffer.append(data)
        if sum(t.num_rows for t in buffer) >= self.batch_rows:
            self._flush_arrow(table)

    def _flush_arrow(self, table: str) -> None:
        import pyarrow as pa

        buffer = self.arrow_buffers.pop(table, None)
        if buffer:
            self._write_part(table, pa.concat_tables(buffer, promote_options="default"))

    def _flush(self, table: str) -> None:
        import pyarrow as pa

        rows = self.buffers.get(table)
        if not rows:
            return
        columns = self.schema.typed_columns(table)
        arrow_schema = pa.schema([(c, arrow_type(t)) for c, t in columns.items()])
        self._write_part(table, pa.Table.from_pylist(rows, schema=arrow_schema))
        self.buffers[table] = []

    def _write_part(self, table: str, data) -> None:
        import pyarrow.parquet as pq

        folder = self.root / TABLES / table
        folder.mkdir(exist_ok=True)
        self._parts += 1
        # written on a thread (Arrow releases the GIL) while the next batch is normalised; at most one
        # part is in flight, so memory stays bounded. Snappy: as fast to read back as uncompressed, a third of the size.
        self._wait()
        self._pending = self._pool.submit(pq.write_table, data, folder / f"part-{self._parts:05d}.parquet", compression="snappy")

    def _wait(self) -> None:
        if self._pending is not None:
            self._pending.result()
            self._pending = None

    def seal(self, state: Optional[Dict[str, Any]]) -> Optional[LoadPackage]:
        """Flush, write the manifest and rename into normalized/; None (and nothing kept) when the
        package has neither rows nor state."""
        for table in list(self.buffers):
            self._flush(table)
        for table in list(self.arrow_buffers):
            self._flush_arrow(table)
        self._wait()
        self._pool.shutdown()
        if not self.counts and state is None:
            self.discard()
            return None
        tables = [t for t in self.schema.tables if t in self.counts]
        manifest = {
            "load_id": self.load_id, "dataset": self.dataset, "tables": tables, "row_counts": self.counts,
            "created_at": dt.datetime.now(dt.timezone.utc).isoformat(),
        }
        self.schema.bump_version()
        (self.root / SCHEMA_FILE).write_text(json.dumps(self.schema.to_dict(), indent=1))
        if state is not None:
            (self.root / STATE_FILE).write_text(json.dumps(state, indent=1))
        (self.root / PACKAGE_FILE).write_text(json.dumps(manifest, indent=1))
        return self.storage.move(self.root, NORMALIZED)

    def discard(self) -> None:
        try:
            self._wait()
        finally:
            self._pool.shutdown()
            shutil.rmtree(self.root, ignore_errors=True)


class PackageStorage:
    """Owns the folder layout and the state literals of load packages of one pipeline."""

    def __init__(self, pipeline_dir: Path):
        self.base = Path(pipeline_dir) / "packages"

    def writer(self, load_id: str, dataset: str, schema: Schema, batch_rows: int = BATCH_ROWS) -> PackageWriter:
        return PackageWriter(self, load_id, dataset, schema, batch_rows)

    def pending(self) -> List[LoadPackage]:
        return self._list(NORMALIZED)

    def loaded(self) -> List[LoadPackage]:
        return self._list(LOADED)

    def _list(self, folder: str) -> List[LoadPackage]:
        path = self.base / folder
        if not path.is_dir():
            return []
        return [LoadPackage(p) for p in sorted(path.iterdir()) if (p / PACKAGE_FILE).exists()]

    def move(self, root: Path, folder: str) -> LoadPackage:
        target = self.base / folder / root.name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(root, target)
        return LoadPackage(target)

    def complete(self, package: LoadPackage) -> LoadPackage:
        return self.move(package.root, LOADED)

    def discard_unsealed(self) -> None:
        """Drop packages a dead process left half-written in new/ (their state was never committed)."""
        shutil.rmtree(self.base / NEW, ignore_errors=True)
