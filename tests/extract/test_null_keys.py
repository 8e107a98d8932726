"""NULL keys (issue 12 item 2): rows with NULL (or no value) in a primary_key or merge_key column fail the
extraction with one error naming the table, the column, the load and the number of such rows; nothing of
the load lands and the cursor stays where it was. dlt fails such loads too (at its normalize step,
`Cannot coerce NULL in table ... column ... which is not nullable`)."""
from __future__ import annotations

import re

import pytest

import python_extract as sl
from python_extract.normalize.exceptions import NullInNotNullColumn

from ..support.staging import cursor, loads, staged


def _fails_with_null_keys(pipe, data, table, column, rows, hint):
    before = loads(pipe)
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run(data)
    error = failed.value
    assert isinstance(error.__cause__, NullInNotNullColumn)
    message = str(error)
    assert re.search(rf"load {re.escape(error.load_id)} table {table}: table {table} column {column}: {rows} rows? "
                     rf"with NULL in a {hint} column", message), message
    assert loads(pipe) == before
    return error


def test_null_primary_key__fails_the_extraction_and_keeps_the_cursor(pipe):
    batches = [[{"id": 1, "ts": 1}, {"id": 2, "ts": 2}]]

    @sl.resource(name="orders", primary_key="id", write_disposition="merge")
    def orders(ts=sl.incremental("ts")):
        yield batches[-1]

    pipe.run(orders)
    # load 2: two rows without a key (one NULL, one missing) and a good one
    batches.append([{"id": None, "ts": 3}, {"ts": 4}, {"id": 5, "ts": 5}])
    _fails_with_null_keys(pipe, orders, "orders", "id", 2, "primary_key")
    assert staged(pipe, "orders", "id", "ts") == [(1, 1), (2, 2)]
    assert cursor(pipe, "orders", "ts") == 2

    # load 3: the source fixed its data; the rows the failed load held back land now
    batches.append([{"id": 3, "ts": 3}, {"id": 4, "ts": 4}, {"id": 5, "ts": 5}])
    pipe.run(orders)
    assert staged(pipe, "orders", "id", "ts") == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    assert cursor(pipe, "orders", "ts") == 5


@pytest.mark.parametrize("items", [
    [{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": None, "b": None}],   # one batch in Arrow
    [{"a": 1, "b": "x"}, {"a": "2", "b": None}, {"a": None, "b": None}],  # a batch the row-by-row path types
], ids=["arrow_batch", "row_by_row"])
def test_null_in_a_compound_merge_key__counts_the_rows_per_column(pipe, items):
    @sl.resource(name="events", merge_key=("a", "b"), write_disposition="merge")
    def events():
        yield items

    error = _fails_with_null_keys(pipe, events, "events", "a", 1, "merge_key")
    assert "table events column b: 2 rows" in str(error)
    assert not pipe.spark.catalog.tableExists(f"{pipe.dataset_name}.events")


def test_null_key_in_an_arrow_table_item__fails_the_extraction(pipe):
    import pyarrow as pa

    @sl.resource(name="t", primary_key="id")
    def t():
        yield pa.table({"id": [1, None, None], "v": ["a", "b", "c"]})

    _fails_with_null_keys(pipe, t, "t", "id", 2, "primary_key")


def test_nullable_false_column_hint__is_checked_like_a_key(pipe):
    @sl.resource(name="t", columns={"v": {"nullable": False}})
    def t():
        yield [{"id": 1, "v": "x"}, {"id": 2}]

    _fails_with_null_keys(pipe, t, "t", "v", 1, "nullable=False")


def test_null_keys__dlt_fails_the_same_load(tmp_path):
    import dlt

    from tests.support.extract_sides import DltSide

    side = DltSide(tmp_path, "null_keys")
    for name, hints in (("pk", {"primary_key": "id"}), ("mk", {"merge_key": "id", "write_disposition": "merge"})):
        with pytest.raises(Exception, match=rf"Cannot coerce NULL in table `{name}` column `id`"):
            side.run([dlt.resource([{"id": 1}, {"id": None}], name=name, **hints)])
        side.pipeline.drop_pending_packages()
        assert name not in side.tables()


@pytest.mark.parametrize("items", [
    [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}],    # one batch in Arrow
    [{"id": 1, "name": "a"}, {"id": "2", "name": "b"}, {"id": 3, "name": "c"}],  # a batch the row-by-row path types
], ids=["arrow_batch", "row_by_row"])
def test_misspelt_primary_key__is_reported_as_a_missing_column_with_the_closest_one(pipe, items):
    """Issue 40 item 5: a primary_key naming a column no row has is said to be missing, not NULL."""
    @sl.resource(name="orders", primary_key="idd", write_disposition="merge")
    def orders():
        yield items

    before = loads(pipe)
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run(orders)
    error = failed.value
    assert isinstance(error.__cause__, NullInNotNullColumn)
    assert str(error) == (f"extract step failed load {error.load_id} table orders: table orders column idd: the "
                          "primary_key column is missing from 3 rows (the table has id, name; did you mean 'id'?); "
                          "nothing of this load was kept and no cursor moved")
    assert loads(pipe) == before
    assert not pipe.spark.catalog.tableExists(f"{pipe.dataset_name}.orders")


def test_null_primary_key_in_every_row__is_still_reported_as_null_not_missing(pipe):
    @sl.resource(name="orders", primary_key="id", write_disposition="merge")
    def orders():
        yield [{"id": None, "name": "a"}, {"id": None, "name": "b"}]  # Arrow drops the all-NULL column: still NULL

    _fails_with_null_keys(pipe, orders, "orders", "id", 2, "primary_key")
