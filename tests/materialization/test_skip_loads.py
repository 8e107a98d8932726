"""A load one model cannot apply is skipped for that model only (issue 40 item 3): the model's error offers
`--vars "{sparkload_skip_loads: {<model>: ['<load id>']}}"` before `--abort` (which affects every consumer);
the skip is recorded in the model's ledger (applied_at NULL), shown by `sparkload pipeline loads`, followed by
the model's child models, kept by a full refresh, and every other model still applies the load."""
from __future__ import annotations

import re

import pytest
import yaml

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)
FLAG = {"deleted": {"data_type": "bool"}}


def messages(result):
    return {r.node.name: " ".join((r.message or "").split()) for r in result.result.results}


def skip_vars(message: str) -> dict:
    """The `--vars` the refusal offers, as dbt would read them."""
    found = re.search(r'dbt run --select (\S+) --vars "(\{sparkload_skip_loads: .*?\}\})"', message)
    assert found, message
    return yaml.safe_load(found.group(2))


def ledger(spark, names, model: str):
    rows = spark.sql(f"select load_id, applied_at is null skipped from {names.target}._sparkload_applied_loads "
                     f"where target = '{names.target}.{model}'").collect()
    return sorted((r["load_id"], r["skipped"]) for r in rows)


@pytest.mark.extended("thrift")  # the ledger's statements are the same over the wire (test_upsert's wire variant writes it)
@pytest.mark.over_the_wire
def test_skip_loads__a_refused_load_is_skipped_for_that_model_only_and_recorded_in_its_ledger(spark, stage, dbt, names, capsys):
    from python_extract.cli import main

    up, di = f"{names.target}.up_pk", f"{names.target}.di_pk"
    # load 1: both models apply it
    first = stage.load([{"id": 1, "name": "a"}])
    dbt.run("up_pk di_pk")
    # load 2: a key twice, which upsert refuses and delete-insert takes
    refused = stage.load([{"id": 1, "name": "b"}, {"id": 1, "name": "b"}])
    result = dbt.run("up_pk di_pk", expect_success=False)
    message = messages(result)["up_pk"]
    assert (f"To skip the load for this model only (recorded in its ledger; every other model still applies it): dbt run "
            f"--select up_pk --vars \"{{sparkload_skip_loads: {{up_pk: ['{refused}']}}}}\". To skip it for every model that "
            f"reads it instead (--abort affects every consumer of dataset {names.staging}") in message
    # load 3: a new key, blocked behind load 2 for up_pk
    later = stage.load([{"id": 2, "name": "d"}])

    # a load id the model does not have pending is refused, and nothing changes
    wrong = dbt.run("up_pk", vars={"sparkload_skip_loads": {"up_pk": ["1700000000.1"]}}, expect_success=False)
    assert (f"--vars sparkload_skip_loads names load 1700000000.1, which is not a load this model has to apply "
            f"(pending: {refused}, {later};") in messages(wrong)["up_pk"]
    assert table(spark, up, "id, name") == rows_of((1, "a")) and ledger(spark, names, "up_pk") == [(first, False)]

    # the skip the message offers: up_pk skips load 2 and applies load 3
    skip = skip_vars(message)
    assert skip == {"sparkload_skip_loads": {"up_pk": [refused]}}
    done = dbt.run("up_pk", vars=skip)
    assert messages(done)["up_pk"] == f"APPLIED 1 inserted from 1 load; SKIPPED load {refused} for this model only"
    assert table(spark, up, "id, name") == rows_of((1, "a"), (2, "d"))
    assert ledger(spark, names, "up_pk") == [(first, False), (refused, True), (later, False)]
    assert stage.statuses() == [0, 0, 0]  # not aborted: the load stays every other model's
    # another model still applies it
    dbt.run("di_pk")
    assert table(spark, di, "id, name") == rows_of((1, "b"), (2, "d"))
    # `pipeline loads` shows who skipped it
    assert main(["pipeline", "loads", names.staging, "--dataset-name", names.staging,
                 "--home", str(stage.pipeline.lakehouse.home)]) == 0
    shown = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert shown[refused].endswith(f"  skipped by {up} (sparkload_skip_loads)")
    assert "skipped by" not in shown[first] + shown[later]

    # a rerun with the same var changes nothing; a full refresh keeps the skip
    again = dbt.run("up_pk", vars=skip)
    assert messages(again)["up_pk"] == "NO-OP: no pending loads"
    dbt.invoke("run", "--select", "up_pk", "--full-refresh")
    assert table(spark, up, "id, name") == rows_of((1, "a"), (2, "d"))
    assert ledger(spark, names, "up_pk") == [(first, False), (refused, True), (later, False)]


@pytest.mark.extended
def test_skip_loads__a_child_model_skips_what_its_root_skipped(spark, stage, dbt, names):
    root, orders = f"{names.target}.cust_up", f"{names.target}.cust_up__orders"
    # load 1: a customer with an order
    first = stage.load([{"id": 1, "name": "a", "deleted": False, "orders": [{"sku": "A"}]}], table="customers", columns=FLAG)
    dbt.run("cust_up cust_up__orders")
    # load 2: customer 1 twice (refused by the upsert root), then load 3: a new customer
    refused = stage.load([{"id": 1, "name": "b", "orders": [{"sku": "B"}]}, {"id": 1, "name": "c", "orders": [{"sku": "C"}]}],
                         table="customers", columns=FLAG)
    message = messages(dbt.run("cust_up cust_up__orders", expect_success=False))["cust_up"]
    later = stage.load([{"id": 2, "name": "d", "orders": [{"sku": "D"}]}], table="customers", columns=FLAG)

    # naming the child is refused: it follows its root
    child_named = dbt.run("cust_up__orders", vars={"sparkload_skip_loads": {"cust_up__orders": [refused]}}, expect_success=False)
    assert ("--vars sparkload_skip_loads names the child model `cust_up__orders`; a child model skips the loads its root "
            "skips: name its root model `cust_up` instead.") in messages(child_named)["cust_up__orders"]

    done = messages(dbt.run("cust_up cust_up__orders", vars=skip_vars(message)))
    assert done["cust_up"] == f"APPLIED 1 inserted from 1 load; SKIPPED load {refused} for this model only"
    assert done["cust_up__orders"].endswith(f"; SKIPPED load {refused} for this model only")
    assert table(spark, root, "id, name") == rows_of((1, "a"), (2, "d"))
    assert table(spark, orders, "sku") == rows_of(("A",), ("D",))
    assert ledger(spark, names, "cust_up__orders") == [(first, False), (refused, True), (later, False)]
