"""Lakehouse settings: where the warehouse, catalog and jars live, and which table format to use.

Every process that touches the lakehouse (the extractor, the dbt adapter's `embedded` method, tests,
benchmarks) builds its settings here, so that two processes pointed at the same `home` see the same
tables. Values come from, in order of precedence: explicit keyword arguments (the CLI, a dbt profile),
environment variables (`SPARKLOAD_*`), the `[lakehouse]` table of the `.dlt/` files (keys as in the
first column; `settings.py`), then defaults.

| setting        | env var                  | default                                  |
|----------------|--------------------------|------------------------------------------|
| home           | SPARKLOAD_HOME           | `./.sparkload`                           |
| table_format   | SPARKLOAD_TABLE_FORMAT   | the lakehouse's own (recorded at its first start), else `delta` |
| master         | SPARKLOAD_MASTER         | `local[*]`                               |
| jars_dir       | SPARKLOAD_JARS           | none (a directory holding the jars, `jars.py`) |
| jars_cache     | SPARKLOAD_JARS_CACHE     | `~/.cache/sparkload/maven` (filled by `sparkload lakehouse setup`) |
| catalog_uri    | SPARKLOAD_CATALOG_URI    | an H2 file database under `home/catalog`: the Hive metastore (delta) or the Iceberg catalog |
| warehouse      | SPARKLOAD_WAREHOUSE      | `home/warehouse` (a URI: `s3a://bucket/path`, `file:/data/lake`) |
| s3_endpoint    | SPARKLOAD_S3_ENDPOINT    | none (AWS); `http://127.0.0.1:9000` for MinIO         |
| s3_region      | SPARKLOAD_S3_REGION      | none (AWS_REGION, else the SDK's default chain)       |
| s3_path_style  | SPARKLOAD_S3_PATH_STYLE  | false (true for MinIO, moto, most S3-compatible stores) |
| s3_jars        | SPARKLOAD_S3_JARS        | `auto` (cached by `lakehouse setup --s3`); `none`: the platform's |
| spark_remote   | SPARKLOAD_SPARK_REMOTE   | none (an embedded session); `sc://host:port`: the extractor's statements go to that Spark Connect server (remote.py) |
| s3_access_key_id, s3_secret_access_key, s3_session_token | AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN | none (S3A's default chain: environment, instance role) |

Secrets (the three `s3_*` credentials) never appear in `repr`, logs or a process's command line: the
session sets them on its Hadoop configuration after the JVM started (`session.py`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from .. import contract
from ..errors import LakehouseConfigError
from ..settings import Settings

TABLE_FORMATS = contract.TABLE_FORMATS
DEFAULT_FORMAT = "delta"  # of a new lakehouse whose settings name none
FORMAT_RECORD = "lakehouse.json"  # under home: the table format pinned at the lakehouse's first start
S3_JARS = ("auto", "none")
S3_SCHEMES = ("s3a",)
SECRETS = {"s3_access_key_id": "AWS_ACCESS_KEY_ID", "s3_secret_access_key": "AWS_SECRET_ACCESS_KEY",
           "s3_session_token": "AWS_SESSION_TOKEN"}
ICEBERG_CATALOG = "lake"
FILE_SECTION = "lakehouse"  # `[lakehouse]` in .dlt/config.toml, secrets in .dlt/secrets.toml


@dataclass(frozen=True)
class LakehouseConfig:
    home: Path = Path(".sparkload")
    table_format: Optional[str] = None  # None: the lakehouse's pinned format, else DEFAULT_FORMAT
    master: str = "local[*]"
    jars_dir: Optional[Path] = None
    jars_cache: Path = Path("~/.cache/sparkload/maven")  # not jars/: older releases kept other builds under the same names there
    catalog_uri: Optional[str] = None
    app_name: str = "sparkload"
    spark_conf: Dict[str, str] = field(default_factory=dict)
    warehouse: Optional[str] = None
    s3_endpoint: Optional[str] = None
    s3_region: Optional[str] = None
    s3_path_style: bool = False
    s3_jars: str = "auto"
    spark_remote: Optional[str] = None  # sc://host:port: the extractor's session is on that Connect server (remote.py)
    s3_access_key_id: Optional[str] = field(default=None, repr=False)
    s3_secret_access_key: Optional[str] = field(default=None, repr=False)
    s3_session_token: Optional[str] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.table_format == "":
            object.__setattr__(self, "table_format", None)
        if self.table_format not in (None, *TABLE_FORMATS):
            raise LakehouseConfigError(
                f"table_format={self.table_format!r} is not one of {', '.join(TABLE_FORMATS)}"
                + (" (auto was removed: a lakehouse's format never depends on which jars a network serves)"
                   if self.table_format == "auto" else "")
            )
        if self.s3_jars not in S3_JARS:
            raise LakehouseConfigError(f"s3_jars={self.s3_jars!r} is not one of {', '.join(S3_JARS)}")
        if self.spark_remote == "":
            object.__setattr__(self, "spark_remote", None)
        if self.spark_remote is not None:
            from .remote import url_problem

            problem = url_problem(self.spark_remote)
            if problem:
                raise LakehouseConfigError(problem)
        if not isinstance(self.s3_path_style, bool):
            object.__setattr__(self, "s3_path_style", _boolean("s3_path_style", self.s3_path_style))
        object.__setattr__(self, "home", Path(self.home).expanduser().resolve())
        object.__setattr__(self, "jars_cache", Path(self.jars_cache).expanduser())
        if self.jars_dir is not None:
            object.__setattr__(self, "jars_dir", Path(self.jars_dir).expanduser())

    @property
    def warehouse_uri(self) -> str:
        """Where tables live: the `warehouse` setting as a URI, else `home/warehouse`."""
        if not self.warehouse:
            return (self.home / "warehouse").as_uri()
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", self.warehouse):
            return self.warehouse.rstrip("/")
        return Path(self.warehouse).expanduser().resolve().as_uri()

    @property
    def on_s3(self) -> bool:
        """Whether the warehouse is on S3 through Hadoop's S3A connector (needs hadoop-aws)."""
        return self.warehouse_uri.split(":", 1)[0].lower() in S3_SCHEMES

    def catalog_jdbc_uri(self, table_format: str) -> str:
        """JDBC URI of the catalog database: `catalog_uri`, else an H2 file under `home/catalog` (the Hive
        metastore of a delta lakehouse, the JdbcCatalog of an iceberg one). AUTO_SERVER: the first JVM to
        open it serves it to the others (the extractor, dbt runs, the thrift and warm servers, a cluster
        driver), so many processes use the lakehouse at once. WRITE_DELAY=0: H2 writes a commit to its file
        before the commit returns (its default holds commits in memory for up to 500 ms, and a SIGKILLed JVM
        then loses the tables' last commit pointers)."""
        if self.catalog_uri:
            return self.catalog_uri
        if table_format == "delta":  # DataNucleus (the metastore's ORM) expects H2's upper-case identifiers
            return f"jdbc:h2:file:{self.home / 'catalog' / 'metastore'};AUTO_SERVER=TRUE;WRITE_DELAY=0"
        db = self.home / "catalog" / "iceberg"
        return f"jdbc:h2:file:{db};AUTO_SERVER=TRUE;DATABASE_TO_LOWER=TRUE;WRITE_DELAY=0"

    def with_(self, **changes: Any) -> "LakehouseConfig":
        return replace(self, **changes)

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, **overrides: Any) -> "LakehouseConfig":
        """Settings through the one resolver (`python_extract.settings`): non-None keyword arguments (CLI
        options, a dbt profile), then `SPARKLOAD_*` variables of `env` (default: the environment), then the
        `[lakehouse]` table of the `.dlt/` files, then defaults.

        >>> LakehouseConfig.from_env({"SPARKLOAD_MASTER": "local[2]"}, home="lake").master
        'local[2]'
        """
        settings = Settings(env)
        names = [f.name for f in fields(cls)]
        values: Dict[str, Any] = {}
        for key, found in settings.section(FILE_SECTION).items():
            if key not in names:
                raise LakehouseConfigError(f"{found.where}: unknown lakehouse setting {key!r}; expected one of "
                                           f"{', '.join(names)}")
            values[key] = found.value
        if "spark_conf" in values and not isinstance(values["spark_conf"], dict):
            raise LakehouseConfigError(f"{FILE_SECTION}.spark_conf: expected a table of Spark settings, got "
                                       f"{values['spark_conf']!r}")
        for name, aws_name in SECRETS.items():
            if settings.env(aws_name):
                values[name] = settings.env(aws_name)
        for name in names:
            raw = settings.env(f"SPARKLOAD_{name.upper()}")
            if raw is not None and name != "spark_conf":
                values[name] = raw
        if settings.env("SPARKLOAD_JARS"):
            values["jars_dir"] = settings.env("SPARKLOAD_JARS")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _boolean(name: str, raw: Any) -> bool:
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise LakehouseConfigError(f"{name}={raw!r} is not a boolean; expected true or false")


def pinned_format(config: LakehouseConfig) -> Optional[str]:
    """The table format recorded at the lakehouse's first start, or None for a new lakehouse."""
    record = config.home / FORMAT_RECORD
    try:
        recorded = json.loads(record.read_text()).get("table_format")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, AttributeError) as e:
        raise LakehouseConfigError(f"{record} is unreadable ({e}); it records the lakehouse's table format") from e
    if recorded not in contract.TABLE_FORMATS:
        raise LakehouseConfigError(f"{record} records table_format={recorded!r}; expected delta or iceberg")
    return recorded
