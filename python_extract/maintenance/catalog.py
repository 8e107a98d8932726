"""What the lakehouse holds, read through its SparkSession: datasets (namespaces), their tables, and
the models' ledgers of applied loads (`_sparkload_applied_loads`, one per target schema, written by
the materialization: macros/helpers/loads.sql; a row without applied_at is a load the target skipped).
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set

from ..contract import APPLIED_LOADS_TABLE
from ..errors import ConfigError
from ..load.sql import ident, literal, qualified



def datasets(spark) -> List[str]:
    return sorted(r[0] for r in spark.sql("show namespaces").collect())


def tables_of(spark, dataset: str) -> List[str]:
    """The tables of `dataset` (views excluded: they hold no files)."""
    rows = spark.sql(f"show tables in {ident(dataset)}").collect()
    return sorted(r["tableName"] for r in rows if not r["isTemporary"])


def lakehouse_tables(spark, only: Optional[Iterable[str]] = None) -> Dict[str, List[str]]:
    """{dataset: [table, ...]} for every dataset, or those named in `only` (an unknown one is an error)."""
    known = datasets(spark)
    wanted = list(only) if only else known
    missing = [d for d in wanted if d not in known]
    if missing:
        raise ConfigError(f"no dataset {', '.join(missing)} in the lakehouse; it holds {', '.join(known) or 'none'}")
    return {d: tables_of(spark, d) for d in wanted}


def skipped_loads(spark, load_ids: Iterable[str]) -> Dict[str, List[str]]:
    """{load id: targets that skipped it}, for the given loads, over the ledgers of every schema: a model skips
    a load for itself alone with `--vars sparkload_skip_loads` (its ledger row has no applied_at)."""
    ledgers = [qualified(d, APPLIED_LOADS_TABLE) for d in datasets(spark) if APPLIED_LOADS_TABLE in tables_of(spark, d)]
    wanted = sorted(set(load_ids))
    if not ledgers or not wanted:
        return {}
    among = ", ".join(literal(i) for i in wanted)
    union = " union all ".join(f"select `target`, `load_id` from {ledger} where `applied_at` is null and `load_id` in ({among})"
                               for ledger in ledgers)
    skipped: Dict[str, List[str]] = {}
    for row in spark.sql(f"{union} order by 2, 1").collect():
        skipped.setdefault(row["load_id"], []).append(row["target"])
    return skipped


def applied_loads(spark) -> Dict[str, Set[str]]:
    """{target table: load ids it applied}, over the ledgers of every schema of the lakehouse."""
    ledgers = [qualified(d, APPLIED_LOADS_TABLE) for d in datasets(spark) if APPLIED_LOADS_TABLE in tables_of(spark, d)]
    if not ledgers:
        return {}
    union = " union all ".join(f"select `target`, `load_id` from {ledger}" for ledger in ledgers)
    applied: Dict[str, Set[str]] = {}
    for row in spark.sql(union).collect():
        applied.setdefault(row["target"], set()).add(row["load_id"])
    return applied
