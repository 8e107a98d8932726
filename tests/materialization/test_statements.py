"""The fixed cost of a model run, counted: the statements the materialization sends for one model that
applies one load to an existing table, per strategy. A new statement per run is a cost every model pays
on every run (benchmarks/bench_merge.py --statements shows their seconds), so adding one must be a
decision that changes this test, not an accident."""
from __future__ import annotations

import os
import re

from ..support.tables import rows_of, table

# what each run sends, in order: `show tables` of the staging dataset (the loads tables exist?), the
# pending loads in two statements (the run's `_dlt_loads` against its models' ledger, then `_sparkload_load_tables`
# of the pending load ids as literals), the batch and the table described in one query, the batch statistics, the strategy's
# one statement, the ledger entry; scd2 also lists its family (the nested staging tables `<table>__*`
# whose rows are part of a version's content) with a second `show tables`; on Iceberg, whose MERGE returns no
# counts, the committed snapshot's summary for the status line's rows inserted, updated and deleted; then, as
# the run's last model and the run wrote a ledger entry, the ledger's compaction check (helpers/run_loads.sql:
# Iceberg's rewrite_data_files, which commits nothing below 20 files; Delta's describe history), once per run
EXPECTED = {"di_pk": 8, "up_pk": 8, "io_pk": 8, "scd2_full": 9}
if os.environ.get("SPARKLOAD_TABLE_FORMAT") == "iceberg":
    EXPECTED = {model: count + 1 for model, count in EXPECTED.items()}


def _statements(dbt, model: str) -> list:
    """The first words of each statement dbt sent for `model` in the last invocation."""
    return [" ".join(re.sub(r"/\*.*?\*/", "", sql, flags=re.S).split())[:70] for node, sql in dbt.queries if node == model]


def test_statements__one_load_into_an_existing_table_costs_a_fixed_number_of_statements(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    stage.load([{"customer_id": 1, "name": "Ann"}], table="dim_customer")
    dbt.invoke("run", "--select", *EXPECTED)  # creates the tables
    stage.load([{"id": 2, "name": "b2"}, {"id": 3, "name": "c"}])
    dbt.run("scd2_full")  # a load without its rows: only its ledger entry (scd2 applies one load per statement)
    stage.load([{"customer_id": 1, "name": "Anna"}], table="dim_customer")

    counted = {}
    for model in EXPECTED:  # each applies exactly one load that brings it rows
        dbt.queries.clear()
        dbt.run(model)
        counted[model] = _statements(dbt, model)

    assert {m: len(s) for m, s in counted.items()} == EXPECTED, "\n".join(
        f"{m}: " + " | ".join(s) for m, s in counted.items())
    assert table(spark, f"{names.target}.up_pk", "id, name") == rows_of((1, "a"), (2, "b2"), (3, "c"))
    assert table(spark, f"{names.target}.scd2_full", "customer_id, name") == rows_of((1, "Ann"), (1, "Anna"))
