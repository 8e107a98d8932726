"""The status line counts rows changed in the target (issue 40 item 5): `APPLIED` says the rows inserted,
updated (scd2: retired) and deleted, and the staged rows that changed nothing, from the format's own
numbers (Delta: the MERGE's result; Iceberg: the snapshot's summary; a created table: its count). Where
Iceberg cannot tell an update from an insert or a delete (upsert with hard_delete) the line says the two
sums it knows and dbt's rows_affected is -1 (docs/materialization.md, "The status line")."""
from __future__ import annotations

import os
from typing import Dict, Tuple

import pytest

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = [pytest.mark.dbt_targets(*TARGETS), pytest.mark.each_format]
FLAG = {"deleted": {"data_type": "bool"}}


def table_format() -> str:
    return os.environ["SPARKLOAD_TABLE_FORMAT"]  # the run's format (tests/support/run_setup.py)


def shown(result) -> Dict[str, Tuple[str, int]]:
    """Each model's status line and rows_affected, as dbt recorded them."""
    return {r.node.name: (r.message, r.adapter_response.get("rows_affected")) for r in result.result.results}


@pytest.mark.extended("delta")
def test_row_counts__an_upsert_counts_a_late_row_under_sequence_by_as_ignored(spark, stage, dbt, names):
    # load 1: two new keys: the table is created with them
    stage.load([{"id": 1, "seq": 5, "name": "a5"}, {"id": 2, "seq": 1, "name": "b1"}], columns=FLAG)
    assert shown(dbt.run("seq_up"))["seq_up"] == ("APPLIED 2 inserted from 1 load", 2)
    # load 2: id 1 at seq 3 is late (older than the table's row), id 2 at seq 2 wins, id 3 is new, the
    # delete of id 9 finds no row
    stage.load([{"id": 1, "seq": 3, "name": "a3"}, {"id": 2, "seq": 2, "name": "b2"}, {"id": 3, "seq": 1, "name": "c1"},
                {"id": 9, "seq": 1, "deleted": True}], columns=FLAG)
    line = shown(dbt.run("seq_up"))["seq_up"]
    assert table(spark, f"{names.target}.seq_up", "id, seq, name") == rows_of((1, 5, "a5"), (2, 2, "b2"), (3, 1, "c1"))
    assert line == {
        "delta": ("APPLIED 1 inserted, 1 updated (2 staged rows ignored) from 1 load", 2),
        # merge-on-read: 2 rows added (id 3 inserted, id 2 updated), 1 position deleted (id 2's old row)
        "iceberg": ("APPLIED 2 inserted or updated, 1 updated or deleted from 1 load", -1),
    }[table_format()]


@pytest.mark.extended
def test_row_counts__scd2_counts_a_changed_record_as_retired_and_inserted(spark, stage, dbt, names):
    stage.load([{"customer_key": 1, "c1": "foo", "c2": 1}, {"customer_key": 2, "c1": "bar", "c2": 2}], table="dim_customer")
    assert shown(dbt.run("scd2_full"))["scd2_full"] == ("APPLIED 2 inserted from 1 load", 2)
    # load 2: customer 1 changed, customer 2 unchanged, customer 3 new
    stage.load([{"customer_key": 1, "c1": "foo_updated", "c2": 1}, {"customer_key": 2, "c1": "bar", "c2": 2},
                {"customer_key": 3, "c1": "baz", "c2": 3}], table="dim_customer")
    assert shown(dbt.run("scd2_full"))["scd2_full"] == ("APPLIED 2 inserted, 1 retired from 1 load", 3)
    assert len(table(spark, f"{names.target}.scd2_full", "customer_key")) == 4


@pytest.mark.extended("delta", "thrift")
@pytest.mark.over_the_wire
def test_row_counts__a_hard_delete_counts_as_deleted(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "foo", "deleted": False}, {"id": 2, "name": "bar", "deleted": False}], columns=FLAG)
    dbt.run("di_pk_flag up_pk_flag")
    # load 2: delete id 1, delete id 9 (absent), update id 2
    stage.load([{"id": 1, "deleted": True}, {"id": 9, "deleted": True}, {"id": 2, "name": "baz", "deleted": False}], columns=FLAG)
    lines = shown(dbt.run("di_pk_flag up_pk_flag"))
    for model in ("di_pk_flag", "up_pk_flag"):
        assert table(spark, f"{names.target}.{model}", "id, name") == rows_of((2, "baz"))
    # delete-insert replaces id 2 by deleting its row and inserting the new one
    assert lines["di_pk_flag"] == ("APPLIED 1 inserted, 2 deleted from 1 load", 3)
    assert lines["up_pk_flag"] == {
        "delta": ("APPLIED 1 updated, 1 deleted (1 staged row ignored) from 1 load", 2),
        "iceberg": ("APPLIED 1 inserted or updated, 2 updated or deleted from 1 load", -1),
    }[table_format()]


@pytest.mark.extended
def test_row_counts__a_full_refresh_counts_a_root_and_its_child_by_the_rows_they_hold(spark, stage, dbt, names):
    # load 1: two customers with three orders; load 2: customer 1 again, with one order
    stage.load([{"id": 1, "name": "a", "orders": [{"sku": "A"}, {"sku": "B"}]}, {"id": 2, "name": "b", "orders": [{"sku": "C"}]}],
               table="customers", columns=FLAG)
    stage.load([{"id": 1, "name": "a2", "orders": [{"sku": "D"}]}], table="customers", columns=FLAG)
    lines = shown(dbt.invoke("run", "--select", "cust_up cust_up__orders", "--full-refresh"))
    assert table(spark, f"{names.target}.cust_up__orders", "sku") == rows_of(("C",), ("D",))
    # each counts the rows its rebuilt table holds (on main the root counted its 3 staged rows)
    # (the root's staged row of customer 1 in load 1 is superseded by load 2's: ignored)
    assert lines == {"cust_up": ("APPLIED 2 inserted (1 staged row ignored) from 2 loads", 2),
                     "cust_up__orders": ("APPLIED 2 inserted from 2 loads", 2)}
