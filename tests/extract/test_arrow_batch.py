"""The Arrow batch normalizer (the fast path) gives the same tables, columns, types and links as the
row-by-row reference path, and hands back every batch it cannot express exactly (pure Python)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from python_extract.normalize import Schema, normalize_item
from python_extract.normalize.arrow_batch import normalize_batch

pytestmark = pytest.mark.fast

IDS = ("_dlt_id", "_dlt_parent_id", "_dlt_root_id")
ITEMS = [
    {"id": 1, "Name": "Ann", "at": "2024-01-02T03:04:05Z", "address": {"city": "Oslo", "geo": {"lat": 1.5}},
     "orders": [{"sku": "A", "qty": 2, "tags": ["x", "y"]}, {"sku": "B", "qty": None, "tags": []}],
     "flag": True, "price": Decimal("1.25"), "matrix": [[1, 2], [3]]},
    {"id": 2, "Name": None, "at": "2024-01-03T00:00:00+01:00", "address": None, "orders": None, "extra": 7.5},
    {"id": 3, "orders": [{"sku": "C", "tags": ["z"]}], "address": {"city": "Rome"}, "matrix": [[4], [], None]},
]


def _reference(items, load_id="1.0"):
    schema = Schema("s")
    schema.table("t")
    tables = {}
    for item in items:
        for table, row in normalize_item(item, "t", load_id):
            schema.table(table)
            tables.setdefault(table, []).append(dict(schema.coerce_row(table, row)))
    return schema, tables


def _fast(items, load_id="1.0"):
    schema = Schema("s")
    schema.table("t")
    out = normalize_batch(items, "t", load_id, schema, lambda child, parent: schema.table(child, parent=parent))
    return schema, out


def _comparable(rows):
    return sorted((tuple(sorted((k, v) for k, v in r.items() if k not in IDS and v is not None)) for r in rows), key=repr)


def test_arrow_batch__matches_the_row_by_row_path_in_tables_values_and_types():
    ref_schema, ref = _reference(ITEMS)
    fast_schema, fast = _fast(ITEMS)
    assert sorted(fast) == sorted(ref) == ["t", "t__matrix", "t__matrix__list", "t__orders", "t__orders__tags"]
    for table in ref:
        assert _comparable(fast[table].to_pylist()) == _comparable(ref[table]), table
        assert fast_schema.typed_columns(table) == ref_schema.typed_columns(table), table


def test_arrow_batch__links_children_to_parents_and_roots():
    _, fast = _fast(ITEMS)
    roots = {r["id"]: r["_dlt_id"] for r in fast["t"].to_pylist()}
    orders = fast["t__orders"].to_pylist()
    tags = fast["t__orders__tags"].to_pylist()
    by_sku = {o["sku"]: o for o in orders}
    assert by_sku["A"]["_dlt_parent_id"] == roots[1] == by_sku["B"]["_dlt_root_id"]
    assert (by_sku["A"]["_dlt_list_idx"], by_sku["B"]["_dlt_list_idx"], by_sku["C"]["_dlt_list_idx"]) == (0, 1, 0)
    assert {(t["value"], t["_dlt_list_idx"], t["_dlt_parent_id"], t["_dlt_root_id"]) for t in tags} == {
        ("x", 0, by_sku["A"]["_dlt_id"], roots[1]), ("y", 1, by_sku["A"]["_dlt_id"], roots[1]),
        ("z", 0, by_sku["C"]["_dlt_id"], roots[3])}
    all_ids = [r["_dlt_id"] for t in fast.values() for r in t.to_pylist()]
    assert len(set(all_ids)) == len(all_ids) and all(len(i) == 14 for i in all_ids)
    assert {r["_dlt_load_id"] for t in fast.values() for r in t.to_pylist()} == {"1.0"}


@pytest.mark.parametrize("items", [
    [{"a": 1}, {"a": "x"}],                       # a clash Arrow cannot type
    [{"a": 1}, {"a": 2.5}],                        # Arrow makes a double, dlt a bigint and a variant
    [{"a": 1}, {"a": Decimal("2.5")}],             # the same with a decimal
    [{"a": [1, 2.5]}],                             # ... in a child table
    [{"a": dt.date(2024, 1, 1)}, {"a": dt.datetime(2024, 1, 1, 1)}],  # Arrow merges into a date
    [{"a": b"x"}, {"a": "x"}],                     # Arrow merges into binary
    [{"a": "2024-01-01T00:00:00Z"}, {"a": "2024-01-01 10:00"}],  # a form Arrow does not parse as dlt
    [{"a": {"b": 1}, "a__b": 2}],                  # names that collide
    [{"_dlt_id": "mine", "a": 1}],                 # a user row id
    [{"a": 10 ** 30}],                             # beyond bigint
])
def test_arrow_batch__hands_back_batches_it_cannot_express(items):
    assert _fast(items)[1] is None


@pytest.mark.parametrize("items", [
    [{"a": 2.5}, {"a": 1}],                        # a float first: a double column takes the int
    [{"a": Decimal("2.5")}, {"a": 1}],
    [{"a": [[1, 2], [3]]}, {"a": [[4]]}],         # lists of lists
    [{"a": "2024-01-01T00:00:00+01:00"}, {"a": "2024-01-02 00:00:00Z"}],
    [{"a": "2024-01-01T00:00:00"}, {"a": None}],  # naive ISO text is UTC
    [{"a": None}, {"a": None, "b": 1}],            # a column with only NULLs gets no type yet
    [None, {"a": 1}],                              # a None inside a page is an all-NULL row
])
def test_arrow_batch__types_mixed_batches_as_the_row_by_row_path(items):
    ref_schema, ref = _reference(items)
    fast_schema, fast = _fast(items)
    assert fast is not None and sorted(fast) == sorted(ref)
    for table in ref:
        assert _comparable(fast[table].to_pylist()) == _comparable(ref[table]), table
        assert fast_schema.typed_columns(table) == ref_schema.typed_columns(table), table


def test_arrow_batch__hands_back_a_clash_with_the_known_column_type():
    schema, _ = _fast([{"a": True}])
    out = normalize_batch([{"a": "yes!"}], "t", "2.0", schema, lambda c, p: None)
    assert out is None and schema.typed_columns("t")["a"] == "bool"


def test_child_ids__the_column_at_once_equals_the_row_by_row_ids():
    import numpy as np
    import pyarrow as pa

    from python_extract.normalize.ids import child_id, child_ids, random_ids

    parents = random_ids(50).take(pa.array(np.repeat(np.arange(50), 3)))  # three children per parent
    idx = np.tile(np.arange(3), 50)
    assert child_ids(parents, "t__l", idx).to_pylist() == [child_id(p, "t__l", int(i)) for p, i in zip(parents.to_pylist(), idx)]
    odd = pa.array(["a user's own id", "x" * 14])                # ids of other lengths take the row path
    assert child_ids(odd, "t__l", np.arange(2)).to_pylist() == [child_id("a user's own id", "t__l", 0), child_id("x" * 14, "t__l", 1)]
    ids = child_ids(parents, "t__l", idx).to_pylist()
    assert len(set(ids)) == len(ids) and all(len(i) == 14 for i in ids)
    assert child_id(ids[0], "t__m", 0) != child_id(ids[0], "t__l", 0) != child_id(ids[0], "t__l", 1)
