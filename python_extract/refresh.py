"""dlt's `refresh=` (on `pipeline(...)`, `run` and `extract`): reset a source's tables and state before this run's
data lands, as dlt 1.31 does (judged by tests/parity_extract/test_refresh_parity.py).

- `drop_sources`: every table of the run's sources is dropped (unselected resources' too) and each source's state
  is wiped (its own keys and every resource's); the tables come back with the new data's columns only.
- `drop_resources`: the tables of the selected resources (their child tables too) are dropped and those resources'
  state is wiped; other resources and the source's own state keep theirs.
- `drop_data`: the selected resources' tables are emptied, keeping their columns; their state is wiped.

`prepare` changes the schema and state in memory before extraction (so the cursors start afresh); the tables are
dropped or emptied when the first package of the run lands (`apply`, as dlt drops at its load step), noted first in
the dataset's `_sparkload_refreshed_tables`, so a dbt model that applied older loads of such a table refuses until
it is rebuilt (macros/helpers/refreshed.sql). sparkload keeps one schema per pipeline where dlt keeps one per
source: `drop_sources` drops the tables of every resource not known as another source's.

Errors: `ConfigError` for a refresh value that is none of REFRESH_MODES; `PipelineStepFailed` (step load, naming the
table) when a table cannot be dropped or emptied.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, List, Literal, Optional, Tuple, get_args

from .contract import LOAD_ID, REFRESHED_TABLES_TABLE, layout
from .errors import ConfigError, PipelineStepFailed, did_you_mean

RefreshMode = Literal["drop_sources", "drop_resources", "drop_data"]
REFRESH_MODES: Tuple[str, ...] = get_args(RefreshMode)
REFRESH_FILE = "refresh.json"  # in a package: what its landing drops or empties first
REFRESHED_MARK = "refreshed"  # in a package: the refresh was applied (a rerun of its landing must not repeat it)


def check_refresh(value: Any, owner: str) -> Optional[str]:
    """`value` if it is None or one of REFRESH_MODES; else a one-line `ConfigError` naming `owner`."""
    if value is None or (isinstance(value, str) and value in REFRESH_MODES):
        return value
    hint = did_you_mean(value, REFRESH_MODES) if isinstance(value, str) else ""
    raise ConfigError(f"{owner}: refresh={value!r}{hint}; expected one of {', '.join(REFRESH_MODES)}")


@dataclass
class Refresh:
    """What one run's refresh does to the staging tables when its first package lands."""
    mode: str
    dropped: List[str] = field(default_factory=list)
    truncated: List[str] = field(default_factory=list)

    @property
    def tables(self) -> List[str]:
        return self.dropped + self.truncated


def prepare(mode: str, schema: Any, state: dict, resources: Iterable[Any], default_source: str) -> Refresh:
    """Apply `mode` to `schema` and `state` in place (dropped tables leave the schema, wiped state goes) for the
    run's `resources`; returns the tables to drop or empty at landing."""
    resources = list(resources)
    sources = {r.source_name or default_source for r in resources}
    states = state.setdefault("sources", {})
    if mode == "drop_sources":
        others = {name for src, body in states.items() if src not in sources for name in body.get("resources", {})}
        tables = [t for t, meta in schema.tables.items() if meta.resource not in others]
        for src in sources:
            states.pop(src, None)
    else:
        names = {r.name for r in resources}
        tables = [t for t, meta in schema.tables.items() if meta.resource in names]
        for src in sources:
            for name in names:
                states.get(src, {}).get("resources", {}).pop(name, None)
    if mode == "drop_data":
        return Refresh(mode, truncated=tables)
    for table in tables:
        schema.tables.pop(table, None)
    return Refresh(mode, dropped=tables)


def record(package_root: Path, refresh: Refresh) -> None:
    """Note in a sealed package what its landing drops or empties first."""
    (Path(package_root) / REFRESH_FILE).write_text(json.dumps(asdict(refresh)))


def apply(spark: Any, package: Any) -> List[str]:
    """Drop or empty the tables `package`'s refresh names, once, before any of its rows land; the tables are
    noted in `_sparkload_refreshed_tables` first (a run killed between the two still tells dbt). Returns them."""
    from .lakehouse import session_format
    from .load.sql import ident, literal, qualified

    root = Path(package.root)
    if not (root / REFRESH_FILE).exists() or (root / REFRESHED_MARK).exists():
        return []
    refresh = Refresh(**json.loads((root / REFRESH_FILE).read_text()))
    dataset = package.dataset
    existing = [t for t in refresh.tables if spark.catalog.tableExists(f"{dataset}.{t}")]
    if existing:
        note = qualified(dataset, REFRESHED_TABLES_TABLE)
        columns = ", ".join(f"{ident(c)} {kind}" for c, kind in layout(REFRESHED_TABLES_TABLE).items())
        spark.sql(f"create table if not exists {note} ({columns}) using {session_format(spark)}")
        values = ", ".join(f"({literal(package.load_id)}, {literal(t)}, {literal(refresh.mode)})" for t in existing)
        spark.sql(f"insert into {note} select v.*, current_timestamp() from (values {values}) as v(`load_id`, `table_name`, "
                  f"`refresh`) where not exists (select 1 from {note} n where n.`load_id` = v.`load_id` "
                  "and n.`table_name` = v.`table_name`)")
    for table in existing:
        try:
            if table in refresh.dropped:
                spark.sql(f"drop table if exists {qualified(dataset, table)}")
            else:  # nothing of this load landed yet (the mark is written after): every row is an older load's
                spark.sql(f"delete from {qualified(dataset, table)} where {ident(LOAD_ID)} <> {literal(package.load_id)}")
        except Exception as e:  # noqa: BLE001 - rewrapped naming the load and table; a rerun applies the refresh again
            raise PipelineStepFailed("load", f"refresh={refresh.mode}: {type(e).__name__}: {str(e)[:2000]}",
                                     load_id=package.load_id, table=table) from e
    (root / REFRESHED_MARK).touch()
    return existing
