"""boundary_column (snapshot replay) rendered with dbt's Jinja and a stub adapter: the config checks, the
one query that reads each load's date (quoted, escaped) and what it refuses, the order of the loads, and
the boundary a group hands its strategy. A fast tier only: tests/materialization/test_snapshot_replay.py
judges the behaviour on real Spark."""
from __future__ import annotations

from typing import List

import pytest

from ..support.macros import Package, Relation, cfg

pytestmark = pytest.mark.fast

TARGET = Relation("an'alytics", "customers_history")
SCD2 = dict(strategy="scd2", merge_key=[], primary_key=[], boundary_column="snap`date", sequence_by=[])


class Answering(Package):
    """Every query returns `rows` (and is kept in `queries`)."""

    def __init__(self, rows: List[tuple]):
        self.rows, self.queries = rows, []
        super().__init__()

    def _no_queries(self, sql):
        self.queries.append(sql)
        return self.rows


@pytest.fixture(scope="module")
def package() -> Package:
    return Package()


@pytest.mark.parametrize("over, message", [
    (dict(boundary_column=["a", "b"]), r"boundary_column=\['a', 'b'\] must name one column"),
    (dict(boundary_column="_dlt_load_id"), "boundary_column `_dlt_load_id` is a `_dlt` or validity column"),
    (dict(boundary_column="_dlt_valid_to"), "boundary_column `_dlt_valid_to` is a `_dlt` or validity column"),
    (dict(boundary_timestamp="2024-01-01"), "and boundary_timestamp=2024-01-01 both set the validity boundary; keep one."),
    (dict(sequence_by=["updated_at"]), r"\(one valid-from per load\) and sequence_by=updated_at \(a valid-from per row\)"),
])
def test_snapshot_render__a_conflicting_config_is_refused_naming_model_and_table(package, over, message):
    with pytest.raises(AssertionError, match=r"sparkload model items \(table an'alytics.customers_history\): .*" + message):
        package["_sparkload_validate_snapshot"](TARGET, cfg(**{**SCD2, **over}))


@pytest.mark.parametrize("over", [dict(boundary_column=None), dict(root={"name": "snap_cust"})])
def test_snapshot_render__without_the_key_or_in_a_child_model_nothing_is_checked(package, over):
    assert package["_sparkload_validate_snapshot"](TARGET, cfg(**{**SCD2, **over})) is None


PENDING = {"ids": ["1.1", "1.2", "1.3"], "pipelines": {"1.1": "crm"}, "inserted_at": {}, "covered": []}


def boundaries(rows, load_ids=("1.1", "1.2")):
    package = Answering(rows)
    found = package["fetch_sparkload_snapshot_boundaries"](TARGET, "select * from `raw`.`c`", PENDING, cfg(**SCD2), list(load_ids))
    return found, package.queries


def test_snapshot_render__one_query_reads_each_load_date_and_the_newest_applied_quoted_and_escaped():
    found, queries = boundaries([("pending", "1.2", 1, "2024-01-01", "2024-01-01", 0, "date"),
                                 ("pending", "1.1", 1, "2024-01-03", "2024-01-03", 0, "date"),
                                 ("applied", None, None, None, None, None, None)])
    assert found == {"1.2": "2024-01-01", "1.1": "2024-01-03"}
    sql = " ".join(queries[0].split())
    assert len(queries) == 1
    assert "count(distinct `snap``date`)" in sql and "max_by(`_dlt_load_id`, `snap``date`)" in sql
    assert "`_dlt_load_id` in ('1.1', '1.2')" in sql
    assert "from `an'alytics`.`_sparkload_applied_loads` where `target` = 'an\\'alytics.customers_history'" in sql


def test_snapshot_render__no_load_with_rows_needs_no_query():
    assert boundaries([], load_ids=()) == ({}, [])


@pytest.mark.parametrize("row, message", [
    (("pending", "1.2", 1, "x", "x", 0, "string"), r"boundary_column `snap`date` is of type string in load 1.2; expected a date or timestamp"),
    (("pending", "1.2", 1, "2024-01-01", "2024-01-01", 3, "date"), "boundary_column `snap`date` is NULL in 3 rows of load 1.2; every row of a snapshot carries its date"),
    (("pending", "1.2", 2, "2024-01-01", "2024-01-02", 0, "date"),
     r"boundary_column `snap`date` holds 2 values in load 1.2 \(2024-01-01 to 2024-01-02\); a load is one snapshot with one date. "
     r"To skip the load for this model only \(recorded in its ledger; every other model still applies it\): dbt run "
     r"--select items --vars \"{sparkload_skip_loads: {items: \['1.2'\]}}\". To skip it for every model that reads it "
     r"instead \(--abort affects every consumer of dataset raw, also models that have not applied it yet\): "
     r"sparkload pipeline loads crm --dataset-name raw --abort 1.2"),
    (("applied", "0.9", None, None, "2024-01-02", None, None),
     r"load 1.1 is the snapshot of 2024-01-01 \(boundary_column `snap`date`\), older than 2024-01-02 of load 0.9, "
     r"which the table already applied; snapshots apply in date order. To replay every snapshot in date order "
     r"from staging: dbt run --full-refresh --select items."),
])
def test_snapshot_render__a_load_is_refused_naming_table_column_load_and_values(row, message):
    rows = [("pending", "1.1", 1, "2024-01-01", "2024-01-01", 0, "date"), ("pending", "1.3", 1, "2024-01-05", "2024-01-05", 0, "date"), row]
    with pytest.raises(AssertionError, match=r"\(table an'alytics.customers_history\): " + message):
        boundaries(rows)


def test_snapshot_render__an_equal_date_is_not_older_than_the_applied_one():
    found, _ = boundaries([("pending", "1.2", 1, "2024-01-02", "2024-01-02", 0, "date"),
                           ("applied", "0.9", None, None, "2024-01-02", None, None)])
    assert found == {"1.2": "2024-01-02"}


def test_snapshot_render__loads_go_in_date_order_then_load_order(package):
    order = package["_sparkload_boundary_order"]({"1.3": "2024-01-02", "1.1": "2024-01-03", "1.2": "2024-01-02 00:00:00.5", "1.0": "2024-01-02"})
    assert [id for _, id in order] == ["1.0", "1.3", "1.2", "1.1"]


@pytest.mark.parametrize("group, boundary_timestamp, expected", [
    ({"boundary": "2024-01-02"}, None, "cast('2024-01-02' as timestamp)"),
    ({}, "2024-05-05", "cast('2024-05-05' as timestamp)"),
    ({"boundary": None}, None, "cast('2024-03-03 10:00:00' as timestamp)"),
])
def test_snapshot_render__a_group_hands_its_date_to_the_strategy_as_its_boundary(package, group, boundary_timestamp, expected):
    pending = {"ids": ["1.1"], "inserted_at": {"1.1": "2024-03-03 10:00:00"}, "pipelines": {}, "covered": []}
    got = package["sparkload_strategy_args"](TARGET, {"load_ids": ["1.1"], "sql": None, "stats": None, "rows": 0, **group},
                                             [], [], cfg(**{**SCD2, "boundary_timestamp": boundary_timestamp}), pending, False)
    assert got["boundary"] == expected
