"""Lakehouse settings: where the warehouse, catalog and jars live, and which table format to use.

Every process that touches the lakehouse (the extractor, the dbt adapter's `embedded` method, tests,
benchmarks) builds its settings here, so that two processes pointed at the same `home` see the same
tables. Values come from, in order of precedence: explicit keyword arguments (the CLI, a dbt profile),
environment variables (`SPARKLOAD_*`), then defaults.

| setting        | env var                  | default                                  |
|----------------|--------------------------|------------------------------------------|
| home           | SPARKLOAD_HOME           | `./.sparkload`                           |
| table_format   | SPARKLOAD_TABLE_FORMAT   | `auto` (delta when its jars resolve, else iceberg) |
| master         | SPARKLOAD_MASTER         | `local[*]`                               |
| jars_dir       | SPARKLOAD_JARS           | none (a directory holding Delta jars)    |
| jars_cache     | SPARKLOAD_JARS_CACHE     | `~/.cache/sparkload/jars`                |
| delta_maven    | SPARKLOAD_DELTA_MAVEN    | `io.delta:delta-spark_2.12:3.3.2`        |
| catalog_uri    | SPARKLOAD_CATALOG_URI    | an H2 file database under `home/catalog` (iceberg only) |
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

TABLE_FORMATS = ("auto", "delta", "iceberg")
DEFAULT_DELTA_MAVEN = "io.delta:delta-spark_2.12:3.3.2"
ICEBERG_CATALOG = "lake"


class LakehouseConfigError(ValueError):
    """A lakehouse setting is invalid or a required part (jars, catalog) cannot be found."""


@dataclass(frozen=True)
class LakehouseConfig:
    home: Path = Path(".sparkload")
    table_format: str = "auto"
    master: str = "local[*]"
    jars_dir: Optional[Path] = None
    jars_cache: Path = Path("~/.cache/sparkload/jars")
    delta_maven: Optional[str] = DEFAULT_DELTA_MAVEN
    catalog_uri: Optional[str] = None
    app_name: str = "sparkload"
    spark_conf: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.table_format not in TABLE_FORMATS:
            raise LakehouseConfigError(
                f"table_format={self.table_format!r} is not one of {', '.join(TABLE_FORMATS)}"
            )
        object.__setattr__(self, "home", Path(self.home).expanduser().resolve())
        object.__setattr__(self, "jars_cache", Path(self.jars_cache).expanduser())
        if self.jars_dir is not None:
            object.__setattr__(self, "jars_dir", Path(self.jars_dir).expanduser())

    @property
    def warehouse(self) -> Path:
        return self.home / "warehouse"

    @property
    def metastore(self) -> Path:
        """Derby database of the Hive metastore (delta)."""
        return self.home / "metastore_db"

    @property
    def iceberg_catalog_uri(self) -> str:
        """JDBC URI of the Iceberg catalog; AUTO_SERVER lets the extractor and dbt JVMs share it."""
        if self.catalog_uri:
            return self.catalog_uri
        db = self.home / "catalog" / "iceberg"
        return f"jdbc:h2:file:{db};AUTO_SERVER=TRUE;DATABASE_TO_LOWER=TRUE"

    def with_(self, **changes: Any) -> "LakehouseConfig":
        return replace(self, **changes)

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, **overrides: Any) -> "LakehouseConfig":
        """Settings from `SPARKLOAD_*` variables, overridden by non-None keyword arguments."""
        env = os.environ if env is None else env
        values: Dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"SPARKLOAD_{f.name.upper()}")
            if raw is not None and f.name != "spark_conf":
                values[f.name] = raw
        if env.get("SPARKLOAD_JARS"):
            values["jars_dir"] = env["SPARKLOAD_JARS"]
        if values.get("delta_maven", None) in ("", "none", "off"):
            values["delta_maven"] = None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
