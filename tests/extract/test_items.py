"""What a resource yields, as dlt takes it (issue 19 items 2-3; the same inputs are compared with the real
dlt in tests/parity_extract): a yielded None is dropped, a yielded list is a page of items, an item that
is not a dict becomes a row with a `value` column (a list or tuple item a child table `<table>__value`),
and a None inside a page is an item: a row with no values. Two keys of one item that normalize to one
column fail the load, naming both keys (dlt keeps one value silently)."""
from __future__ import annotations

import pytest

import python_extract as sl
from python_extract.normalize.exceptions import ColumnNameCollision

from ..support.staging import loads, staged


def test_non_dict_items__follow_dlt(pipe):
    @sl.resource(name="t")
    def t():
        yield None                        # dropped
        yield {"id": 1}
        yield [None, {"id": 2}]           # a page: the None is an item, a row without values
        yield 5                           # a scalar: column `value`
        yield (6, 7)                      # a tuple: one item, its values in t__value
        yield [[8, 9], []]                # a page of two list items

    pipe.run(t)
    rows = pipe.spark.table(f"{pipe.dataset_name}.t").collect()
    assert sorted(((r["id"], r["value"]) for r in rows), key=repr) == sorted(
        [(1, None), (2, None), (None, 5)] + [(None, None)] * 4, key=repr)
    by_id = {r["_dlt_id"]: r for r in rows}
    children = {}
    for r in pipe.spark.table(f"{pipe.dataset_name}.t__value").collect():
        children.setdefault(r["_dlt_parent_id"], []).append((r["_dlt_list_idx"], r["value"]))
    assert sorted(sorted(v) for v in children.values()) == [[(0, 6), (1, 7)], [(0, 8), (1, 9)]]
    assert all(by_id[p]["id"] is None and by_id[p]["value"] is None for p in children)


def test_only_none__lands_nothing(pipe):
    @sl.resource(name="t")
    def t():
        yield None

    info = pipe.run(t)
    assert info.row_counts == {} and not pipe.spark.catalog.tableExists(f"{pipe.dataset_name}.t")


@pytest.mark.parametrize("item, first, second, column", [
    ({"id": 1, "ID": 2, "Id": 3}, "id", "ID", "id"),
    ({"a_b": 1, "aB": 2}, "a_b", "aB", "a_b"),
    ({"x": {"y": 1}, "x__y": 2}, "x__y", "x.y", "x__y"),
    ({"id": 1, "tags": [1], "Tags": [2]}, "tags", "Tags", "tags"),
], ids=["case", "camel", "path", "lists"])
def test_colliding_names__fail_the_load_naming_both_keys(pipe, item, first, second, column):
    pipe.run([{"id": 0}], table_name="t")
    before = loads(pipe)
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run([{"id": 9}, item], table_name="t")
    error = failed.value
    assert isinstance(error.__cause__, ColumnNameCollision)
    assert str(error) == (
        f"extract step failed load {error.load_id} table t: table t: keys {first!r} and {second!r} of one item both "
        f"become column {column!r} after snake_case naming; rename one of them in the resource (e.g. with add_map)")
    assert loads(pipe) == before and staged(pipe, "t", "id") == [(0,)]


def test_same_name_in_different_items__is_one_column(pipe):
    pipe.run([{"ID": 1}, {"id": 2}, {"Id": 3}], table_name="t")
    assert staged(pipe, "t", "id") == [(1,), (2,), (3,)]


def test_arrow_values_that_do_not_fit__fail_the_load_naming_table_column_and_load_and_change_nothing(pipe):
    """A uint64 above 2^63-1 cannot be a bigint: the load fails naming the table, the column and the load
    (pyarrow's own message names neither), and nothing of it lands."""
    import pyarrow as pa

    pipe.run(sl.resource([pa.table({"id": [1], "n": pa.array([5], pa.uint64())})], name="t"))
    before = loads(pipe)
    too_big = pa.table({"id": [2, 3], "n": pa.array([2**63 + 5, 1], pa.uint64())})
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run(sl.resource([too_big], name="t"))
    message = str(failed.value)
    assert message.startswith(f"extract step failed load {failed.value.load_id} table t: table t column n: the Arrow "
                              "uint64 values do not fit the column's type bigint (")
    assert "\n" not in message
    assert loads(pipe) == before and staged(pipe, "t", "id", "n") == [(1, 5)]
