"""Entry point of the `files` source plugin, and its config schema."""
from typing import Any, Dict, List, Literal

from pydantic import Field

from ..config import ConfigModel, TableHints, json_schema
from ..registry import SourcePlugin
from .readers import FORMATS
from .source import files_source



class FileResource(TableHints):
    name: str
    glob: str
    """a local glob (`**` recurses) or an fsspec URL"""
    format: Literal[("auto", *FORMATS)] = None
    """by the file name's extension when auto (the default)"""
    chunk_size: int = Field(None, ge=1)
    delimiter: str = None
    lookback_seconds: float = Field(None, ge=0)
    incremental: bool = None
    """false: every run reads every file"""
    file_column: str = None
    """a column holding each record's file URL"""
    date_column: str = None
    """a column holding the date found in the file's name (dated snapshots)"""
    date_pattern: str = None
    """a regular expression finding that date in the file name (its first group, if any): YYYY-MM-DD or
    YYYYMMDD; by default the first such date in the name"""
    load_per_file: bool = None
    """true: each file is its own load (one extractor run lands several)"""
    columns: Dict[str, Any] = None


class FilesConfig(ConfigModel):
    resources: List[FileResource] = Field(min_length=1)


CONFIG_SCHEMA = json_schema(FilesConfig)

EXAMPLE = """\
    resources:
      - name: orders
        glob: data/orders/*.csv          # edit: local glob or an fsspec URL
        format: auto                     # csv | jsonl | json | parquet | auto (by extension)
        primary_key: id
        write_disposition: merge
"""

plugin = SourcePlugin(
    name="files",
    description="Files from a glob (local or fsspec URL): csv, jsonl, json, parquet; each file loaded once",
    config_schema=CONFIG_SCHEMA,
    example=EXAMPLE,
    build=lambda config, name: files_source(config, name),
)
