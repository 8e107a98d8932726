"""dlt's `dlt.sources.filesystem` under its name: `filesystem`, `read_csv`, `read_jsonl`, `read_parquet`
(python_extract/sources/dlt_facades/filesystem.py, over the `files` plugin's listing and readers)."""
from ..dlt_facades.filesystem import FileItemDict, filesystem, read_csv, read_jsonl, read_parquet

__all__ = ["FileItemDict", "filesystem", "read_csv", "read_jsonl", "read_parquet"]
