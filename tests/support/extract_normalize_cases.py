"""Normalization cases: what a resource yields, load by load, and its hints. Each case runs through dlt
and through sparkload; the staging tables must be identical (system ids mapped), unless the case names
the difference we keep on purpose.

`loads` is a list of loads; a load is the list of what the resource yields (a dict, a list page, None,
a scalar ...), so `[[a, b]]` is one load yielding one page of two items.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Dict, List, Optional

UTC = dt.timezone.utc


@dataclass
class Case:
    name: str
    loads: List[List[Any]]
    hints: Dict[str, Any] = field(default_factory=dict)
    on_purpose: Optional[str] = None  # why sparkload differs; the test proves how


def page(*items: Any) -> List[Any]:
    """One load that yields one list page of `items`."""
    return [list(items)]


EVENTS = [{"id": str(1000 + i), "type": "PushEvent", "public": i % 3 != 0, "created_at": f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
           "actor": {"id": i % 7, "login": f"user{i % 7}", "gravatar_id": ""},
           "payload": {"size": i % 4, "commits": [{"sha": f"{i:04x}{c}", "author": {"name": f"U{i}"}, "distinct": c % 2 == 0}
                                                  for c in range(i % 4)]}}
          for i in range(300)]

CASES = [
    Case("flat_scalars", [page({"id": 1, "name": "a", "score": 1.5, "ok": True}, {"id": 2, "name": "b", "score": 2.0, "ok": False})]),
    Case("nested_dicts", [page({"id": 1, "address": {"city": "Oslo", "geo": {"lat": 59.9, "lng": 10.7}}},
                               {"id": 2, "address": {"city": "Rome"}})]),
    Case("list_of_scalars", [page({"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}, {"id": 3, "tags": None})]),
    Case("list_of_dicts_two_levels", [page({"id": 1, "orders": [{"sku": "A", "lines": [{"n": 1}, {"n": 2}]}, {"sku": "B", "lines": []}]},
                                           {"id": 2, "orders": [{"sku": "C", "lines": [{"n": 3, "extra": {"x": True}}]}]})]),
    Case("list_of_lists", [page({"id": 1, "matrix": [[1, 2], [3]]})]),
    Case("list_of_lists_batch", [page({"id": 1, "matrix": [[1, 2], [3]]}, {"id": 2, "matrix": [[4], [5, 6], []]})]),
    Case("list_of_lists_deep", [page({"id": 1, "m": [[[1, 2]], [[3]]]}, {"id": 2, "m": [[[4]]]})]),
    Case("list_of_lists_mixed", [page({"id": 1, "m": [[{"a": 1}], [[7]], 5, None]})]),
    Case("list_of_lists_of_dicts", [page({"id": 1, "m": [[{"a": 1}, {"a": 2, "b": [1]}], [{"a": 3}]]})]),
    Case("names_snake_case", [page({"UserId": 1, "Price (EUR)": 2.5, "nested": {"InnerKey": "x"}, "a-b": 1, "ÄÖ": 2,
                                    "HTTPCode": 200, "trailing_": 1, "1st": 1})]),
    Case("names_with_separator", [page({"id": 1, "x__y": 1, "Deep__Key": {"Inner": 2}}, {"id": 2, "x": {"y": 3}})]),
    Case("names_in_child_tables", [page({"id": 1, "Line Items": [{"SKU": "a", "Unit Price": 2}]})]),
    Case("type_change_to_variant", [page({"id": 1, "v": 1}), page({"id": 2, "v": "x"}, {"id": 3, "v": 2})]),
    Case("coerce_into_bigint", [page({"id": 1, "v": 1}),
                                page(*({"id": i, "v": v} for i, v in enumerate(
                                    ["5", " 7 ", "0x10", "2.5", 2.0, 2.5, True, "1e3", Decimal("4"), Decimal("4.5"), "x"], 2)))]),
    Case("coerce_into_double", [page({"id": 1, "v": 1.5}),
                                page(*({"id": i, "v": v} for i, v in enumerate(
                                    ["5", "2.5", 3, " 1e3 ", "0x10", True, Decimal("1.25"), "x"], 2)))]),
    Case("coerce_into_bool", [page({"id": 1, "v": True}),
                              page(*({"id": i, "v": v} for i, v in enumerate(
                                  ["true", "false", "yes", "NO", "t", "1", "0", 1, 0, 2, 0.0, "maybe", Decimal("1")], 2)))]),
    Case("coerce_into_text", [page({"id": 1, "v": "a"}),
                              page(*({"id": i, "v": v} for i, v in enumerate(
                                  [5, 2.5, True, Decimal("1.50"), dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)], 2)))]),
    Case("coerce_into_timestamp", [page({"id": 1, "v": "2024-01-01T00:00:00Z"}),
                                   page(*({"id": i, "v": v} for i, v in enumerate(
                                       ["2024-02-01", "2024-03-01T10:00:00+02:00", "2024-03-01 10:00", 1700000000, 1700000000.5,
                                        "1700000000", dt.date(2024, 5, 1), dt.datetime(2024, 6, 1, 12, tzinfo=UTC),
                                        dt.datetime(2024, 6, 1, 12), "x", True], 2)))]),
    Case("coerce_into_date", [page({"id": 1, "v": dt.date(2024, 1, 1)}),
                              page(*({"id": i, "v": v} for i, v in enumerate(
                                  ["2024-02-01", "2024-02-01T23:00:00-02:00", dt.datetime(2024, 3, 1, 5, tzinfo=UTC), 1700000000,
                                   "x"], 2)))]),
    Case("coerce_into_decimal", [page({"id": 1, "v": Decimal("1.5")}),
                                 page(*({"id": i, "v": v} for i, v in enumerate(["2.5", 3, 1.25, " 0x10 ", "x", True], 2)))]),
    Case("coerce_into_binary", [page({"id": 1, "v": b"\x00\x01"}),
                                page(*({"id": i, "v": v} for i, v in enumerate(["AAE=", "0x0102", "not base64!", 258], 2)))]),
    Case("iso_detection", [page({"id": 1, "a": "2024-01-01", "b": "2024-01-01T10:00:00", "c": "20240101T101010",
                                 "d": "2024", "e": "2024-01-01T10", "f": "10:00:00", "g": "2024-01-01T00:00:00.123456Z",
                                 "h": "", "i": "P1D"})]),
    Case("variant_of_detected_type", [page({"id": 1, "v": 5}), page({"id": 2, "v": "2024-01-01T00:00:00Z"})]),
    Case("mixed_types_in_one_batch", [page({"id": 1, "v": 1, "w": 2.5, "d": Decimal("1")}, {"id": 2, "v": 2.5, "w": 1, "d": 2},
                                           {"id": 3, "v": "3", "w": "x", "d": "2.5"})]),
    Case("floats_first_in_one_batch", [page({"id": 1, "v": 1.0}, {"id": 2, "v": 2}, {"id": 3, "v": 2.5})]),
    Case("json_column_hint", [page({"id": 1, "data": {"a": [1, 2], "b": {"c": None}}}, {"id": 2, "data": [1, {"x": "y"}]},
                                   {"id": 3, "data": "text"})], hints={"columns": {"data": {"data_type": "json"}}}),
    Case("max_table_nesting_1", [page({"id": 1, "a": {"b": {"c": 1}}, "l": [{"m": [1, 2], "n": {"o": 1}}], "ll": [[1]]})],
         hints={"max_table_nesting": 1}),
    Case("max_table_nesting_0", [page({"id": 1, "a": {"b": 1}, "l": [1, 2]})], hints={"max_table_nesting": 0}),
    Case("scalar_items", [page(1, 2, "x", 2.5)]),
    Case("non_dict_items", [[None, {"id": 1}, [None, {"id": 2}], 5, (6, 7), [[{"id": 8}], []], [[[1], 2]]]]),
    Case("null_only_column_then_values", [page({"id": 1, "v": None}), page({"id": 2, "v": "x"})]),
    Case("nulls_in_child_rows", [page({"id": 1, "l": [{"a": None}, None, {"a": 1}]})]),
    Case("big_and_odd_numbers", [page({"id": 1, "big": 2 ** 62, "neg": -5, "tiny": 1e-300, "huge": 1.5e300, "zero": -0.0})]),
    Case("empty_keys", [page({"id": 1, "": "empty", "k": {" ": 1}})]),
    Case("user_row_id", [page({"_dlt_id": "my-id-1", "id": 1, "l": [1]}, {"_dlt_id": "my-id-2", "id": 2})]),
    Case("events_batch", [page(*EVENTS[:150]), page(*EVENTS[150:])]),
    Case("schema_evolution", [page({"id": 1, "a": 1}), page({"id": 2, "a": 2, "b": {"c": "new"}, "l": [1]})]),
    Case("precision_and_scale_hints",
         [page({"id": 1, "a": Decimal("1.255"), "b": 7, "c": "abcdefg", "w": Decimal("1.000000000001")},
               {"id": 2, "a": Decimal("-1.255"), "b": -300, "c": "x", "w": Decimal("2")},
               {"id": 3, "a": 3, "b": 2 ** 31 - 1, "w": "0.5"}),
          page({"id": 4, "a": "2.345", "b": "12", "w": 1.25})],
         hints={"columns": {"a": {"data_type": "decimal", "precision": 10, "scale": 2},
                            "b": {"data_type": "bigint", "precision": 32}, "c": {"data_type": "text", "precision": 5},
                            "w": {"data_type": "decimal", "precision": 20, "scale": 12}}}),
    Case("precision_list_form_and_inferred_type", [page({"id": 1, "a": Decimal("9.995"), "n": 5}, {"id": 2, "a": Decimal("0.001"), "n": -5})],
         hints={"columns": [{"name": "a", "precision": 6, "scale": 2}, {"name": "n", "precision": 32}]}),
    Case("decimals_rounded_to_the_default_scale", [page({"id": 1, "v": Decimal("1.0000000005")}, {"id": 2, "v": Decimal("-1.0000000005")},
                                                        {"id": 3, "v": Decimal("0.1234567894")})]),
    Case("time_values", [page({"id": 1, "t": dt.time(10, 30)})],
         on_purpose="Spark has no TIME type: a time of day lands as its ISO text"),
    Case("collision_case", [page({"id": 1, "ID": 2, "Id": 3})],
         on_purpose="dlt keeps one of the colliding values silently; sparkload fails naming both keys"),
    Case("collision_camel", [page({"a_b": 1, "aB": 2})],
         on_purpose="dlt keeps one of the colliding values silently; sparkload fails naming both keys"),
    Case("collision_path", [page({"x": {"y": 1}, "x__y": 2})],
         on_purpose="dlt keeps one of the colliding values silently; sparkload fails naming both keys"),
    Case("collision_lists", [page({"id": 1, "l": [1], "L": [2]})],
         on_purpose="dlt keeps one of the colliding values silently; sparkload fails naming both keys"),
    Case("collision_across_items", [page({"id": 1, "ID": 1}, {"id": 2})],
         on_purpose="dlt keeps one of the colliding values silently; sparkload fails naming both keys"),
    Case("no_collision_across_items", [page({"ID": 1}, {"id": 2}, {"Id": 3})]),
]
