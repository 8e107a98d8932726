"""hard_delete: a delete row removes its key, and is never inserted (dlt's H4-H7 sequences, run by
delete-insert and upsert on the same loads)."""
from __future__ import annotations

import pytest

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = [pytest.mark.dbt_targets(*TARGETS), pytest.mark.each_format]
FLAG = {"deleted": {"data_type": "bool"}}


@pytest.mark.extended("delta", "thrift")
@pytest.mark.over_the_wire
def test_hard_delete__boolean_flag_deletes_by_primary_key_merge_key_or_not_at_all(spark, stage, dbt, names):
    def run(*models):
        dbt.run(" ".join(models))
        return {m: table(spark, f"{names.target}.{m}", "id, name, deleted") for m in models}

    # load 1: initial
    stage.load([{"id": 1, "name": "foo", "deleted": False}, {"id": 2, "name": "bar", "deleted": False}], columns=FLAG)
    got = run("di_pk_flag", "up_pk_flag", "di_mk_flag", "di_flag")
    assert got["di_pk_flag"] == got["up_pk_flag"] == got["di_mk_flag"] == got["di_flag"] == rows_of(
        (1, "foo", False), (2, "bar", False))

    # load 2: delete id 1 (the key and the flag suffice); a delete of unknown id 9 inserts nothing
    stage.load([{"id": 1, "deleted": True}, {"id": 9, "name": "ghost", "deleted": True}], columns=FLAG)
    got = run("di_pk_flag", "up_pk_flag", "di_mk_flag", "di_flag")
    assert got["di_pk_flag"] == got["up_pk_flag"] == got["di_mk_flag"] == rows_of((2, "bar", False))
    assert got["di_flag"] == rows_of((1, "foo", False), (2, "bar", False))  # no keys: delete rows are dropped

    # load 3: a NULL flag is not a delete: id 2 is updated
    stage.load([{"id": 2, "name": "baz", "deleted": None}], columns=FLAG)
    got = run("di_pk_flag", "up_pk_flag", "di_mk_flag", "di_flag")
    assert got["di_pk_flag"] == got["up_pk_flag"] == got["di_mk_flag"] == rows_of((2, "baz", None))
    assert len(got["di_flag"]) == 3

    # load 4: id 3 twice: one row by primary key, both by merge key
    stage.load([{"id": 3, "name": "foo", "deleted": False}, {"id": 3, "name": "bar", "deleted": False}], columns=FLAG)
    got = run("di_pk_flag", "di_mk_flag", "di_flag")
    assert [len(got[m]) for m in ("di_pk_flag", "di_mk_flag", "di_flag")] == [2, 3, 5]

    # load 5: delete id 3: its one row, or both of its merge-key rows
    stage.load([{"id": 3, "name": "foo", "deleted": True}], columns=FLAG)
    got = run("di_pk_flag", "di_mk_flag", "di_flag")
    assert got["di_pk_flag"] == got["di_mk_flag"] == rows_of((2, "baz", None))
    assert len(got["di_flag"]) == 5


@pytest.mark.extended("iceberg")
def test_hard_delete__a_non_boolean_column_deletes_when_not_null(spark, stage, dbt, names):
    ts = {"deleted_at": {"data_type": "timestamp"}}
    stage.load([{"id": 1, "name": "foo", "deleted_at": None}, {"id": 2, "name": "bar", "deleted_at": None}], columns=ts)
    dbt.run("di_deleted_at")
    stage.load([{"id": 1, "deleted_at": "2024-02-15T17:16:53Z"}], columns=ts)
    dbt.run("di_deleted_at")
    assert table(spark, f"{names.target}.di_deleted_at", "id, name, deleted_at") == rows_of((2, "bar", None))


@pytest.mark.extended
def test_hard_delete__with_dedup_sort_the_latest_row_per_key_decides(spark, stage, dbt, names):
    cols = {**FLAG, "lsn": {"data_type": "bigint"}}
    # load 1: the latest row of id 1 (lsn 3) is kept; the delete at lsn 2 is older
    stage.load([{"id": 1, "name": "foo", "lsn": 1, "deleted": None}, {"id": 1, "name": "baz", "lsn": 3, "deleted": None},
                {"id": 1, "name": "bar", "lsn": 2, "deleted": True}], columns=cols)
    dbt.run("di_lsn up_lsn")
    for model in ("di_lsn", "up_lsn"):
        assert table(spark, f"{names.target}.{model}", "id, name, lsn") == rows_of((1, "baz", 3)), model
    # load 2: the latest row of id 2 is a delete, so nothing is inserted; id 1's latest is a delete too
    stage.load([{"id": 2, "name": "foo", "lsn": 1, "deleted": False}, {"id": 2, "lsn": 2, "deleted": True},
                {"id": 1, "name": "qux", "lsn": 4, "deleted": False}, {"id": 1, "lsn": 5, "deleted": True}], columns=cols)
    dbt.run("di_lsn up_lsn")
    for model in ("di_lsn", "up_lsn"):
        assert table(spark, f"{names.target}.{model}", "id, name, lsn") == [], model
