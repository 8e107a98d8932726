"""Nested tables: child models (config root_model) keep `<table>__<child>` targets consistent with
their root table: replaced or deleted roots lose their child rows, scd2 roots only gain children of
new versions, a replaced root table replaces its children."""
from __future__ import annotations

import pytest

from ..support.dbt import PACKAGE_TARGETS, TARGETS
from ..support.nested import FLAG, LOAD_1, LOAD_2, LOAD_3, children
from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)


@pytest.mark.extended("thrift", "spark_session")  # the package alone walks the same child statements in test_upsert's wire variant
@pytest.mark.over_the_wire
@pytest.mark.dbt_targets(*PACKAGE_TARGETS)
def test_nested__replaced_and_deleted_roots_lose_their_children(spark, stage, dbt, names):
    root, orders, lines = (f"{names.target}.{m}" for m in ("cust_di", "cust_di__orders", "cust_di__orders__lines"))
    # load 1: two customers with orders and order lines
    stage.load(LOAD_1, table="customers", columns=FLAG)
    dbt.run("cust_di cust_di__orders cust_di__orders__lines")
    assert children(spark, root, orders, "sku") == (rows_of((1, "A"), (1, "B"), (2, "C")), 0)
    assert children(spark, root, lines, "q") == (rows_of((1, 1), (1, 2), (2, 3)), 0)
    # load 2: customer 1 replaced, customer 2 deleted
    stage.load(LOAD_2, table="customers", columns=FLAG)
    dbt.run("cust_di cust_di__orders cust_di__orders__lines")
    assert table(spark, root, "id, name") == rows_of((1, "a2"))
    assert children(spark, root, orders, "sku") == (rows_of((1, "D")), 0)
    assert children(spark, root, lines, "q") == (rows_of(), 0)
    # load 3: a new customer; customer 1 absent keeps its children
    stage.load(LOAD_3, table="customers", columns=FLAG)
    dbt.run("cust_di cust_di__orders cust_di__orders__lines")
    assert children(spark, root, orders, "sku") == (rows_of((1, "D"), (3, "E")), 0)
    assert children(spark, root, lines, "q") == (rows_of((3, 5)), 0)


@pytest.mark.extended
def test_nested__a_child_model_catches_up_with_its_root(spark, stage, dbt, names):
    root, orders = f"{names.target}.cust_up", f"{names.target}.cust_up__orders"
    stage.load(LOAD_1, table="customers", columns=FLAG)
    dbt.run("cust_up cust_up__orders")
    # loads 2 and 3 each reach the root before the child runs; the child then follows both
    stage.load(LOAD_2, table="customers", columns=FLAG)
    dbt.run("cust_up")
    stage.load([{"id": 1, "name": "a3", "orders": [{"sku": "F"}, {"sku": "G"}]}, *LOAD_3], table="customers", columns=FLAG)
    dbt.run("cust_up")
    assert children(spark, root, orders, "sku") == ([], 3)  # behind its root: all three orders belong to replaced roots
    dbt.run("cust_up__orders")
    assert table(spark, root, "id, name") == rows_of((1, "a3"), (3, "c"))
    assert children(spark, root, orders, "sku") == (rows_of((1, "F"), (1, "G"), (3, "E")), 0)


@pytest.mark.extended
@pytest.mark.over_the_wire
def test_nested__scd2_children_are_added_with_new_versions_only(spark, stage, dbt, names):
    root, orders = f"{names.target}.cust_scd2", f"{names.target}.cust_scd2__orders"
    stage.load(LOAD_1, table="customers", columns=FLAG)
    dbt.run("cust_scd2 cust_scd2__orders")
    stage.load(LOAD_2, table="customers", columns=FLAG)
    dbt.run("cust_scd2 cust_scd2__orders")
    # customer 1: the retired version keeps orders A, B, the new one has D; customer 2 retired, keeps C
    joined = spark.sql(f"select r.id, r.name, c.sku from {orders} c join {root} r on c._dlt_root_id = r._dlt_id").collect()
    assert rows_of(*[tuple(r) for r in joined]) == rows_of((1, "a", "A"), (1, "a", "B"), (1, "a2", "D"), (2, "b", "C"))
    assert "_dlt_valid_from" not in spark.table(orders).columns
    assert table(spark, root, "id, name, _dlt_valid_to is null") == rows_of((1, "a", False), (1, "a2", True), (2, "b", False))


@pytest.mark.extended
def test_nested__a_replaced_root_replaces_its_children(spark, stage, dbt, names):
    root, orders = f"{names.target}.cust_rep", f"{names.target}.cust_rep__orders"
    stage.load(LOAD_1, table="customers", columns=FLAG)
    dbt.run("cust_rep cust_rep__orders")
    stage.load(LOAD_3, table="customers", columns=FLAG)
    dbt.run("cust_rep cust_rep__orders")
    assert table(spark, root, "id, name") == rows_of((3, "c"))
    assert children(spark, root, orders, "sku") == (rows_of((3, "E")), 0)
