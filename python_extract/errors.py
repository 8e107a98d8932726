"""Errors of the extractor. Each names the step, and where known the load id and the table.

    SparkloadError
    ├── PipelineStepFailed      a step (extract, normalize, load) failed; wraps the cause
    └── LakehouseConfigError    (python_extract.lakehouse) jars or settings are missing or invalid
"""
from __future__ import annotations

from typing import Optional


class SparkloadError(Exception):
    """Base of every error the extractor raises on purpose."""


class PipelineStepFailed(SparkloadError):
    def __init__(self, step: str, message: str, load_id: Optional[str] = None, table: Optional[str] = None):
        self.step, self.load_id, self.table = step, load_id, table
        where = "".join(
            [f" load {load_id}" if load_id else "", f" table {table}" if table else ""]
        )
        super().__init__(f"{step} step failed{where}: {message}")
