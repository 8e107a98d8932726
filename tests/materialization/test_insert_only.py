"""strategy='insert-only' (dlt's): records whose primary key the table already has are skipped, the
others inserted; nothing is updated or deleted, and a delete row is dropped."""
from __future__ import annotations

import pytest

from ..support.dbt import PACKAGE_TARGETS, TARGETS
from ..support.tables import rows_of, table
from ..support.nested import children

pytestmark = pytest.mark.dbt_targets(*TARGETS)
FLAG = {"deleted": {"data_type": "bool"}}


@pytest.mark.extended("thrift")
@pytest.mark.over_the_wire
@pytest.mark.dbt_targets(*PACKAGE_TARGETS)
def test_insert_only__known_keys_are_skipped_and_new_keys_inserted(spark, stage, dbt, names):
    # load 1: initial
    stage.load([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    dbt.run("io_pk")
    assert table(spark, f"{names.target}.io_pk", "id, name") == rows_of((1, "a"), (2, "b"))
    # load 2: id 1 changed (skipped, not updated), id 3 new
    stage.load([{"id": 1, "name": "a2"}, {"id": 3, "name": "c"}])
    dbt.run("io_pk")
    assert table(spark, f"{names.target}.io_pk", "id, name") == rows_of((1, "a"), (2, "b"), (3, "c"))


@pytest.mark.extended
def test_insert_only__the_oldest_of_several_pending_loads_wins(spark, stage, dbt, names):
    first = stage.load([{"id": 1, "name": "a"}])
    stage.load([{"id": 1, "name": "b"}, {"id": 2, "name": "x"}])
    stage.load([{"id": 1, "name": "c"}, {"id": 2, "name": "y"}])
    dbt.run("io_pk")
    rows = table(spark, f"{names.target}.io_pk", "id, name, _dlt_load_id")
    assert [r[:2] for r in rows] == rows_of((1, "a"), (2, "x"))
    assert rows[0][2] == first


@pytest.mark.extended
def test_insert_only__delete_rows_are_dropped_and_dedup_sort_picks_a_row(spark, stage, dbt, names):
    target = f"{names.target}.io_pk_flag_sort"
    # load 1: a delete row of an unknown key inserts nothing; two rows of id 2: the higher seq wins
    stage.load([{"id": 1, "name": "a", "seq": 1, "deleted": False}, {"id": 9, "name": "gone", "seq": 1, "deleted": True},
                {"id": 2, "name": "low", "seq": 1, "deleted": False}, {"id": 2, "name": "high", "seq": 2, "deleted": False}],
               columns=FLAG)
    dbt.run("io_pk_flag_sort")
    assert table(spark, target, "id, name") == rows_of((1, "a"), (2, "high"))
    # load 2: a delete row of a known key deletes nothing; its new key is inserted once it is not deleted
    stage.load([{"id": 1, "seq": 3, "deleted": True}, {"id": 9, "name": "back", "seq": 2, "deleted": False}], columns=FLAG)
    dbt.run("io_pk_flag_sort")
    assert table(spark, target, "id, name") == rows_of((1, "a"), (2, "high"), (9, "back"))


@pytest.mark.extended
@pytest.mark.over_the_wire
def test_insert_only__duplicate_keys_in_one_load_fail_naming_key_and_load_and_change_nothing(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("io_pk")
    bad = stage.load([{"id": 2, "name": "b"}, {"id": 2, "name": "c"}])
    result = dbt.run("io_pk", expect_success=False)
    assert not result.success
    message = "\n".join(dbt.logs)
    assert f"strategy=insert-only needs one row per primary_key (id) in each load, but id=2 occurs more than once in load {bad}" \
        in " ".join(message.split())
    assert table(spark, f"{names.target}.io_pk", "id, name") == rows_of((1, "a"))


@pytest.mark.extended
def test_insert_only__a_skipped_record_keeps_its_children(spark, stage, dbt, names):
    root, orders = f"{names.target}.cust_io", f"{names.target}.cust_io__orders"
    # load 1: customer 1 with two orders
    stage.load([{"id": 1, "name": "a", "orders": [{"sku": "A"}, {"sku": "B"}]}], table="customers")
    dbt.run("cust_io cust_io__orders")
    # load 2: customer 1 again with other orders (skipped with its orders), customer 2 new
    stage.load([{"id": 1, "name": "a2", "orders": [{"sku": "X"}]}, {"id": 2, "name": "b", "orders": [{"sku": "C"}]}],
               table="customers")
    dbt.run("cust_io cust_io__orders")
    assert table(spark, root, "id, name") == rows_of((1, "a"), (2, "b"))
    assert children(spark, root, orders, "sku") == (rows_of((1, "A"), (1, "B"), (2, "C")), 0)


@pytest.mark.extended
def test_insert_only__without_primary_key_is_refused_before_any_change(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    probe = {"write_disposition": "merge", "strategy": "insert-only", "merge_key": "id"}
    result = dbt.run("config_probe", vars={"probe_config": probe}, expect_success=False)
    message = " ".join((result.result.results[0].message or "").split())
    assert "strategy=insert-only needs primary_key (a column or a list of columns)." in message, message
    assert not spark.catalog.tableExists(f"{names.target}.config_probe")
