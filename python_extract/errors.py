"""Errors of the extractor. Each names the step, and where known the load id, the resource and the table.

    SparkloadError
    ├── PipelineStepFailed               a step (extract, normalize, load) failed; wraps the cause
    ├── ConfigFieldMissing               a config/secret value was found in no provider
    ├── IncrementalError                 an incremental cursor was misconfigured or met bad data
    │   ├── IncrementalCursorPathMissing     a row has no value at the cursor path (raise policy)
    │   └── IncrementalBoundaryOverflow      more rows share the boundary cursor value than the bound
    └── LakehouseConfigError             (python_extract.lakehouse) jars or settings are missing or invalid
"""
from __future__ import annotations

from typing import Any, List, Optional


class SparkloadError(Exception):
    """Base of every error the extractor raises on purpose."""


class PipelineStepFailed(SparkloadError):
    def __init__(self, step: str, message: str, load_id: Optional[str] = None, table: Optional[str] = None):
        self.step, self.load_id, self.table = step, load_id, table
        where = "".join([f" load {load_id}" if load_id else "", f" table {table}" if table else ""])
        super().__init__(f"{step} step failed{where}: {message}")


class ConfigFieldMissing(SparkloadError):
    def __init__(self, name: str, looked_up: List[str]):
        self.name, self.looked_up = name, looked_up
        super().__init__(f"config value {name!r} not found; looked up: {', '.join(looked_up)}")


class IncrementalError(SparkloadError):
    def __init__(self, resource: str, cursor_path: str, message: str):
        self.resource, self.cursor_path = resource, cursor_path
        super().__init__(f"resource {resource} cursor {cursor_path}: {message}")


class IncrementalCursorPathMissing(IncrementalError):
    def __init__(self, resource: str, cursor_path: str, row: Any):
        self.row = row
        super().__init__(resource, cursor_path, f"a row has no value at the cursor path (on_cursor_value_missing='raise'): {str(row)[:200]}")


class IncrementalBoundaryOverflow(IncrementalError):
    def __init__(self, resource: str, cursor_path: str, value: Any, count: int, limit: int):
        self.value, self.count, self.limit = value, count, limit
        super().__init__(
            resource, cursor_path,
            f"{count} rows share the boundary cursor value {value!r}, more than boundary_limit={limit}; nothing was "
            "loaded. Use a finer cursor, range_start='open' (the cursor is unique), primary_key=() to re-load "
            "boundary rows (pair with merge), or raise boundary_limit",
        )
