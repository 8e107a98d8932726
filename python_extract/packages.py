"""Load packages on disk: the only channel between the normalize and load stages.

    <pipeline dir>/packages/normalized/<load_id>/   written by normalize, waiting to land
        package.json                              schema (tables, columns, hints), dataset, created_at
        tables/<table>.jsonl                      rows, one JSON object per line
        landed/<table>                            marker: this table's rows are in the lakehouse
    <pipeline dir>/packages/loaded/<load_id>/      complete: its `_dlt_loads` row exists

A package moves from normalized/ to loaded/ by one rename, after its `_dlt_loads` row was written.
A package still in normalized/ when a pipeline starts is landed again first (see load/).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, TextIO

from .normalize.schema import Schema

NORMALIZED = "normalized"
LOADED = "loaded"
PACKAGE_FILE = "package.json"


def new_load_id() -> str:
    """dlt-style load id: the current unix time with microseconds; sorts in load order."""
    return f"{time.time():.6f}"


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return str(value)


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
        return Schema.from_dict(self.manifest["schema"])

    @property
    def dataset(self) -> str:
        return self.manifest["dataset"]

    def table_file(self, table: str) -> Path:
        return self.root / "tables" / f"{table}.jsonl"

    def is_landed(self, table: str) -> bool:
        return (self.root / "landed" / table).exists()

    def mark_landed(self, table: str) -> None:
        self._mark("landed", table)

    def landing_started(self, table: str) -> bool:
        return (self.root / "landing" / table).exists()

    def mark_landing(self, table: str) -> None:
        self._mark("landing", table)

    def _mark(self, folder: str, table: str) -> None:
        (self.root / folder).mkdir(exist_ok=True)
        (self.root / folder / table).touch()

    def row_counts(self) -> Dict[str, int]:
        return self.manifest["row_counts"]

    def tables(self) -> List[str]:
        """Tables with rows, parents before children."""
        return [t for t in self.manifest["tables"] if self.table_file(t).exists()]


class PackageStorage:
    """Owns the folder layout and the state literals of load packages of one pipeline."""

    def __init__(self, pipeline_dir: Path):
        self.base = Path(pipeline_dir) / "packages"

    def pending(self) -> List[LoadPackage]:
        folder = self.base / NORMALIZED
        if not folder.is_dir():
            return []
        return [LoadPackage(p) for p in sorted(folder.iterdir()) if (p / PACKAGE_FILE).exists()]

    def write(self, load_id: str, dataset: str, schema: Schema, rows: Iterable[tuple]) -> Optional[LoadPackage]:
        """Write the rows `(table, row)` and the manifest into a new package, atomically visible;
        None when there are no rows (an empty extract makes no load)."""
        tmp = self.base / "new" / load_id
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "tables").mkdir(parents=True)
        files: Dict[str, TextIO] = {}
        counts: Dict[str, int] = {}
        try:
            for table, row in rows:
                if table not in files:
                    files[table] = open(tmp / "tables" / f"{table}.jsonl", "w", encoding="utf-8")
                    counts[table] = 0
                files[table].write(json.dumps(row, default=_json_default) + "\n")
                counts[table] += 1
        finally:
            for f in files.values():
                f.close()
        if not files:
            shutil.rmtree(tmp)
            return None
        manifest = {
            "load_id": load_id, "dataset": dataset, "schema": schema.to_dict(),
            "tables": list(files), "row_counts": counts, "created_at": dt.datetime.now(dt.timezone.utc).isoformat(),
        }
        (tmp / PACKAGE_FILE).write_text(json.dumps(manifest, indent=1))
        target = self.base / NORMALIZED / load_id
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, target)
        return LoadPackage(target)

    def complete(self, package: LoadPackage) -> LoadPackage:
        target = self.base / LOADED / package.load_id
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(package.root, target)
        return LoadPackage(target)

    def loaded(self) -> Iterator[LoadPackage]:
        folder = self.base / LOADED
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                yield LoadPackage(p)
