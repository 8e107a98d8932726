"""Tables read back for whole-table asserts: `rows` (dicts, without the dlt columns), `table` (sorted
tuples, timestamps read as load labels) and `rows_of` (expected rows sorted as `table` sorts them)."""
from __future__ import annotations

import datetime as dt
from typing import Any, Dict, List, Optional, Sequence


def rows(spark, sql: str, *, drop=("_dlt_id", "_dlt_load_id")) -> List[Dict[str, Any]]:
    """The result of `sql` as a list of dicts without the given columns, for whole-table asserts."""
    return [{k: v for k, v in r.asDict().items() if k not in drop} for r in spark.sql(sql).collect()]


def table(spark, relation: str, columns: str, labels: Optional[Dict[Any, str]] = None) -> List[tuple]:
    """The whole table as sorted tuples of `columns`; timestamps found in `labels` read as their label."""
    def value(v):
        return labels.get(v, v) if labels and isinstance(v, dt.datetime) else v
    found = spark.sql(f"select {columns} from {relation}").collect()
    return sorted((tuple(value(v) for v in r) for r in found), key=lambda t: tuple((x is None, str(x)) for x in t))


def rows_of(*rows: Sequence[Any]) -> List[tuple]:
    """Expected table rows, sorted as `table` sorts them."""
    return sorted((tuple(r) for r in rows), key=lambda t: tuple((x is None, str(x)) for x in t))
