"""strategy='delete-insert' (dlt's default merge strategy): rows whose primary or merge key occurs in
the applied loads are replaced by the loads' surviving rows."""
from __future__ import annotations

import pytest

from ..support.dbt import PACKAGE_TARGETS, TARGETS
from ..support.tables import rows_of, table

# each_format: one test per statement shape (by primary key, by merge key alone, several pending loads) runs on each
# format; the key variants of the same statements (primary or merge key, compound key) run on the main format only
# (docs/testing.md)
pytestmark = [pytest.mark.dbt_targets(*TARGETS)]


@pytest.mark.each_format
@pytest.mark.extended("spark_session", ("iceberg", "embedded"))  # session method: test_upsert's, test_insert_only's first
# tests; embedded it runs on Delta, here over the wire (and the file's other tests embedded)
@pytest.mark.over_the_wire
@pytest.mark.dbt_targets(*PACKAGE_TARGETS)
def test_delete_insert__replaces_rows_by_primary_key_keeping_one_per_key(spark, stage, dbt, names):
    # load 1: initial; id 1 twice in one load, so one of them is kept (dedup_sort or, without it, by _dlt_id)
    stage.load([{"id": 1, "name": "foo", "seq": 1}, {"id": 1, "name": "baz", "seq": 3},
                {"id": 1, "name": "bar", "seq": 2}, {"id": 2, "name": "qux", "seq": 1}])
    dbt.run("di_pk di_asc di_desc")
    assert table(spark, f"{names.target}.di_desc", "id, name") == rows_of((1, "baz"), (2, "qux"))
    assert table(spark, f"{names.target}.di_asc", "id, name") == rows_of((1, "foo"), (2, "qux"))
    assert [r[0] for r in table(spark, f"{names.target}.di_pk", "id, name")] == [1, 2]

    # load 2: id 2 updated, id 3 new; id 1 absent, so untouched
    stage.load([{"id": 2, "name": "qux2", "seq": 1}, {"id": 3, "name": "new", "seq": 1}])
    dbt.run("di_desc")
    assert table(spark, f"{names.target}.di_desc", "id, name") == rows_of((1, "baz"), (2, "qux2"), (3, "new"))

    # rerun without new loads: nothing changes
    dbt.run("di_desc")
    assert table(spark, f"{names.target}.di_desc", "id, name") == rows_of((1, "baz"), (2, "qux2"), (3, "new"))


@pytest.mark.extended
def test_delete_insert__primary_key_or_merge_key_selects_the_rows_to_replace(spark, stage, dbt, names):
    # load 1: three rows on two days (merge key `day`)
    stage.load([{"id": 1, "day": "d1", "v": "a"}, {"id": 2, "day": "d1", "v": "b"}, {"id": 3, "day": "d2", "v": "c"}])
    dbt.run("di_pk_mk")
    # load 2: id 3 moves to d1: ids 1 and 2 go by merge key, id 3 by primary key
    stage.load([{"id": 3, "day": "d1", "v": "c2"}])
    dbt.run("di_pk_mk")
    assert table(spark, f"{names.target}.di_pk_mk", "id, day, v") == rows_of((3, "d1", "c2"))


@pytest.mark.extended
@pytest.mark.each_format
def test_delete_insert__merge_key_alone_keeps_every_row_of_the_newest_load(spark, stage, dbt, names):
    # load 1: merge key `id` only, so nothing is deduplicated
    stage.load([{"id": 1, "v": "row1"}, {"id": 1, "v": "row2"}, {"id": 2, "v": "x"}])
    dbt.run("di_mk")
    assert table(spark, f"{names.target}.di_mk", "id, v") == rows_of((1, "row1"), (1, "row2"), (2, "x"))
    # load 2: id 1 again: both of its rows are replaced
    stage.load([{"id": 1, "v": "row3"}])
    dbt.run("di_mk")
    assert table(spark, f"{names.target}.di_mk", "id, v") == rows_of((1, "row3"), (2, "x"))


@pytest.mark.extended("delta")
@pytest.mark.each_format
def test_delete_insert__several_pending_loads_give_what_applying_them_in_order_gives(spark, stage, dbt, names):
    # three loads land before one run; applied one by one: load 2 removes id 1 through day d1,
    # load 3 replaces id 2 through its primary key
    stage.load([{"id": 1, "day": "d1", "v": "a"}, {"id": 2, "day": "d2", "v": "b"}])
    stage.load([{"id": 3, "day": "d1", "v": "c"}])
    stage.load([{"id": 2, "day": "d3", "v": "e"}])
    dbt.run("di_pk_mk")
    assert table(spark, f"{names.target}.di_pk_mk", "id, day, v") == rows_of((2, "d3", "e"), (3, "d1", "c"))


@pytest.mark.extended
def test_delete_insert__compound_primary_key_compares_each_column(spark, stage, dbt, names):
    # load 1: (1, 'AX') twice is one record; (1, 'BX') and (11, 'X') are others, although their
    # concatenations would collide with (1, '1X')
    stage.load([{"id": 1, "subkey": "AX", "v": "row1"}, {"id": 1, "subkey": "AX", "v": "row2"},
                {"id": 1, "subkey": "BX", "v": "row3"}, {"id": 11, "subkey": "X", "v": "row4"}])
    dbt.run("di_compound")
    assert [r[:2] for r in table(spark, f"{names.target}.di_compound", "id, subkey")] == [(1, "AX"), (1, "BX"), (11, "X")]
    # load 2: (1, '1X') is new; nothing else changes
    stage.load([{"id": 1, "subkey": "1X", "v": "row5"}, {"id": 1, "subkey": "BX", "v": "row6"}])
    dbt.run("di_compound")
    got = table(spark, f"{names.target}.di_compound", "id, subkey, v")
    assert [r[:2] for r in got] == [(1, "1X"), (1, "AX"), (1, "BX"), (11, "X")]
    assert (1, "BX", "row6") in got and (11, "X", "row4") in got
