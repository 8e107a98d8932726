"""sequence_by rendered (fast tier; tests/materialization/test_sequence_by.py judges what it does): the
version comparison, the NULL check and tie-aware duplicate check in the ranking, the tombstone steps, and
the config checks with their one-line messages."""
from __future__ import annotations

import pytest

from ..support.macros import Package, args, cfg, ctes, sql_of

pytestmark = pytest.mark.fast

SEQ = dict(strategy="upsert", sequence_by=["seq"], tombstone_retention=None)


@pytest.fixture(scope="module")
def package() -> Package:
    return Package()


def test_sequence_render__a_version_wins_on_a_higher_sequence_or_an_equal_one_of_a_later_load(package):
    wins = package["get_sparkload_sequence_wins_sql"](["s.a", "s.b", "s.l"], ["t.a", "t.b", "t.l"])
    assert wins == ("(t.a is null or s.a > t.a or (s.a = t.a and "
                    "(t.b is null or s.b > t.b or (s.b = t.b and s.l >= t.l))))")


def test_sequence_render__upsert_updates_and_deletes_only_when_the_batch_row_is_not_older(package):
    sql = sql_of(package, args(cfg(**SEQ, hard_delete="deleted")))
    assert ctes(sql) == ["batch", "survivors", "tombstones", "buried"]
    newer = "(t.`seq` is null or s.`seq` > t.`seq` or (s.`seq` = t.`seq` and s.`_dlt_load_id` >= t.`_dlt_load_id`))"
    assert f"when matched and {newer} and coalesce(s.`deleted`, false) then delete" in sql
    assert f"when matched and {newer} then update set" in sql
    assert "when not matched and not coalesce(s.`deleted`, false) and not s.`__sparkload_buried` then insert" in sql
    # ranked by sequence first; a second row of a key is an error only on a tie of load and sequence
    assert "order by `seq` desc, `_dlt_load_id` desc, `_dlt_id`" in sql
    assert "lead(struct(`_dlt_load_id`, `seq`))" in sql and "= struct(`_dlt_load_id`, `seq`) then raise_error(" in sql
    assert "when `seq` is null then raise_error(concat('sparkload model items (table target.items): sequence_by column `seq` is NULL in load '" in sql
    # live tombstones of this target: deleted at most 30 days before the newest load
    assert "`loaded_at` >= cast('2024-01-01' as timestamp) - interval 2592000 seconds" in sql
    assert "where `target` = 'target.items'" in sql


def test_sequence_render__without_hard_delete_there_are_no_tombstones(package):
    sql = sql_of(package, args(cfg(**SEQ)))
    assert ctes(sql) == ["batch", "survivors"] and "tombstone" not in sql
    assert "when not matched and not false then insert" in sql


def test_sequence_render__delete_insert_with_sequence_by_is_the_upsert_statement_without_its_duplicate_error(package):
    sql = sql_of(package, args(cfg(**dict(SEQ, strategy="delete-insert"))))
    assert "when matched and (t.`seq` is null" in sql and "`__sparkload_action`" not in sql
    assert "more than once" not in sql


def test_sequence_render__without_sequence_by_upsert_renders_as_before(package):
    sql = sql_of(package, args(cfg(strategy="upsert", sequence_by=[], hard_delete="deleted")))
    assert "when matched and coalesce(s.`deleted`, false) then delete when matched then update" in sql
    assert "lead(`_dlt_load_id`)" in sql and "`seq` desc" not in sql and "raise_error" in sql


def test_sequence_render__tombstones_keep_the_newest_delete_per_key_and_drop_expired_ones(package):
    package.statements.clear()
    package["run_sparkload_record_tombstones"](args(cfg(**dict(SEQ, tombstone_retention="2 hours"), hard_delete="deleted")))
    create, merge = (" ".join(s.split()) for s in package.statements)
    assert create.startswith("create table if not exists `target`.`_sparkload_tombstones` (`target` string, `key` string,")
    assert merge.startswith("merge into `target`.`_sparkload_tombstones` as t")
    assert "to_json(named_struct('id', s.`id`), map('timestampFormat', 'yyyy-MM-dd\\'T\\'HH:mm:ss.SSSSSSXXX')) as `key`" in merge
    assert "from_json(t.`sequence`, '`seq` bigint', map(" in merge
    # expired tombstones come in as source rows of their own target; no `not matched by source`, which would
    # scan (and conflict over) every target's tombstones
    assert ("from `target`.`_sparkload_tombstones` as t left anti join `deletes` as d on d.`key` = t.`key` "
            "where t.`target` = 'target.items' and t.`loaded_at` < cast('2024-01-01' as timestamp) - interval 7200 seconds") in merge
    assert "on t.`target` = 'target.items' and t.`key` = s.`key` when matched and s.`__sparkload_expired` then delete" in merge
    assert "not matched by source" not in merge


@pytest.mark.parametrize("deletes, statements", [(0, 1), (2, 2), (None, 2)])
def test_sequence_render__a_batch_that_deletes_nothing_sends_no_tombstones_merge(package, deletes, statements):
    """The batch statistics count the deletes (None: not counted, as a caller that did not ask)."""
    package.statements.clear()
    stats = {"rows": 3, "bounds": {"id": ["1", "3"]}, "key_values": None, "loads": {}, "deletes": deletes}
    package["run_sparkload_record_tombstones"](args(cfg(**SEQ, hard_delete="deleted"), stats=stats))
    assert len(package.statements) == statements and package.statements[0].lstrip().startswith("create table if not exists")


def test_sequence_render__the_statistics_count_the_deletes_they_are_asked_for(package):
    package.statements.clear()
    queries = []
    package.ctx["run_query"] = lambda sql: queries.append(" ".join(sql.split())) or []
    package["fetch_sparkload_batch_stats"]("select * from `b`", ["id"], deleted="coalesce(`__sparkload_batch`.`deleted`, false)")
    package["fetch_sparkload_batch_stats"]("select * from `b`", ["id"])
    assert queries[0].count("count_if(") == 1 and ", count_if(coalesce(`__sparkload_batch`.`deleted`, false)) from (" in queries[0]
    assert "count_if(" not in queries[1]


@pytest.mark.parametrize("over, message", [
    (dict(strategy="insert-only"), "sequence_by applies to strategy=upsert, delete-insert and scd2 of write_disposition=merge, not strategy=insert-only."),
    (dict(write_disposition="append", strategy=None), "not write_disposition=append."),
    (dict(primary_key=[]), "needs primary_key."),
    (dict(strategy="delete-insert", merge_key=["day"]), "sequence_by with merge_key=day is not defined"),
    (dict(strategy="delete-insert", deduplicated=True), "sequence_by with deduplicated=true is not defined"),
    (dict(tombstone_retention="30 days"), "tombstone_retention=30 days applies only with sequence_by and hard_delete"),
    (dict(hard_delete="deleted", tombstone_retention="a month"), "tombstone_retention=a month is not a duration"),
])
def test_sequence_render__config_checks_refuse_with_one_line(package, over, message):
    given = dict(cfg(**SEQ)); given.update(over)
    with pytest.raises(AssertionError) as raised:
        package["_sparkload_validate_sequence"](package["this"], given)
    text = str(raised.value)
    assert message in text and "sparkload model items (table target.items):" in text and "\n" not in text.strip()


def test_sequence_render__valid_configs_pass(package):
    for over in (dict(), dict(hard_delete="deleted", tombstone_retention="90 days"), dict(strategy="delete-insert"),
                 dict(strategy="scd2", primary_key=[]), dict(sequence_by=[], strategy="insert-only")):
        given = dict(cfg(**SEQ)); given.update(over)
        package["_sparkload_validate_sequence"](package["this"], given)


@pytest.mark.parametrize("value, seconds", [("30 days", 2592000), ("1 day", 86400), (" 2 hours ", 7200), ("90 minutes", 5400),
                                            ("30d", 2592000), ("15 s", 15), (30, 30), ("days", None), ("30 dayz", None),
                                            ("-1 days", None), (-5, None), (True, None), ("1.5h", None)])
def test_sequence_render__durations(package, value, seconds):
    assert package["sparkload_duration_seconds"](value) == seconds
