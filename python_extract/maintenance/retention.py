"""Staging retention: `sparkload pipeline expire NAME --older-than 7d [--dry-run]` deletes the staging
rows of old loads that every model consuming the dataset has applied, and keeps everything else.

- The consumers of a dataset are the targets whose ledger (`_sparkload_applied_loads`, in each target
  schema) lists one of its loads; a load expires only when it is older than the cut-off (its
  `_dlt_loads.inserted_at`) and every consumer applied it. A dataset no model applied anything from
  keeps every load.
- What goes: the rows of those loads in the dataset's data tables (root and child tables, one DELETE
  per table). What stays: `_dlt_loads` (the models' record of completed loads), state and schema
  tables, and every row of a load some consumer has not applied.
- What is noted: the expired loads, in `_sparkload_expired_loads` (before their rows go), so a model's
  `dbt run --full-refresh` that would rebuild without them refuses, naming them (validate.sql).
- The report counts rows and the data files that held only expired rows: they leave the table's
  current snapshot now, and the disk once `sparkload lakehouse maintain` expires the snapshots that
  still reference them.

A model added later starts from the loads still in staging; a full refresh of a model that applied an
expired load refuses unless told to rebuild from what is left, so keep `--older-than` longer than the
history a rebuild needs.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Dict, List

from ..errors import ConfigError
from ..timeutil import SPAN_UNITS as UNITS, parse_span
from ..contract import EXPIRED_LOADS_TABLE, LOAD_ID, LOADS_TABLE, layout
from ..load.sql import ident, literal, qualified
from .catalog import applied_loads, datasets, tables_of


def parse_duration(text: str) -> dt.timedelta:
    """'7d', '12h', '30m', '45s' (or plain seconds) as a timedelta (`timeutil.parse_span`).

    >>> parse_duration("7d")
    datetime.timedelta(days=7)
    """
    span = parse_span(text)
    if span is None:
        raise ConfigError(f"--older-than {text!r} is not a duration; expected <n>s, <n>m, <n>h or <n>d, e.g. 7d")
    return span


def _human(duration: dt.timedelta) -> str:
    seconds = int(duration.total_seconds())
    unit = next(u for u in ("d", "h", "m", "s") if seconds % UNITS[u] == 0 and seconds >= UNITS[u]) if seconds else "s"
    return f"{seconds // UNITS[unit]}{unit}"


@dataclass
class ExpireReport:
    dataset: str
    older_than: dt.timedelta
    dry_run: bool
    consumers: List[str] = field(default_factory=list)
    expired_loads: List[str] = field(default_factory=list)
    kept_loads: Dict[str, str] = field(default_factory=dict)  # load id -> why it stays
    rows: Dict[str, int] = field(default_factory=dict)         # table -> rows deleted (dry run: to delete)
    files: Dict[str, int] = field(default_factory=dict)        # table -> data files holding only those rows

    def lines(self) -> List[str]:
        verb = "would delete" if self.dry_run else "deleted"
        head = (f"dataset {self.dataset}: {len(self.expired_loads)} load(s) older than {_human(self.older_than)} applied by every "
                f"consumer ({', '.join(self.consumers) or 'none'}); {verb} {sum(self.rows.values()):,} rows, "
                f"{sum(self.files.values())} data files")
        return [head] + [f"  {t}: {self.rows[t]:,} rows, {self.files.get(t, 0)} files" for t in sorted(self.rows)] + [
            f"  kept {load}: {why}" for load, why in sorted(self.kept_loads.items())]


def expire_loads(spark, dataset: str, older_than: dt.timedelta, dry_run: bool = False) -> ExpireReport:
    """Delete (or, with `dry_run`, count) the staging rows of `dataset`'s expirable loads."""
    report = ExpireReport(dataset, older_than, dry_run)
    if dataset not in datasets(spark):
        raise ConfigError(f"no dataset {dataset} in the lakehouse: check the pipeline name or --dataset-name")
    tables = tables_of(spark, dataset)
    if LOADS_TABLE not in tables:
        raise ConfigError(f"dataset {dataset} has no {LOADS_TABLE} table: no load completed there")
    seconds = int(older_than.total_seconds())
    loads = {r["load_id"]: r["old"] for r in spark.sql(
        f"select `load_id`, `inserted_at` < current_timestamp() - make_dt_interval(0, 0, 0, {seconds}) as old "
        f"from {qualified(dataset, LOADS_TABLE)}").collect()}
    consumers = {target: ids & loads.keys() for target, ids in applied_loads(spark).items() if ids & loads.keys()}
    report.consumers = sorted(consumers)
    for load_id, old in sorted(loads.items()):
        missing = [t for t, ids in sorted(consumers.items()) if load_id not in ids]
        if not old:
            report.kept_loads[load_id] = f"younger than {_human(older_than)}"
        elif not consumers:
            report.kept_loads[load_id] = "no model has applied a load of this dataset"
        elif missing:
            report.kept_loads[load_id] = f"not applied by {', '.join(missing)}"
        else:
            report.expired_loads.append(load_id)
    if not report.expired_loads:
        return report
    ids = ", ".join(literal(i) for i in report.expired_loads)
    if not dry_run:
        _note_expired(spark, dataset, report.expired_loads)
    for table in tables:
        if table.startswith(("_dlt_", "_sparkload_")):
            continue
        relation = qualified(dataset, table)
        per_file = spark.sql(f"select count(*) as n, count_if({ident(LOAD_ID)} in ({ids})) as e from {relation} "
                             "group by input_file_name()").collect()
        rows = sum(r["e"] for r in per_file)
        if rows:
            report.rows[table] = rows
            report.files[table] = sum(1 for r in per_file if r["e"] == r["n"])
            if not dry_run:
                spark.sql(f"delete from {relation} where {ident(LOAD_ID)} in ({ids})")
    return report


def _note_expired(spark, dataset: str, load_ids: List[str]) -> None:
    """Add `load_ids` to the dataset's `_sparkload_expired_loads` (made on first use), each once."""
    from ..lakehouse import session_format

    relation = qualified(dataset, EXPIRED_LOADS_TABLE)
    columns = ", ".join(f"{ident(c)} {kind}" for c, kind in layout(EXPIRED_LOADS_TABLE).items())
    spark.sql(f"create table if not exists {relation} ({columns}) using {session_format(spark)}")
    values = ", ".join(f"({literal(i)})" for i in load_ids)
    spark.sql(f"insert into {relation} select v.`load_id`, current_timestamp() from (values {values}) as v(`load_id`) "
              f"where v.`load_id` not in (select `load_id` from {relation})")
