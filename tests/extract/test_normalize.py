"""dlt's relational normalization, without Spark: nested dicts flatten, lists become child tables."""
from __future__ import annotations

import pytest

from python_extract.normalize import Schema, normalize_item
from python_extract.normalize.naming import normalize_identifier

pytestmark = pytest.mark.fast


def test_naming__snake_case_like_dlt():
    names = ("userId", "Price (EUR)", "1st", "already_snake", "CamelCase", "with space", "Über-Größe",
             "trailing_", "x+y", "user@host", "a__b", "", "MyTable Name")
    assert [normalize_identifier(n) for n in names] == [
        "user_id", "price_eurx", "_1st", "already_snake", "camel_case", "with_space", "_ber_gr_e",
        "trailingx", "xxy", "userahost", "a_b", "_empty", "my_table_name",
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
    assert one[0][1]["a__b"] == {"c": 1}
    zero = list(normalize_item(item, "t", "1", max_nesting=0))
    assert [t for t, _ in zero] == ["t"]
    assert (zero[0][1]["a"], zero[0][1]["l"]) == ({"b": {"c": 1}}, [1])
    schema = Schema("s")
    schema.table("t")
    typed = schema.coerce_row("t", dict(zero[0][1]))
    assert (typed["a"], typed["l"]) == ('{"b":{"c":1}}', "[1]")  # dlt's json text: compact
    assert schema.typed_columns("t")["a"] == "json"


def test_schema__keeps_the_first_type_and_puts_other_types_in_a_variant_column():
    schema = Schema("s")
    schema.table("t")
    schema.coerce_row("t", {"n": 1, "x": "a", "b": True, "f": 1.5})
    row = schema.coerce_row("t", {"n": 2.5, "x": 3, "b": "yes!", "f": 2})
    # dlt: text takes any value as text, a double column takes ints; other clashes go to variants
    assert row == {"n__v_double": 2.5, "x": "3", "b__v_text": "yes!", "f": 2.0}
    assert schema.typed_columns("t") == {
        "n": "bigint", "x": "text", "b": "bool", "f": "double", "n__v_double": "double", "b__v_text": "text"
    }


def test_schema__detects_iso_timestamps_and_parses_later_strings_of_that_column():
    schema = Schema("s")
    schema.table("t")
    first = schema.coerce_row("t", {"at": "2024-01-02T03:04:05Z"})
    later = schema.coerce_row("t", {"at": "2024-01-02T04:00:00+01:00"})
    bad = schema.coerce_row("t", {"at": "not a time"})
    assert first["at"].isoformat() == "2024-01-02T03:04:05+00:00"
    assert later["at"].isoformat() == "2024-01-02T04:00:00+01:00"
    assert bad == {"at__v_text": "not a time"}
