"""A run killed at a target's commit (SIGKILL, a real second process) and run again ends with exactly
the tables of an uninterrupted run: every strategy is idempotent, so the load whose ledger entry the
crash prevented is applied again without changing anything.

One `dbt run` in a child process applies the pending loads to a model of every strategy at once
(threads); each model stops at its crash point (integration_tests/macros/crash_points.sql): after its
commit, or, for a root with child models, after it logged the root rows it removes, or, for a sequenced
model with hard_delete (one per run), after its tombstones' MERGE committed. The test kills the process
once all got there, reruns in this process and compares every table with the same models built without
interruption in another schema. Skipped on Delta: its Derby metastore admits one JVM at a time."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ..support.dbt import Dbt, Names, dbt_env
from ..support.paths import INTEGRATION
from ..support.dbt import TARGETS
from ..support.tables import rows_of, table
from ..support.nested import FLAG, LOAD_1, LOAD_2

pytestmark = pytest.mark.dbt_targets(*TARGETS)
CRASH_POINTS = {
    "di_pk_flag": "after_commit", "up_pk_flag": "after_commit", "scd2_nk": "after_commit",
    "append_items": "after_commit", "replace_items": "after_commit",
    "cust_up": "after_commit", "cust_di": "after_removed_roots",  # roots of the child models below
}
CHILDREN = {"cust_up": ["cust_up__orders"], "cust_di": ["cust_di__orders", "cust_di__orders__lines"]}
# `--suite ci` kills one run of an upsert with hard deletes, an scd2 and a root killed after logging the roots it
# removes, with its children; the other strategies' commits are the same kind of point (make test-all kills them too)
CORE = ("up_pk_flag", "scd2_nk", "cust_di")


def crashed_run(names: Names, lakehouse, spark, log: Path, points=CRASH_POINTS) -> None:
    """`dbt run` of the `points` models in a child process, killed once each reached its point."""
    models = list(points)
    spark.sql(f"create schema if not exists {names.target}")
    spark.sql(f"create table if not exists {names.target}._crash_points (target string)")
    # a blocked model holds a task slot (it sleeps in a Spark task): one slot per model and then some
    env = {**os.environ, "SPARKLOAD_HOME": str(lakehouse.home), **dbt_env(names),
           "SPARKLOAD_MASTER": f"local[{2 * len(models) + 2}]"}
    dbt = Path(sys.executable).with_name("dbt")
    cli = [str(dbt), "run", "--select", " ".join(models), "--threads", str(len(models)), "--target", "embedded",
           "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION),
           "--vars", yaml.safe_dump({"sparkload_crash_points": points})]
    process = subprocess.Popen(cli, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if spark.sql(f"select count(*) n from {names.target}._crash_points").first()["n"] >= len(models):
                break
            time.sleep(1)
        reached = spark.sql(f"select target from {names.target}._crash_points").collect()
        assert process.poll() is None and time.monotonic() < deadline, (
            f"the child dbt stopped at {[r[0] for r in reached]} of {models}:\n" + log.read_text(errors="replace")[-3000:])
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


def contents(spark, relation):
    return sorted(tuple(str(v) for v in r) for r in spark.sql(f"select * from {relation}").collect())


def skip_on_delta(spark):
    from python_extract.lakehouse import session_format

    if session_format(spark) == "delta":
        pytest.skip("a Delta lakehouse keeps its tables in a Derby metastore, which admits one JVM at a time")


@pytest.mark.parametrize("points", [
    pytest.param({m: p for m, p in CRASH_POINTS.items() if m in CORE}, id="core"),
    pytest.param({m: p for m, p in CRASH_POINTS.items() if m not in CORE}, id="others", marks=pytest.mark.extended)])
def test_faults__killed_at_a_commit_then_rerun_gives_the_uninterrupted_result(spark, lakehouse, stage, dbt, names, tmp_path,
                                                                             points):
    skip_on_delta(spark)
    reference = Dbt(Names(staging=names.staging, target=names.target + "_ref"), dbt.target)
    everything = " ".join([*points, *(child for model in points for child in CHILDREN.get(model, []))])
    # load 1, applied without interruption to both schemas
    stage.load([{"id": 1, "name": "a", "deleted": False}, {"id": 2, "name": "b", "deleted": False}], columns=FLAG)
    stage.load([{"customer_key": 1, "c1": "foo"}, {"customer_key": 2, "c1": "bar"}], table="dim_customer")
    stage.load(LOAD_1, table="customers", columns=FLAG)
    dbt.run(everything)
    reference.run(everything)
    # loads 2 and 3 pending (scd2 applies them one per statement, so it crashes between them)
    pending = [
        stage.load([{"id": 1, "deleted": True}, {"id": 3, "name": "c", "deleted": False}], columns=FLAG),
        stage.load([{"customer_key": 1, "c1": "foo2"}], table="dim_customer"),
        stage.load([{"customer_key": 2, "c1": "bar2"}, {"customer_key": 3, "c1": "baz"}], table="dim_customer"),
        stage.load(LOAD_2, table="customers", columns=FLAG),
    ]

    crashed_run(names, lakehouse, spark, tmp_path / "dbt.log", points)
    ids = ", ".join(f"'{i}'" for i in pending)
    assert spark.sql(f"select * from {names.target}._sparkload_applied_loads where load_id in ({ids})").collect() == []
    dbt.run(everything)
    reference.run(everything)

    for model in everything.split():
        assert contents(spark, f"{names.target}.{model}") == contents(spark, f"{reference.names.target}.{model}"), model
    assert all(contents(spark, f"{names.target}.{model}") for model in points)


def versioned(id_, seq, name=None, deleted=False):
    """An `items` row for both sequenced models: seq_up orders by `seq`, seq_di by (`major`, `minor`)."""
    return {"id": id_, "seq": seq, "major": seq, "minor": 0, "prio": 0, "name": name, "deleted": deleted}


def tombstones(spark, schema, model):
    """The tombstones of one target, all columns but `target` (which names the schema: it selects them)."""
    rows = spark.sql(f"select `key`, `sequence`, `load_id`, `loaded_at` from `{schema}`.`_sparkload_tombstones` "
                     f"where `target` = '{schema}.{model}'").collect()
    return sorted(tuple(r) for r in rows)


# one model per killed run (models of one schema recording tombstones at once:
# test_sequence_by.py::test_sequence_by__models_of_one_schema_record_their_tombstones_at_once)
@pytest.mark.extended
@pytest.mark.parametrize("model", ["seq_up", "seq_di"])  # upsert; delete-insert by (major, minor)
def test_faults__killed_after_its_tombstones_committed_then_rerun_gives_the_uninterrupted_tables(
        spark, lakehouse, stage, dbt, names, tmp_path, model):
    skip_on_delta(spark)
    reference = Dbt(Names(staging=names.staging, target=names.target + "_ref"), dbt.target)
    # load 1, applied without interruption to both schemas: id 3 is deleted before the table had it
    stage.load([versioned(1, 1, "a1"), versioned(2, 1, "b1"), versioned(3, 4, deleted=True)], columns=FLAG)
    dbt.run(model)
    reference.run(model)
    before = table(spark, f"`{names.target}`.`{model}`", "*")
    # load 2: id 1 deleted (a new tombstone), id 2 updated, id 4 new;
    # load 3, late: older rows of both deleted keys, which the tombstones (and the batch's delete) keep out
    pending = [
        stage.load([versioned(1, 5, deleted=True), versioned(2, 2, "b2"), versioned(4, 1, "d1")], columns=FLAG),
        stage.load([versioned(3, 2, "c2"), versioned(1, 3, "a3")], columns=FLAG),
    ]

    crashed_run(names, lakehouse, spark, tmp_path / "dbt.log", {model: "after_tombstones"})
    ids = ", ".join(f"'{i}'" for i in pending)
    assert spark.sql(f"select * from `{names.target}`.`_sparkload_applied_loads` where `load_id` in ({ids})").collect() == []
    assert table(spark, f"`{names.target}`.`{model}`", "*") == before
    # the kill came after the tombstones' commit: load 2's delete of id 1 is there already
    assert [key for key, *_ in tombstones(spark, names.target, model)] == ['{"id":1}', '{"id":3}']
    dbt.run(model)
    reference.run(model)

    assert table(spark, f"`{reference.names.target}`.`{model}`", "id, name") == rows_of((2, "b2"), (4, "d1"))
    assert table(spark, f"`{names.target}`.`{model}`", "*") == table(spark, f"`{reference.names.target}`.`{model}`", "*")
    assert tombstones(spark, names.target, model) == tombstones(spark, reference.names.target, model)
