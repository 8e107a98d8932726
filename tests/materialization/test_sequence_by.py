"""sequence_by (beyond dlt): a key's row is replaced or deleted only by a row whose version (sequence_by,
then the load) is not lower, across loads and within one; a delete leaves a tombstone so an older row
arriving late stays deleted, for tombstone_retention; child tables follow the root row that stayed.
Models: integration_tests/models/materialization/sequence/. Semantics: docs/beyond-dlt.md."""
from __future__ import annotations

import math
import time

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from ..support.dbt import Dbt, Names
from ..support.stage import Stage
from ..support.tables import rows_of, table
from ..support.nested import children

pytestmark = pytest.mark.dbt_targets("embedded", "thrift")
FLAG = {"deleted": {"data_type": "bool"}}


def up(stage: Stage, rows) -> str:
    return stage.load(rows, columns=FLAG)


@pytest.mark.extended("thrift")
@pytest.mark.over_the_wire
def test_sequence_by__a_late_older_version_or_delete_never_overwrites_a_newer_row(spark, stage, dbt, names):
    target = f"{names.target}.seq_up"
    # load 1: id 1 at seq 5, id 2 at seq 1
    up(stage, [{"id": 1, "seq": 5, "name": "a5"}, {"id": 2, "seq": 1, "name": "b1"}])
    dbt.run("seq_up")
    # load 2 (late): id 1 at seq 3 loses; id 2 at seq 2 wins; id 3 new
    up(stage, [{"id": 1, "seq": 3, "name": "a3"}, {"id": 2, "seq": 2, "name": "b2"}, {"id": 3, "seq": 1, "name": "c1"}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((1, 5, "a5"), (2, 2, "b2"), (3, 1, "c1"))
    # loads 3 and 4 in one run: the highest sequence wins whatever its load, also within one load
    up(stage, [{"id": 1, "seq": 9, "name": "a9"}, {"id": 1, "seq": 7, "name": "a7"}, {"id": 2, "seq": 4, "name": "b4"}])
    up(stage, [{"id": 1, "seq": 8, "name": "a8"}, {"id": 2, "seq": 3, "name": "b3"}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((1, 9, "a9"), (2, 4, "b4"), (3, 1, "c1"))
    # load 5: deletes obey the same order: id 1's at seq 8 is older (ignored), id 2's at seq 6 newer
    up(stage, [{"id": 1, "seq": 8, "deleted": True}, {"id": 2, "seq": 6, "deleted": True}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((1, 9, "a9"), (3, 1, "c1"))
    # only the delete that won leaves a tombstone (issue 40 item 5: the lost one of id 1 left one too)
    assert table(spark, f"{names.target}._sparkload_tombstones", "target, key, sequence") == rows_of(
        (target, '{"id":2}', '{"seq":6}'))


@pytest.mark.extended
def test_sequence_by__a_deleted_key_is_not_resurrected_by_an_older_row_until_a_newer_one(spark, stage, dbt, names):
    target = f"{names.target}.seq_up"
    up(stage, [{"id": 1, "seq": 1, "name": "a1"}, {"id": 2, "seq": 1, "name": "b1"}])
    dbt.run("seq_up")
    # load 2: id 1 deleted at seq 5; id 2 deleted at seq 4, a key the batch deletes before the table had it
    up(stage, [{"id": 1, "seq": 5, "deleted": True}, {"id": 9, "seq": 4, "deleted": True}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((2, 1, "b1"))
    assert table(spark, f"{names.target}._sparkload_tombstones", "target, key, sequence") == rows_of(
        (f"{names.target}.seq_up", '{"id":1}', '{"seq":5}'), (f"{names.target}.seq_up", '{"id":9}', '{"seq":4}'))
    assert len(tombstone_merges(dbt)) == 1
    # load 3 (late): older rows of both deleted keys stay out; load 4: a newer row of id 1 comes back.
    # Neither deletes anything, so neither run sends the tombstones' MERGE (its statistics count the deletes)
    dbt.queries.clear()
    up(stage, [{"id": 1, "seq": 3, "name": "a3"}, {"id": 9, "seq": 2, "name": "z2"}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((2, 1, "b1"))
    up(stage, [{"id": 1, "seq": 6, "name": "a6"}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((1, 6, "a6"), (2, 1, "b1"))
    assert tombstone_merges(dbt) == [] and len([sql for _, sql in dbt.queries if "merge into" in sql]) == 2
    # nor creates the tombstones' table, which dbt's relation cache lists
    assert not [sql for _, sql in dbt.queries if "create table if not exists" in sql and "_sparkload_tombstones" in sql]


def tombstone_merges(dbt: Dbt):
    return [sql for _, sql in dbt.queries if "merge into" in sql and "`_sparkload_tombstones` as t" in sql]


@pytest.mark.extended
def test_sequence_by__a_tombstone_expires_after_tombstone_retention(spark, stage, dbt, names):
    target = f"{names.target}.seq_up_brief"  # tombstone_retention=var('seq_retention')
    delete = up(stage, [{"id": 1, "seq": 5, "deleted": True}, {"id": 2, "seq": 5, "deleted": True}])
    dbt.run("seq_up_brief")
    within = up(stage, [{"id": 1, "seq": 3, "name": "a3"}])
    at = {r["load_id"]: r["inserted_at"] for r in spark.sql(f"select * from {names.staging}._dlt_loads").collect()}
    retention = {"seq_retention": f"{math.ceil((at[within] - at[delete]).total_seconds())} seconds"}
    dbt.run("seq_up_brief", vars=retention)  # the late row's load is within the retention: it stays out
    assert table(spark, target, "id") == []
    time.sleep(1.5)
    up(stage, [{"id": 2, "seq": 3, "name": "b3"}])  # loaded after the retention: the key comes back
    dbt.run("seq_up_brief", vars=retention)
    assert table(spark, target, "id, seq, name") == rows_of((2, 3, "b3"))
    # a batch without deletes leaves the expired tombstones (no statement reads them); the next that deletes
    # drops them: they are gone from the table, and id 3's is new
    assert table(spark, f"{names.target}._sparkload_tombstones", "key") == rows_of(('{"id":1}',), ('{"id":2}',))
    up(stage, [{"id": 3, "seq": 1, "deleted": True}])
    dbt.run("seq_up_brief", vars=retention)
    assert table(spark, f"{names.target}._sparkload_tombstones", "key") == rows_of(('{"id":3}',))


@pytest.mark.extended
@pytest.mark.dbt_targets("embedded")
def test_sequence_by__models_of_one_schema_record_their_tombstones_at_once(spark, stage, dbt, names):
    """Three sequenced models with hard_delete share `_sparkload_tombstones`; run with three dbt threads, their
    tombstone MERGEs run at once. Each reads and commits only its own target's partition, so none fails on
    Iceberg's check of concurrent commits (a MERGE that scanned the whole table, as `when not matched by
    source` does, failed one of them here). Each load deletes keys in every model, and seq_up_brief (a
    retention of 1 second) also drops expired tombstones in the same runs."""
    models = ("seq_up", "seq_di", "seq_up_brief")
    row = lambda id_, seq, **kw: {"id": id_, "seq": seq, "major": seq, "minor": 0, "prio": 0, **kw}  # noqa: E731
    up(stage, [row(i, 1, name=f"n{i}") for i in range(1, 7)])
    dbt.invoke("run", "--threads", "3", "--select", *models, vars={"seq_retention": "1 seconds"})
    for k in range(3):  # each round deletes two keys and brings a late older row of one deleted earlier
        time.sleep(1.1)
        late = [row(2 * k - 1, 0, name="late")] if k else []
        up(stage, [row(2 * k + 1, 5, deleted=True), row(2 * k + 2, 5, deleted=True), *late])
        dbt.invoke("run", "--threads", "3", "--select", *models, vars={"seq_retention": "1 seconds"})
    for model in models:
        # seq_up_brief's tombstones of ids 1 and 3 had expired when their late rows came
        kept = rows_of((1, "late"), (3, "late")) if model == "seq_up_brief" else []
        assert table(spark, f"{names.target}.{model}", "id, name") == kept, model
    tombs = spark.sql(f"select `target`, `key` from `{names.target}`.`_sparkload_tombstones`").collect()
    by_model = {m: sorted(r["key"] for r in tombs if r["target"] == f"{names.target}.{m}") for m in models}
    assert by_model == {"seq_up": [f'{{"id":{i}}}' for i in range(1, 7)], "seq_di": [f'{{"id":{i}}}' for i in range(1, 7)],
                        "seq_up_brief": ['{"id":5}', '{"id":6}']}


@pytest.mark.extended
def test_sequence_by__equal_sequences_go_to_the_later_load_and_a_rerun_changes_nothing(spark, stage, dbt, names):
    target = f"{names.target}.seq_up"
    up(stage, [{"id": 1, "seq": 5, "name": "first"}])
    dbt.run("seq_up")
    up(stage, [{"id": 1, "seq": 5, "name": "second"}])
    dbt.run("seq_up")
    assert table(spark, target, "id, seq, name") == rows_of((1, 5, "second"))
    before = table(spark, target, "*")
    # the run again, as after a crash before its ledger entry: the same loads applied again
    spark.sql(f"delete from {names.target}._sparkload_applied_loads")
    dbt.run("seq_up")
    assert table(spark, target, "*") == before
    # and rebuilt from every load
    dbt.invoke("run", "--select", "seq_up", "--full-refresh")
    assert table(spark, target, "*") == before


@pytest.mark.extended
def test_sequence_by__an_equal_sequence_twice_in_one_load_needs_dedup_sort(spark, stage, dbt, names):
    up(stage, [{"id": 1, "seq": 5, "name": "a"}])
    dbt.run("seq_up")
    bad = up(stage, [{"id": 1, "seq": 7, "name": "b"}, {"id": 1, "seq": 7, "name": "c"}])
    assert not dbt.run("seq_up", expect_success=False).success
    assert f"id=1 occurs more than once in load {bad}" in "\n".join(dbt.logs)
    assert table(spark, f"{names.target}.seq_up", "id, seq, name") == rows_of((1, 5, "a"))


@pytest.mark.extended
@pytest.mark.over_the_wire
def test_sequence_by__a_null_sequence_fails_naming_table_column_and_load_and_changes_nothing(spark, stage, dbt, names):
    up(stage, [{"id": 1, "seq": 5, "name": "a"}])
    dbt.run("seq_up")
    bad = up(stage, [{"id": 2, "seq": 1, "name": "b"}, {"id": 1, "name": "no sequence"}])
    assert not dbt.run("seq_up", expect_success=False).success
    expected = f"sparkload model seq_up (table {names.target}.seq_up): sequence_by column `seq` is NULL in load {bad} (id=1);"
    line = next(line for line in "\n".join(dbt.logs).splitlines() if expected in line)
    assert "every row needs a sequence. The table is unchanged." in line
    assert table(spark, f"{names.target}.seq_up", "id, seq, name") == rows_of((1, 5, "a"))


@pytest.mark.extended
def test_sequence_by__delete_insert_compares_a_list_of_columns_and_breaks_ties_with_dedup_sort(spark, stage, dbt, names):
    target = f"{names.target}.seq_di"  # sequence_by=['major', 'minor'], dedup_sort={'prio': 'desc'}
    stage.load([{"id": 1, "major": 2, "minor": 0, "prio": 0, "name": "a2.0"},
                {"id": 2, "major": 1, "minor": 9, "prio": 0, "name": "b1.9"}], columns=FLAG)
    # load 2: id 1 at 1.9 is older (the first column decides); id 2 at 1.10 newer, twice: prio picks
    stage.load([{"id": 1, "major": 1, "minor": 9, "prio": 0, "name": "a1.9"},
                {"id": 2, "major": 1, "minor": 10, "prio": 1, "name": "b1.10 low"},
                {"id": 2, "major": 1, "minor": 10, "prio": 2, "name": "b1.10 high"}], columns=FLAG)
    dbt.run("seq_di")
    assert table(spark, target, "id, major, minor, name") == rows_of((1, 2, 0, "a2.0"), (2, 1, 10, "b1.10 high"))
    stage.load([{"id": 1, "major": 2, "minor": 1, "deleted": True}, {"id": 2, "major": 1, "minor": 2, "deleted": True}], columns=FLAG)
    dbt.run("seq_di")
    assert table(spark, target, "id, major, minor, name") == rows_of((2, 1, 10, "b1.10 high"))


@pytest.mark.extended
def test_sequence_by__an_undefined_config_or_a_missing_column_is_refused_before_anything_changes(spark, stage, dbt, names):
    load = stage.load([{"id": 1, "name": "a", "day": "x"}])
    assert not dbt.run("seq_bad_mk", expect_success=False).success
    assert f"sparkload model seq_bad_mk (table {names.target}.seq_bad_mk): sequence_by with merge_key=day is not defined" in "\n".join(dbt.logs)
    assert not dbt.run("seq_up", expect_success=False).success
    assert "sequence_by column `seq` is not among the model's columns (" in "\n".join(dbt.logs)
    assert f"(loads {load})" in "\n".join(dbt.logs)
    assert spark.sql(f"show tables in {names.target} like 'seq_*'").collect() == []


@pytest.mark.extended
def test_sequence_by__children_stay_with_the_newer_root_row(spark, stage, dbt, names):
    root, orders = f"{names.target}.seq_cust", f"{names.target}.seq_cust__orders"
    stage.load([{"id": 1, "seq": 5, "name": "a5", "orders": [{"sku": "A"}, {"sku": "B"}]},
                {"id": 2, "seq": 5, "name": "b5", "orders": [{"sku": "C"}]}], table="customers", columns=FLAG)
    dbt.run("seq_cust seq_cust__orders")
    # load 2: late for id 1 (its orders stay A, B), newer for id 2 (its orders become D)
    stage.load([{"id": 1, "seq": 3, "name": "a3", "orders": [{"sku": "X"}]},
                {"id": 2, "seq": 6, "name": "b6", "orders": [{"sku": "D"}]}], table="customers", columns=FLAG)
    dbt.run("seq_cust seq_cust__orders")
    assert table(spark, root, "id, name") == rows_of((1, "a5"), (2, "b6"))
    assert children(spark, root, orders, "sku") == (rows_of((1, "A"), (1, "B"), (2, "D")), 0)
    # loads 3 and 4 reach the root before the child catches up: a late delete of id 2, a newer delete of
    # id 1, then a late row of id 2 with other orders
    stage.load([{"id": 2, "seq": 4, "deleted": True}, {"id": 1, "seq": 7, "deleted": True}], table="customers", columns=FLAG)
    dbt.run("seq_cust")
    stage.load([{"id": 2, "seq": 5, "name": "b5 again", "orders": [{"sku": "Y"}]}], table="customers", columns=FLAG)
    dbt.run("seq_cust")
    dbt.run("seq_cust__orders")
    assert table(spark, root, "id, name") == rows_of((2, "b6"))
    assert children(spark, root, orders, "sku") == (rows_of((2, "D")), 0)


# -- shuffled loads: the same change set in any order (and any grouping into runs) gives the same table
KEYS = (1, 2, 3)


@st.composite
def change_sets(draw):
    """3 loads of changes (upserts and deletes) with sequences distinct per key, an order to land
    them in, and after which landed loads a dbt run happens (always after the last)."""
    n_loads = 3
    changes = []
    for seq, key in enumerate(draw(st.lists(st.sampled_from(KEYS), min_size=4, max_size=8)), 1):
        changes.append({"id": key, "seq": seq, "deleted": draw(st.booleans()), "load": draw(st.integers(0, n_loads - 1))})
    order = draw(st.permutations(range(n_loads)))
    runs = [draw(st.booleans()) for _ in range(n_loads - 1)] + [True]
    return changes, order, runs


def ordered_result(changes):
    """The table after applying the changes in sequence order: each key's newest change, if not a delete."""
    newest = {}
    for c in sorted(changes, key=lambda c: c["seq"]):
        newest[c["id"]] = c
    return rows_of(*[(c["id"], c["seq"], f"v{c['seq']}") for c in newest.values() if not c["deleted"]])


_example = 0


@pytest.mark.dbt_targets("embedded")
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
@example(changes=([{"id": 1, "seq": 1, "deleted": False, "load": 0}, {"id": 1, "seq": 2, "deleted": True, "load": 1},
                   {"id": 1, "seq": 3, "deleted": False, "load": 2}, {"id": 2, "seq": 4, "deleted": False, "load": 2}],
                  [0, 1, 2], [True, True, True]))  # the ordered application, one run per load (7 examples in all)
@example(changes=([{"id": 3, "seq": 1, "deleted": True, "load": 1}, {"id": 1, "seq": 2, "deleted": True, "load": 2}],
                  [0, 2, 1], [False, False, True]))  # found: deletes only, so no load has a name column
@pytest.mark.extended
@given(changes=change_sets())
def test_sequence_by__shuffled_load_orders_give_the_ordered_result(spark, lakehouse, dbt, changes):
    global _example
    changes, order, runs = changes
    _example += 1
    names = Names(staging=f"raw_seqprop_{_example}_{dbt.names.staging}"[:60], target=f"dbt_seqprop_{_example}_{dbt.names.target}"[:60])
    stage, run = Stage(spark, lakehouse, names), Dbt(names, dbt.target)
    for position, load in enumerate(order):
        rows = [{"id": c["id"], "seq": c["seq"], "name": None if c["deleted"] else f"v{c['seq']}", "deleted": c["deleted"]}
                for c in changes if c["load"] == load]
        up(stage, rows or [{"id": 99, "seq": 0, "deleted": True}])  # an empty load: a delete of a key never seen
        if runs[position]:
            run.run("seq_up")
    # only deletes: no load has a `name`, so neither has the table (a column of nulls alone is not created)
    columns = "id, seq, name" if any(not c["deleted"] for c in changes) else "id, seq"
    assert table(spark, f"{names.target}.seq_up", columns) == ordered_result(changes), (order, runs)
