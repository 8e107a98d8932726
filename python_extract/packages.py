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
    <pipeline dir>/packages/loaded/<load_id>/      complete: its `_dlt_loads` row exists; the newest
                                                   `keep_loaded` are kept, older ones deleted
    <pipeline dir>/packages/failed/<load_id>/      damaged (unreadable manifest, schema, state or Parquet
        failed.json                               part), or sealed after a damaged one; never landed:
                                                   reason, when; listed and dropped by `sparkload pipeline packages`

Every state change is a rename: new/ -> normalized/ when sealed, normalized/ -> loaded/ after the
`_dlt_loads` row was written, normalized/ -> failed/ when `check` finds it damaged. A package in
normalized/ when a pipeline starts is landed first (load/).

Errors: `PipelineStepFailed('normalize', ...)` naming the table and column when rows do not fit their
column's type (an integer beyond 64 bits).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Dict, List, Optional

from .contract import DATASET_TABLES, ID, LOAD_ID
from .errors import PipelineStepFailed
from .normalize.schema import Schema, arrow_of_spark

NEW = "new"
NORMALIZED = "normalized"
LOADED = "loaded"
FAILED = "failed"
FAILED_FILE = "failed.json"
KEEP_LOADED = 10
PACKAGE_FILE = "package.json"
SCHEMA_FILE = "schema.json"
STATE_FILE = "state.json"
TABLES = "tables"
LANDING = "landing"
LANDED = "landed"
BATCH_ROWS = 50_000


_LAST_LOAD_ID_US = 0
_LOAD_ID_LOCK = threading.Lock()


def new_load_id() -> str:
    """dlt-style load id: the current unix time with microseconds; sorts in load order. Strictly increasing in a
    process, so two packages sealed in one microsecond (or after the clock stepped back) never share an id."""
    global _LAST_LOAD_ID_US
    with _LOAD_ID_LOCK:
        micros = _LAST_LOAD_ID_US = max(time.time_ns() // 1000, _LAST_LOAD_ID_US + 1)
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


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

    def landing_tables(self) -> List[str]:
        """Tables (not system tables) whose landing started."""
        folder = self.root / LANDING
        return sorted(p.name for p in folder.iterdir() if p.name not in DATASET_TABLES) if folder.is_dir() else []

    def check(self, deep: bool = False) -> Optional[str]:
        """Why the package cannot be landed as it is (None when it looks whole): its manifest, schema and
        state must parse and every table's Parquet parts must hold the rows the manifest counts (footers
        only; `deep` reads every page too)."""
        import pyarrow.parquet as pq

        for name in (PACKAGE_FILE, SCHEMA_FILE, STATE_FILE):
            path = self.root / name
            if name == STATE_FILE and not path.exists():
                continue
            try:
                parsed = json.loads(path.read_text())
            except FileNotFoundError:
                return f"{name} is missing"
            except (ValueError, UnicodeDecodeError) as e:
                return f"{name} is not valid JSON ({_brief(e)})"
            if name == PACKAGE_FILE and not (isinstance(parsed, dict) and {"tables", "row_counts", "dataset"} <= set(parsed)):
                return f"{name} lacks tables, row_counts or dataset"
        try:
            self.schema
        except Exception as e:  # noqa: BLE001 - any failure to rebuild the schema means a damaged file
            return f"{SCHEMA_FILE} does not describe a schema ({_brief(e)})"
        for table, expected in self.manifest["row_counts"].items():
            parts = sorted(self.table_dir(table).glob("*.parquet"))
            if expected and not parts:
                return f"table {table}: no Parquet parts for its {expected} rows"
            found = 0
            for part in parts:
                try:
                    found += pq.read_table(part).num_rows if deep else pq.read_metadata(part).num_rows
                except Exception as e:  # noqa: BLE001 - pyarrow raises several types for damaged files
                    return f"table {table}: {part.name} is not readable Parquet ({_brief(e)})"
            if found != expected:
                return f"table {table}: its Parquet parts hold {found} rows, the manifest says {expected}"
        return None


def _brief(error: Exception) -> str:
    """An error as a short printable phrase (parsers quote the damaged bytes)."""
    text = "".join(c if c.isprintable() else " " for c in str(error))
    return f"{type(error).__name__}: {' '.join(text.split())[:160]}"


_DICTIONARY_LIMIT = 256 * 1024  # bytes of a column's dictionary page before its writer falls back to plain
_IN_FLIGHT = 2  # Parquet parts written at once, beside the thread that normalizes the next batch


def _write_parquet(tables: List[Any], path: Path) -> None:
    """One part from the buffered Arrow tables of a table, on a writer thread: nested columns encoded as
    JSON text first (normalize/arrow.py: encode_nested; a no-op for rows), then one Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .normalize.arrow import encode_nested

    data = pa.concat_tables([encode_nested(t) for t in tables], promote_options="default")
    pq.write_table(data, path, compression="snappy", dictionary_pagesize_limit=_DICTIONARY_LIMIT,
                   use_dictionary=[c for c in data.column_names if c != ID], write_statistics=_with_statistics(data.schema))


def _with_statistics(schema) -> List[str]:
    """The columns a part keeps min/max statistics of: `_dlt_load_id` (a staging table is read by load) and every
    column of a fixed-width type. A text column's min/max costs a third of a part's writing time (10M wide
    rows: benchmarks/bench_extract.py) and nothing reads it: the materialization selects staging rows by load,
    and Iceberg prunes its own tables by the statistics Spark writes."""
    import pyarrow as pa

    return [f.name for f in schema if f.name == LOAD_ID or (
        f.name != ID and not pa.types.is_string(f.type) and not pa.types.is_large_string(f.type)
        and not pa.types.is_binary(f.type) and not pa.types.is_large_binary(f.type))]


def _round_decimals(rows: List[Dict[str, Any]], column: str, scale: int) -> None:
    """The Decimal values of `column` with more digits after the point than `scale` rounded half away from
    zero, in place, as dlt's destinations round them (Arrow would refuse them as a loss of data)."""
    quantum = Decimal(1).scaleb(-scale)
    for row in rows:
        value = row.get(column)
        if isinstance(value, Decimal) and value.is_finite() and value.as_tuple().exponent < -scale:
            row[column] = value.quantize(quantum, rounding=ROUND_HALF_UP)


def _fits(value: Any, spark: str) -> bool:
    """Whether a value fits a Spark type by size: an integer type's range, a decimal's digits before the point
    (a bigint's range is checked after, by `_unfit`; other types have no size)."""
    import pyarrow as pa

    sized = arrow_of_spark(spark)
    if pa.types.is_integer(sized) and sized.bit_width < 64:
        bits = sized.bit_width
        return not isinstance(value, int) or -2 ** (bits - 1) <= value < 2 ** (bits - 1)
    if pa.types.is_decimal(sized) and isinstance(value, Decimal) and value.is_finite():
        return value.adjusted() < sized.precision - sized.scale
    return True


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
        self._pool = ThreadPoolExecutor(max_workers=_IN_FLIGHT, thread_name_prefix="package-writer")
        self._pending: List[tuple] = []  # (future, path) of the parts being written, oldest first
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
        buffer = self.arrow_buffers.pop(table, None)
        if buffer:
            self._write_part(table, buffer)

    def _flush(self, table: str) -> None:
        import pyarrow as pa

        rows = self.buffers.get(table)
        if not rows:
            return
        columns = self.schema.typed_columns(table)
        arrow_schema = pa.schema(list(self.schema.arrow_types(table).items()))
        for field in arrow_schema:
            if pa.types.is_decimal(field.type):
                _round_decimals(rows, field.name, field.type.scale)
        try:
            data = pa.Table.from_pylist(rows, schema=arrow_schema)
        except (OverflowError, pa.ArrowInvalid) as e:
            raise self._unfit(table, columns, rows, e) from e
        self._write_part(table, [data])
        self.buffers[table] = []

    def _unfit(self, table: str, columns: Dict[str, str], rows: List[Dict[str, Any]], error: Exception) -> PipelineStepFailed:
        """The column and value that do not fit, named (pyarrow's own message names neither)."""
        for column, spark in self.schema.spark_types(table).items():  # a sized column first (_fits: others fit)
            for row in rows:
                value = row.get(column)
                if value is not None and not _fits(value, spark):
                    return PipelineStepFailed(
                        "normalize", f"column {column}: value {value} does not fit its type {spark} (the column's "
                        "precision and scale hints); widen the hints or yield values that fit", load_id=self.load_id, table=table)
        for column in columns:
            for row in rows:
                value = row.get(column)
                if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
                    return PipelineStepFailed(
                        "normalize", f"column {column}: value {value} does not fit a 64-bit integer (bigint); "
                        f"yield it as a string or Decimal, or declare columns={{'{column}': {{'data_type': 'decimal'}}}}",
                        load_id=self.load_id, table=table)
        return PipelineStepFailed("normalize", f"{type(error).__name__}: {error}", load_id=self.load_id, table=table)

    def _write_part(self, table: str, tables: List[Any]) -> None:
        folder = self.root / TABLES / table
        folder.mkdir(exist_ok=True)
        self._parts += 1
        # written on threads (Arrow releases the GIL) while the next batch is normalized; at most
        # _IN_FLIGHT parts are in flight, so memory stays bounded. Snappy: as fast to read back as uncompressed, a third of the size.
        # A dictionary gives up at 256 KiB instead of 1 MiB: a column of mostly distinct values (ids, hashes)
        # stops trying sooner, a quarter less time and smaller files (benchmarks/bench_extract.py). `_dlt_id`
        # (random: no dictionary can shrink it, no min/max prunes a scan) gets neither.
        self._wait(keep=_IN_FLIGHT - 1)
        path = folder / f"part-{self._parts:05d}.parquet"
        self._pending.append((self._pool.submit(_write_parquet, tables, path), path))

    def _wait(self, keep: int = 0) -> None:
        """Wait for the oldest parts being written until at most `keep` are left; the first error raised."""
        while len(self._pending) > keep:
            pending, path = self._pending.pop(0)
            try:
                pending.result()
            except OSError as e:  # pyarrow's errors name no file
                raise OSError(e.errno, e.strerror or str(e), str(path)) from e

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
        """Sealed packages waiting to land, oldest first (a folder without its manifest too: `check`
        reports it)."""
        return self._list(NORMALIZED)

    def loaded(self) -> List[LoadPackage]:
        return self._list(LOADED)

    def failed(self) -> List[LoadPackage]:
        return self._list(FAILED)

    def _list(self, folder: str) -> List[LoadPackage]:
        path = self.base / folder
        if not path.is_dir():
            return []
        return [LoadPackage(p) for p in sorted(path.iterdir()) if p.is_dir()]

    def quarantine(self, package: LoadPackage, reason: str) -> LoadPackage:
        """Move a package that must not land into failed/, with `reason`."""
        moved = self.move(package.root, FAILED)
        record = {"reason": reason, "failed_at": dt.datetime.now(dt.timezone.utc).isoformat()}
        (moved.root / FAILED_FILE).write_text(json.dumps(record, indent=1))
        return moved

    @staticmethod
    def failure(package: LoadPackage) -> str:
        try:
            return json.loads((package.root / FAILED_FILE).read_text())["reason"]
        except (OSError, ValueError, KeyError):
            return "(no reason recorded)"

    def drop(self, package: LoadPackage) -> None:
        shutil.rmtree(package.root)

    def prune_loaded(self, keep: int = KEEP_LOADED) -> List[str]:
        """Delete loaded packages but the newest `keep`; their load ids."""
        old = self.loaded()[:-keep] if keep > 0 else self.loaded()
        for package in old:
            shutil.rmtree(package.root, ignore_errors=True)
        return [p.load_id for p in old]

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
