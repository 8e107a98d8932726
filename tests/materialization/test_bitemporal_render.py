"""Bitemporal scd2 (strategy=scd2 with sequence_by) rendered with the stub adapter of test_macro_render:
the statement's shape (one MERGE whose source is a list of named steps, or one CREATE OR REPLACE into a
new table), quoting, the NULL and tie errors inside it, and the config and column checks. A fast tier
only: tests/materialization/test_bitemporal.py judges what the statement does."""
from __future__ import annotations

import pytest

from ..support.macros import COLUMNS, Package, args, cfg, ctes, sql_of

pytestmark = pytest.mark.fast

SEQ_COLUMNS = COLUMNS + [{"name": "up`d", "type": "timestamp"}]


def bitemporal(**over):
    base = {"strategy": "scd2", "primary_key": [], "merge_key": ["id"], "sequence_by": ["up`d"], "hard_delete": "deleted",
            "row_version_column_name": None, "tombstone_retention": None, "boundary_column": None}
    return cfg(**{**base, **over})


@pytest.fixture(scope="module")
def package() -> Package:
    return Package()


def test_bitemporal_render__one_merge_from_named_steps_updates_validity_and_inserts_new_events(package):
    sql = sql_of(package, args(bitemporal(), columns=SEQ_COLUMNS, target_columns=SEQ_COLUMNS))
    assert sql.startswith("merge into `target`.`items` as t using ( with `batch` as (")
    assert ctes(sql) == ["batch", "versioned", "incoming", "known", "events", "checked", "validity", "changes"]
    assert sql.count("merge into") == 1
    # the sequence column, quoted and escaped, dates each event; the table's events of the batch's keys only
    assert "cast(b.`up``d` as timestamp) end as `__valid_from`" in sql
    assert "select /*+ broadcast(s) */ t.`id`, " in sql
    assert "left semi join (select distinct `id` from `batch`) as s on t.`id` <=> s.`id`" in sql
    assert "where (t.`id`) in ((cast('1' as bigint)), (cast('3' as bigint)))" in sql
    # a delete is zero-width; the others end at the next event of their key
    assert "case when `__tombstone` then `__valid_from` else coalesce(lead(`__valid_from`) over (partition by `id` order by `__valid_from`), cast(null as timestamp)) end" in sql
    assert "coalesce(b.`deleted`, false) as `__tombstone`" in sql
    assert ("when matched then update set t.`_dlt_valid_to` = s.`__valid_to` when not matched and s.`__origin` = 1 then insert "
            "(`id`, `na``me`, `deleted`, `seq`, `_dlt_load_id`, `_dlt_id`, `up``d`, `_dlt_valid_from`, `_dlt_valid_to`)") in sql


def test_bitemporal_render__into_a_new_table_creates_it_from_the_events_alone(package):
    sql = sql_of(package, args(bitemporal(), columns=SEQ_COLUMNS, target_columns=SEQ_COLUMNS, into_empty=True))
    assert sql.startswith("create or replace table `target`.`items` using iceberg")
    assert ctes(sql) == ["batch", "versioned", "incoming", "checked", "validity"]
    assert "`__valid_from` as `_dlt_valid_from`, `__valid_to` as `_dlt_valid_to` from `validity`" in sql


def test_bitemporal_render__null_and_tie_errors_name_table_column_key_and_loads(package):
    sql = sql_of(package, args(bitemporal(active_literal="cast('9999-12-31' as timestamp)"), columns=SEQ_COLUMNS))
    assert ("raise_error(concat('sparkload model items (table target.items): sequence_by column `up`d` is NULL in load ', "
            "`_dlt_load_id`, ' for merge key ', concat_ws(', ', concat('id=', coalesce(cast(`id` as string), 'NULL')))") in sql
    assert "' has different rows at sequence_by `up`d` = ', cast(`__valid_from` as string), ' (loads ', " in sql
    assert "array_join(array_sort(collect_set(`_dlt_load_id`) over (partition by `id`, `__valid_from`)), ', ')" in sql
    # the loads' ids are escaped in the abort hint
    assert "--abort 1700000000.1 --abort it\\'s" in sql
    assert "cast('9999-12-31' as timestamp)) end as `__valid_to`" in sql


def test_bitemporal_render__an_own_row_version_tells_the_versions_apart(package):
    sql = sql_of(package, args(bitemporal(row_version_column_name="seq"), columns=SEQ_COLUMNS))
    assert ctes(sql)[:2] == ["batch", "incoming"]
    assert "min(`seq`) over (partition by `id`, `__valid_from`) <> max(`seq`)" in sql
    assert "row_number() over (partition by `id`, `__valid_from`, `seq` order by `__origin`)" in sql


@pytest.mark.parametrize("over, expected", [
    ({"sequence_by": ["a", "b"]}, "sequence_by=a, b names 2 columns; strategy=scd2 takes one date or timestamp column"),
    ({"merge_key": []}, "sequence_by=up`d needs merge_key, the natural key whose versions it orders."),
    ({"merge_key": ["id", "up`d"]}, "sequence_by=up`d is a merge_key column"),
    ({"dedup_sort": {"seq": "desc"}}, "dedup_sort cannot be combined with sequence_by=up`d for strategy=scd2"),
    ({"boundary_timestamp": "2024-01-01"}, "boundary_timestamp cannot be combined with sequence_by=up`d"),
    ({"tombstone_retention": "30 days"}, "tombstone_retention cannot be combined with sequence_by=up`d"),
])
def test_bitemporal_render__a_config_that_does_not_fit_sequence_by_is_refused(package, over, expected):
    with pytest.raises(AssertionError, match="compiler error") as error:
        package["_sparkload_validate_bitemporal"]("target.items", bitemporal(**over))
    assert f"sparkload model items (table target.items): {expected}" in str(error.value)
    assert "The table is unchanged." in str(error.value) and "\n" not in str(error.value).strip()


def test_bitemporal_render__a_fitting_config_passes_and_other_strategies_are_not_checked_here(package):
    assert not package["_sparkload_validate_bitemporal"]("target.items", bitemporal())
    assert not package["_sparkload_validate_bitemporal"]("target.items", bitemporal(strategy="upsert", merge_key=[]))


@pytest.mark.parametrize("columns, expected", [
    (COLUMNS, "sequence_by column `up`d` is not among the model's columns (id, na`me, deleted, seq, _dlt_load_id, _dlt_id) (loads 1700000000.1, it's)."),
    (COLUMNS + [{"name": "up`d", "type": "string"}],
     "sequence_by column `up`d` is string (loads 1700000000.1, it's); strategy=scd2 needs a date or timestamp"),
])
def test_bitemporal_render__the_sequence_column_must_be_a_date_or_timestamp_of_the_batch(package, columns, expected):
    with pytest.raises(AssertionError, match="compiler error") as error:
        sql_of(package, args(bitemporal(), columns=columns))
    assert expected in str(error.value)
    assert sql_of(package, args(bitemporal(), columns=COLUMNS + [{"name": "up`d", "type": "date"}])).startswith("merge into")
