"""strategy='upsert': update by primary key, insert unknown keys; one row per key and load."""
from __future__ import annotations

import pytest

from ..support.dbt import PACKAGE_TARGETS, TARGETS
from ..support.tables import rows_of, table

pytestmark = [pytest.mark.dbt_targets(*TARGETS), pytest.mark.each_format]


@pytest.mark.extended(("iceberg", "embedded"))  # runs embedded on Delta; here over the wire (and the file's other tests embedded)
@pytest.mark.over_the_wire
@pytest.mark.dbt_targets(*PACKAGE_TARGETS)
def test_upsert__updates_every_column_of_known_keys_and_inserts_the_others(spark, stage, dbt, names):
    # load 1: initial
    stage.load([{"id": 1, "name": "a", "score": 10}, {"id": 2, "name": "b", "score": 20}])
    dbt.run("up_pk")
    # load 2: id 1 without a score (NULL now), id 3 new; id 2 absent stays
    stage.load([{"id": 1, "name": "a2"}, {"id": 3, "name": "c", "score": 30}])
    dbt.run("up_pk")
    assert table(spark, f"{names.target}.up_pk", "id, name, score") == rows_of(
        (1, "a2", None), (2, "b", 20), (3, "c", 30))


@pytest.mark.extended("delta")
def test_upsert__the_newest_of_several_pending_loads_wins(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    stage.load([{"id": 1, "name": "b"}, {"id": 2, "name": "x"}])
    stage.load([{"id": 1, "name": "c"}])
    dbt.run("up_pk")
    assert table(spark, f"{names.target}.up_pk", "id, name") == rows_of((1, "c"), (2, "x"))


@pytest.mark.extended("thrift", "delta")  # the duplicate check is one query before the MERGE, the same on both formats
@pytest.mark.over_the_wire
def test_upsert__duplicate_keys_in_one_load_fail_naming_key_and_load_and_change_nothing(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("up_pk")
    bad = stage.load([{"id": 1, "name": "b"}, {"id": 1, "name": "c"}, {"id": 2, "name": "d"}])
    result = dbt.run("up_pk", expect_success=False)
    assert not result.success
    message = "\n".join(dbt.logs)
    assert f"id=1 occurs more than once in load {bad}" in message and "dedup_sort" in message
    assert f"{names.target}.up_pk" in message
    assert table(spark, f"{names.target}.up_pk", "id, name") == rows_of((1, "a"))


@pytest.mark.extended("delta")
def test_upsert__duplicate_keys_in_the_first_load_fail_and_leave_no_table(spark, stage, dbt, names):
    bad = stage.load([{"id": 1, "name": "b"}, {"id": 1, "name": "c"}])
    result = dbt.run("up_pk", expect_success=False)
    assert not result.success
    assert f"id=1 occurs more than once in load {bad}" in "\n".join(dbt.logs)
    assert spark.sql(f"show tables in {names.target} like 'up_pk'").collect() == []
    assert spark.sql(f"select * from {names.target}._sparkload_applied_loads").collect() == []
