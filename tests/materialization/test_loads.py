"""Which loads a model applies: completed loads only (a `_dlt_loads` row with status load_status_in),
each exactly once per model (the ledger), and load-status chaining between stages."""
from __future__ import annotations

import pytest

import python_extract as sl
from python_extract.load import ensure_dataset, land_table

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)
CUSTOMERS_1 = [{"id": 1, "name": "ann", "orders": [{"sku": "A"}]}, {"id": 2, "name": "bob", "orders": []}]
CUSTOMERS_2 = [{"id": 2, "name": "bo", "orders": [{"sku": "B"}]}]


def land_without_completing(stage, spark, rows, table_name="customers"):
    """A load whose tables landed but whose `_dlt_loads` row was never written (the extractor died)."""
    package = stage.pipeline.extract_and_normalize(sl.resource(rows, name=table_name, write_disposition="merge"))
    ensure_dataset(spark, stage.names.staging)
    for t in package.tables():
        land_table(spark, package, t)


@pytest.mark.extended("thrift")
@pytest.mark.over_the_wire
def test_loads__stage_two_consumes_what_stage_one_finished(spark, stage, dbt, names):
    stage1, stage2 = f"{names.target}.stage1_customers", f"{names.target}.stage2_customers"
    stage.load(CUSTOMERS_1, table="customers")
    land_without_completing(stage, spark, [{"id": 9, "name": "incomplete", "orders": [{"sku": "Z"}]}])

    # stage 2 first: nothing has status 1 yet
    dbt.run("stage2_customers")
    assert table(spark, stage2, "id, name") == []
    # stage 1's root applies load 1, but its child model has not: the load keeps status 0
    dbt.run("stage1_customers")
    assert table(spark, stage1, "id, name") == rows_of((1, "ann"), (2, "bob"))  # not the incomplete load
    assert stage.statuses() == [0]
    # the child applies it too: stage 1 is done with load 1, which moves on to status 1
    dbt.run("stage1_customers__orders")
    assert stage.statuses() == [1]
    dbt.run("stage2_customers")
    assert table(spark, stage2, "id, name") == rows_of((1, "ANN"), (2, "BOB"))
    assert stage.statuses() == [2]

    # load 2: the extractor first completes the load it left incomplete; one run takes both loads
    # through both stages, in dependency order
    stage.load(CUSTOMERS_2, table="customers")
    dbt.run("stage1_customers stage1_customers__orders stage2_customers")
    assert table(spark, stage2, "id, name") == rows_of((1, "ANN"), (2, "BO"), (9, "INCOMPLETE"))
    assert stage.statuses() == [2, 2]


@pytest.mark.extended
def test_loads__models_consume_the_same_loads_independently_and_full_refresh_rebuilds(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("di_pk")
    stage.load([{"id": 2, "name": "b"}])
    dbt.run("di_pk up_pk")  # up_pk sees both loads, di_pk only the new one
    for model in ("di_pk", "up_pk"):
        assert table(spark, f"{names.target}.{model}", "id, name") == rows_of((1, "a"), (2, "b")), model
    ledger = spark.sql(f"select target, count(*) n from {names.target}._sparkload_applied_loads group by target").collect()
    assert {r["target"].split(".")[1]: r["n"] for r in ledger} == {"di_pk": 2, "up_pk": 2}

    dbt.invoke("run", "--select", "di_pk", "--full-refresh")
    assert table(spark, f"{names.target}.di_pk", "id, name") == rows_of((1, "a"), (2, "b"))


@pytest.mark.extended
@pytest.mark.over_the_wire
def test_loads__a_refused_load_is_aborted_with_the_command_its_message_names(spark, stage, dbt, names, capsys):
    from python_extract.cli import main

    stage.load([{"id": 1, "name": "a"}])
    dbt.run("up_pk")
    refused = stage.load([{"id": 1, "name": "b"}, {"id": 1, "name": "c"}])  # a key twice: upsert refuses the load
    result = dbt.run("up_pk", expect_success=False)
    message = " ".join("\n".join(dbt.logs).split())
    command = f"sparkload pipeline loads {names.staging} --dataset-name {names.staging} --abort {refused}"
    assert not result.success and command in message
    later = stage.load([{"id": 2, "name": "d"}])
    assert not dbt.run("up_pk", expect_success=False).success  # the refused load blocks every later one
    # the way out: abort it (the CLI, in this process), and `pipeline loads` shows it aborted
    assert main(command.split()[1:] + ["--home", str(stage.pipeline.lakehouse.home)]) == 0
    shown = capsys.readouterr().out
    assert f"load {refused}: aborted (status 0 -> -1)" in shown
    assert f"{refused}  status -1 (aborted)" in shown
    dbt.run("up_pk")
    assert table(spark, f"{names.target}.up_pk", "id, name") == rows_of((1, "a"), (2, "d"))
    assert stage.statuses() == [0, -1, 0]
    ledger = {r["load_id"] for r in spark.sql(f"select load_id from {names.target}._sparkload_applied_loads").collect()}
    assert refused not in ledger and later in ledger


@pytest.mark.extended
@pytest.mark.over_the_wire  # the sparkload adapter lists the schema once; dbt-spark alone asks whether it exists first
def test_loads__a_missing_staging_dataset_or_loads_table_stops_the_run_naming_it(spark, stage, dbt, names):
    probe = {"write_disposition": "merge", "primary_key": "id"}
    for dataset in (f"{names.staging}_none", names.staging):  # no such schema; a schema without `_dlt_loads`
        if dataset == names.staging:
            spark.sql(f"create schema if not exists {dataset}")
        result = dbt.run("config_probe", vars={"probe_config": probe}, staging=dataset, expect_success=False)
        message = " ".join((result.result.results[0].message or "").split())
        assert not result.success
        assert (f"sparkload model config_probe (table {names.target}.config_probe): the loads table {dataset}._dlt_loads "
                "does not exist; run the extractor first, or set loads_dataset.") in message, message
        assert not spark.catalog.tableExists(f"{names.target}.config_probe")
