"""dlt's relational normalisation, without Spark: nested dicts flatten, lists become child tables."""
from __future__ import annotations

from python_extract.normalize import Schema, normalize_item
from python_extract.normalize.naming import normalize_identifier


def test_naming__snake_case_like_dlt():
    assert [normalize_identifier(n) for n in ("userId", "Price (EUR)", "1st", "already_snake")] == [
        "user_id", "price_eur", "_1st", "already_snake"
    ]


def test_normalize__flattens_dicts_and_links_child_rows_to_parent_and_root():
    item = {"id": 7, "address": {"city": "Oslo", "geo": {"lat": 1.5}}, "orders": [{"sku": "A", "tags": ["x"]}]}
    out = list(normalize_item(item, "customers", "100.5"))
    assert [t for t, _ in out] == ["customers", "customers__orders", "customers__orders__tags"]
    root, order, tag = (r for _, r in out)
    assert {k: root[k] for k in ("id", "address__city", "address__geo__lat")} == {"id": 7, "address__city": "Oslo", "address__geo__lat": 1.5}
    assert order["_dlt_parent_id"] == root["_dlt_id"] and order["_dlt_root_id"] == root["_dlt_id"]
    assert tag["_dlt_parent_id"] == order["_dlt_id"] and tag["_dlt_root_id"] == root["_dlt_id"]
    assert (order["_dlt_list_idx"], tag["value"]) == (0, "x")
    assert {r["_dlt_load_id"] for _, r in out} == {"100.5"}


def test_normalize__max_nesting_stores_deeper_structure_as_json():
    item = {"a": {"b": {"c": 1}}, "l": [1]}
    one = list(normalize_item(item, "t", "1", max_nesting=1))
    assert [t for t, _ in one] == ["t", "t__l"]
    assert one[0][1]["a__b"] == '{"c": 1}'
    zero = list(normalize_item(item, "t", "1", max_nesting=0))
    assert [t for t, _ in zero] == ["t"]
    assert (zero[0][1]["a"], zero[0][1]["l"]) == ('{"b": {"c": 1}}', "[1]")


def test_schema__keeps_the_first_type_and_puts_other_types_in_a_variant_column():
    schema = Schema("s")
    schema.coerce_row("t", {"n": 1, "x": "a"})
    row = schema.coerce_row("t", {"n": 2.5, "x": 3})
    assert row == {"n__v_double": 2.5, "x__v_bigint": 3}
    assert {k: v["data_type"] for k, v in schema.tables["t"].columns.items()} == {
        "n": "bigint", "x": "text", "n__v_double": "double", "x__v_bigint": "bigint"
    }
