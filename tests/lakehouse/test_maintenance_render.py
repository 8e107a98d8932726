"""The maintenance macros rendered with dbt's own Jinja and a stub adapter (no JVM, no dbt run): the statements a
dataset's dry run sends (issue 40 item 7: the health of every table in one statement on Iceberg, one plus
DESCRIBE DETAIL and HISTORY per table on Delta), each identifier quoted and each name escaped, and the single-table
path a model's maintenance takes after its commit reporting what the dataset's reports. What the statements
return is judged on real Spark (test_maintenance.py)."""
from __future__ import annotations

import json
import re

import agate
import pytest

from ..support.macros import Package, Relation

pytestmark = pytest.mark.fast

TABLES = ["raw.a", "raw.b`c", "raw.d'e"]
NAMED = re.compile(r"'((?:[^'\\]|\\.)*)' as `sparkload_table`")
ICEBERG = ("data_files", "small_files", "delete_files", "data_rows", "deleted_rows", "data_bytes", "snapshots",
           "expirable", "expire_before", "orphans_before")


def answer(sql: str) -> agate.Table:
    """What Spark would answer `sql` on tables of one small file each."""
    names = [re.sub(r"\\(.)", r"\1", n) for n in NAMED.findall(sql)]
    if "`files`" in sql:
        return agate.Table([[1, 1, 0, 2, 0, 100, 1, 0, "2026-11-21 00:00:00", "2026-11-25 00:00:00", n] for n in names],
                           [*ICEBERG, "sparkload_table"])
    if "count(*)" in sql:
        return agate.Table([[n, 2, "2026-11-21 00:00:00"] for n in names], ["sparkload_table", "n", "before"])
    if sql.startswith("describe detail"):
        return agate.Table([[1, 100]], ["numFiles", "sizeInBytes"])
    if sql.startswith("describe history"):
        return agate.Table([[1, "2026-11-28 00:00:00", "WRITE", "{}"]], ["version", "timestamp", "operation", "operationMetrics"])
    if "remove_orphan_files" in sql:
        return agate.Table([], ["orphan_file_location"])
    raise AssertionError(f"unexpected statement {sql}")


def dry_run(file_format: str, tables=None, relation=None):
    """(statements, reports) of `sparkload_maintain` on `tables`, or of `run_sparkload_maintenance` on `relation`."""
    package, statements, logged = Package(), [], []
    package.ctx.update(run_query=lambda sql: statements.append(" ".join(sql.split())) or answer(statements[-1]),
                       tojson=json.dumps, log=lambda msg, info=False: logged.append(msg) or "")
    if relation is not None:
        policy = package["validate_sparkload_maintenance"](True, "test")
        return statements, [package["run_sparkload_maintenance"](relation, file_format, policy, True)]
    package["sparkload_maintain"](tables, file_format, True, True)
    return statements, [json.loads(line.split(" ", 2)[2]) for line in logged]


@pytest.mark.parametrize("file_format, per_table", [("iceberg", ["call system.remove_orphan_files"]),
                                                     ("delta", ["describe detail", "describe history"])])
def test_render__a_datasets_dry_run_reads_every_tables_health_in_one_statement(file_format, per_table):
    statements, reports = dry_run(file_format, TABLES)
    assert len(statements) == 1 + len(per_table) * len(TABLES), statements
    assert statements[0].count(" union all ") == len(TABLES) - 1
    assert all(f"from `raw`.`{t}`" in statements[0] for t in ("a", "b``c", "d'e"))
    assert "'raw.b`c' as `sparkload_table`" in statements[0] and r"'raw.d\'e' as `sparkload_table`" in statements[0]
    assert [s.split(" `raw`")[0].split("(")[0] for s in statements[1:]] == [p for _ in TABLES for p in per_table]
    assert [r["table"] for r in reports] == TABLES and all(r["health"]["data_files"] == 1 for r in reports)
    # the path a model's maintenance takes after its commit: its own health, the same report
    alone, [report] = dry_run(file_format, relation=Relation("raw", "d'e"))
    assert len(alone) == 1 + len(per_table) and report == reports[2]
