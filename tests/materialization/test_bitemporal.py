"""strategy='scd2' with sequence_by: versions valid from a column of the row (the day of `updated_at`
here), whatever order the loads arrive in; late versions slotted into history, late deletes, ties and
NULL sequence values refused, nested rows following their root's versions, and (a property) every
arrival order of the same changes giving the same table (docs/beyond-dlt.md#bitemporal-scd2)."""
from __future__ import annotations

import datetime as dt
import itertools
from typing import Dict, List, Optional

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st

from ..support.dbt import TARGETS
from ..support.stage import Stage
from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)
# validity shown as the day of the month (versions at noon UTC keep their day in any session time zone)
DAYS = "day(_dlt_valid_from), day(_dlt_valid_to)"
COLS = {"deleted": {"data_type": "bool"}, "updated_at": {"data_type": "timestamp"}}


def day(n: int) -> dt.datetime:
    return dt.datetime(2024, 1, n, 12, tzinfo=dt.timezone.utc)


def row(key: int, n: int, c1: Optional[str] = None, deleted: bool = False) -> Dict:
    return {"customer_key": key, "updated_at": day(n), "c1": c1, **({"deleted": True} if deleted else {})}


def land(stage: Stage, rows: List[Dict]) -> str:
    return stage.load(rows, table="dim_customer", columns=COLS)


def dim(spark, names, extra: str = "") -> List[tuple]:
    return table(spark, f"{names.target}.bt_dim", f"customer_key, c1, {DAYS}{extra}")


@pytest.mark.extended("thrift")
@pytest.mark.over_the_wire
def test_bitemporal__versions_are_valid_from_their_sequence_and_a_late_one_is_slotted_between_two_others(
        spark, stage, dbt, names):
    # load 1: customer 1 in three versions, out of order within the load; customer 2 once
    land(stage, [row(1, 5, "c"), row(1, 2, "a"), row(1, 8, "d"), row(2, 3, "x")])
    dbt.run("bt_dim")
    assert dim(spark, names) == rows_of((1, "a", 2, 5), (1, "c", 5, 8), (1, "d", 8, None), (2, "x", 3, None))
    # load 2: a late version of customer 1 between days 2 and 5, and one older than all it has; customer 2 updated
    land(stage, [row(1, 3, "b"), row(1, 1, "z"), row(2, 9, "y")])
    dbt.run("bt_dim")
    assert dim(spark, names) == rows_of(
        (1, "z", 1, 2), (1, "a", 2, 3), (1, "b", 3, 5), (1, "c", 5, 8), (1, "d", 8, None), (2, "x", 3, 9), (2, "y", 9, None))


@pytest.mark.extended
def test_bitemporal__each_version_keeps_its_load_so_the_table_as_loaded_can_be_rebuilt(spark, stage, dbt, names):
    first = land(stage, [row(1, 2, "a"), row(1, 6, "c")])
    dbt.run("bt_dim")
    after_first = dim(spark, names)
    second = land(stage, [row(1, 4, "b")])
    dbt.run("bt_dim")
    loads = {first: "L1", second: "L2"}
    got = table(spark, f"{names.target}.bt_dim", f"c1, {DAYS}, _dlt_load_id")
    assert [r[:3] + (loads[r[3]],) for r in got] == rows_of(("a", 2, 4, "L1"), ("b", 4, 6, "L2"), ("c", 6, None, "L1"))
    # the as-loaded query of docs/beyond-dlt.md: the loads up to L1, validity recomputed among them
    as_loaded = spark.sql(f"""
        select customer_key, c1, day(_dlt_valid_from),
          day(case when _dlt_valid_from = _dlt_valid_to then _dlt_valid_to
                   else lead(_dlt_valid_from) over (partition by customer_key order by _dlt_valid_from) end)
        from {names.target}.bt_dim
        where _dlt_load_id in (select load_id from {names.staging}._dlt_loads
                               where inserted_at <= (select inserted_at from {names.staging}._dlt_loads where load_id = '{first}'))
    """).collect()
    assert rows_of(*[tuple(r) for r in as_loaded]) == after_first == rows_of((1, "a", 2, 6), (1, "c", 6, None))


@pytest.mark.extended
def test_bitemporal__a_repeated_row_adds_nothing_and_equal_content_later_is_a_version_of_its_own(spark, stage, dbt, names):
    land(stage, [row(1, 2, "a"), row(1, 2, "a"), row(2, 2, "p")])
    dbt.run("bt_dim")
    # load 2: the same rows again (a re-delivery), and customer 1 unchanged but with a later updated_at
    land(stage, [row(1, 2, "a"), row(2, 2, "p"), row(1, 4, "a")])
    dbt.run("bt_dim")
    assert dim(spark, names) == rows_of((1, "a", 2, 4), (1, "a", 4, None), (2, "p", 2, None))
    # a version is its content: the re-delivered row kept its first load, the later one has the same content
    ids = spark.sql(f"select day(_dlt_valid_from) d, _dlt_load_id l from {names.target}.bt_dim where customer_key = 1").collect()
    assert sorted((r["d"], r["l"]) for r in ids) == [(2, stage.load_ids[0]), (4, stage.load_ids[1])]


@pytest.mark.extended
def test_bitemporal__a_late_delete_closes_the_version_valid_at_its_sequence__the_worked_example_of_the_docs(
        spark, stage, dbt, names):
    land(stage, [row(1, 2, "a"), row(1, 6, "c"), row(2, 2, "p")])
    dbt.run("bt_dim")
    # load 2: a delete of customer 1 on day 4 (late: day 6 is known); customer 2 updated
    land(stage, [row(1, 4, deleted=True), row(2, 5, "q")])
    dbt.run("bt_dim")
    # a delete is kept as a zero-width row (valid from = valid to): it never answers "as of" a time
    assert dim(spark, names, ", coalesce(deleted, false)") == rows_of(
        (1, "a", 2, 4, False), (1, None, 4, 4, True), (1, "c", 6, None, False), (2, "p", 2, 5, False), (2, "q", 5, None, False))
    # load 3: a version of customer 1 on day 3 ends at the delete that arrived before it
    land(stage, [row(1, 3, "b")])
    dbt.run("bt_dim")
    loads = {load_id: f"L{i}" for i, load_id in enumerate(stage.load_ids, 1)}
    got = table(spark, f"{names.target}.bt_dim", f"customer_key, c1, deleted, {DAYS}, _dlt_load_id")
    assert [r[:-1] + (loads[r[-1]],) for r in got] == rows_of(
        (1, "a", None, 2, 3, "L1"), (1, "b", None, 3, 4, "L3"), (1, None, True, 4, 4, "L2"), (1, "c", None, 6, None, "L1"),
        (2, "p", None, 2, 5, "L1"), (2, "q", None, 5, None, "L2"))
    # as of day 5 (noon): customer 1 was deleted, customer 2 was q
    as_of = spark.sql(f"select customer_key, c1 from {names.target}.bt_dim where _dlt_valid_from <= timestamp'2024-01-05 12:00:00+00:00' "
                      "and (_dlt_valid_to > timestamp'2024-01-05 12:00:00+00:00' or _dlt_valid_to is null)").collect()
    assert [tuple(r) for r in as_of] == [(2, "q")]


@pytest.mark.extended
def test_bitemporal__a_tie_in_the_sequence_is_refused_naming_table_key_and_loads(spark, stage, dbt, names):
    first = land(stage, [row(1, 2, "a"), row(2, 2, "p")])
    dbt.run("bt_dim")
    # within one load: two different rows of customer 2 on day 5
    second = land(stage, [row(1, 3, "b"), row(2, 5, "q"), row(2, 5, "r")])
    result = dbt.run("bt_dim", expect_success=False)
    message = " ".join(" ".join(dbt.logs).split())
    assert not result.success
    assert (f"sparkload model bt_dim (table {names.target}.bt_dim): merge key customer_key=2 has different rows at "
            f"sequence_by `updated_at` = 2024-01-05") in message
    assert f"(loads {second}); a record has one version per sequence value. The table is unchanged." in message
    assert dim(spark, names) == rows_of((1, "a", 2, None), (2, "p", 2, None))


@pytest.mark.extended
def test_bitemporal__a_tie_with_a_version_of_an_earlier_load_is_refused(spark, stage, dbt, names):
    first = land(stage, [row(1, 2, "a")])
    dbt.run("bt_dim")
    second = land(stage, [row(1, 2, "changed")])
    assert not dbt.run("bt_dim", expect_success=False).success
    message = " ".join(" ".join(dbt.logs).split())
    assert f"merge key customer_key=1 has different rows at sequence_by `updated_at` = 2024-01-02" in message
    assert f"(loads {', '.join(sorted([first, second]))})" in message
    assert dim(spark, names) == rows_of((1, "a", 2, None))


@pytest.mark.extended
def test_bitemporal__a_null_sequence_value_is_refused_naming_table_column_and_load(spark, stage, dbt, names):
    land(stage, [row(1, 2, "a")])
    dbt.run("bt_dim")
    bad = land(stage, [row(1, 3, "b"), {"customer_key": 2, "c1": "q", "updated_at": None}])
    assert not dbt.run("bt_dim", expect_success=False).success
    message = " ".join(" ".join(dbt.logs).split())
    assert (f"sparkload model bt_dim (table {names.target}.bt_dim): sequence_by column `updated_at` is NULL in load {bad} "
            "for merge key customer_key=2") in message
    assert dim(spark, names) == rows_of((1, "a", 2, None))


@pytest.mark.extended
def test_bitemporal__options_validity_names_active_timestamp_row_version_and_a_date_sequence(spark, stage, dbt, names):
    def options():
        return table(spark, f"{names.target}.bt_options", "customer_key, c1, day(valid_from), year(valid_to) * 100 + day(valid_to)")

    def r(key, n, c1, h):
        return {"customer_key": key, "updated_on": dt.date(2024, 1, n), "c1": c1, "row_hash": h}

    stage.load([r(1, 5, "b", "h1"), r(2, 1, "p", "h9")], table="dim_customer")
    dbt.run("bt_options")
    # load 2: a late version; and customer 2 at the same day with the same row version (re-delivered, c1 ignored)
    stage.load([r(1, 2, "a", "h0"), r(2, 1, "p-ignored", "h9")], table="dim_customer")
    dbt.run("bt_options")
    assert options() == rows_of((1, "a", 2, 202405), (1, "b", 5, 999931), (2, "p", 1, 999931))


@pytest.mark.extended
def test_bitemporal__children_follow_their_root_versions(spark, stage, dbt, names):
    def versions():
        got = spark.sql(f"""select r.id, day(r._dlt_valid_from) d, day(r._dlt_valid_to) t, collect_list(o.sku) skus
                            from {names.target}.bt_cust r left join {names.target}.bt_cust__orders o on o._dlt_root_id = r._dlt_id
                            group by r.id, r._dlt_valid_from, r._dlt_valid_to""").collect()
        return sorted((x["id"], x["d"], x["t"], tuple(sorted(x["skus"]))) for x in got)

    stage.load([{"id": 1, "name": "a", "updated_at": day(5), "orders": [{"sku": "s1"}]}], table="customers")
    dbt.run("bt_cust+")
    # load 2: a late version with other orders, and a later one with the first version's orders
    stage.load([{"id": 1, "name": "a", "updated_at": day(2), "orders": [{"sku": "s0"}, {"sku": "s9"}]},
                {"id": 1, "name": "b", "updated_at": day(7), "orders": [{"sku": "s1"}]}], table="customers")
    dbt.run("bt_cust+")
    assert versions() == [(1, 2, 5, ("s0", "s9")), (1, 5, 7, ("s1",)), (1, 7, None, ("s1",))]


# the property: any arrival order of the same loads gives the same table, the one the events define
EVENTS = st.lists(st.tuples(st.integers(1, 2), st.integers(1, 9), st.sampled_from(["a", "b", "del"])),
                  min_size=1, max_size=8, unique_by=lambda e: (e[0], e[1])).filter(lambda es: any(w != "del" for *_, w in es))


def expected_table(events) -> List[tuple]:
    """Each (key, day) event valid to the key's next event; a delete zero-width."""
    out = []
    for key, group in itertools.groupby(sorted(events), key=lambda e: e[0]):
        group = list(group)
        for i, (_, n, what) in enumerate(group):
            nxt = group[i + 1][1] if i + 1 < len(group) else None
            out.append((key, None if what == "del" else what, n, n if what == "del" else nxt))
    return rows_of(*out)


# no shrinking: each example costs a few dbt runs; a failure prints its example whole
@settings(max_examples=5, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@pytest.mark.extended
@example(events=[(1, 5, "a"), (1, 3, "del"), (1, 2, "b"), (2, 4, "a"), (2, 6, "del")], cuts=[2, 4], order=(2, 1, 0))
@given(events=EVENTS, cuts=st.lists(st.integers(0, 8), min_size=2, max_size=2), order=st.permutations(range(3)))
def test_bitemporal__any_arrival_order_of_the_loads_gives_the_same_table(spark, lakehouse, dbt, events, cuts, order):
    from tests.support.dbt import Dbt, Names

    n = next(EXAMPLE)
    names = Names(staging=f"{dbt.names.staging}_{n}", target=f"{dbt.names.target}_{n}")
    stage, run = Stage(spark, lakehouse, names), Dbt(names, dbt.target)
    a, b = sorted(min(c, len(events)) for c in cuts)
    loads = [events[:a], events[a:b], events[b:]]
    for i in order:  # each load applied on its own, in this arrival order
        if loads[i]:
            land(stage, [row(k, n, None if w == "del" else w, deleted=w == "del") for k, n, w in loads[i]])
            run.run("bt_dim")
    assert dim(spark, names) == expected_table(events)


EXAMPLE = itertools.count(1)
