"""What the extractor lands: lists of lists (issue 12 item 4), type coercion and variant columns
(item 5), type changes between loads."""
from ...support.parity_scenario import SD, S, append, merge, scd2

SCENARIOS = [
    S("lists_of_lists", append(), [{"id": 1, "matrix": [[1, 2], [3]]}], item="12.4"),
    S("lists_of_lists_two_records", append(), [{"id": 1, "matrix": [[1, 2], [3]]}, {"id": 2, "matrix": [[4]]}], item="12.4"),
    S("lists_of_lists_merge", merge(pk="id"), [{"id": 1, "matrix": [[1], [2, 3]]}], [{"id": 1, "matrix": [[4]]}], item="12.4"),
    S("lists_of_lists_of_dicts", append(), [{"id": 1, "m": [[{"a": 1}, {"a": 2}], []]}], item="12.4"),
    S("coerce_text_to_bigint", append(), [{"id": 1, "n": 1}], [{"id": 2, "n": "5"}], item="12.5"),
    S("coerce_text_to_double", append(), [{"id": 1, "x": 1.5}], [{"id": 2, "x": "2.5"}], item="12.5"),
    S("coerce_text_to_bool", append(), [{"id": 1, "b": True}], [{"id": 2, "b": "false"}, {"id": 3, "b": "true"}], item="12.5"),
    S("coerce_text_to_timestamp", append(columns={"ts": {"data_type": "timestamp"}}),
      [{"id": 1, "ts": "2024-01-01T10:00:00+00:00"}], [{"id": 2, "ts": "2024-02-01T00:00:00Z"}], item="12.5"),
    S("coerce_text_to_date", append(columns={"d": {"data_type": "date"}}), [{"id": 1, "d": "2024-01-01"}], item="12.5"),
    S("coerce_int_to_text", append(), [{"id": 1, "s": "a"}], [{"id": 2, "s": 5}], item="12.5"),
    S("variant_column_for_uncoercible_text", append(), [{"id": 1, "n": 1}], [{"id": 2, "n": "five"}], item="12.5"),
    S("variant_bool_then_text", append(), [{"id": 1, "answer": True}], [{"id": 2, "answer": "yes!"}], item="12.5"),
    S("type_change_in_merge", merge(pk="id"), [{"id": 1, "n": 1}], [{"id": 1, "n": "one"}], item="12.5"),
    SD("type_change_in_scd2", scd2(), [{"id": 1, "n": 1}], [{"id": 1, "n": "one"}], item="12.5"),
    S("column_names_normalized", merge(pk="id"), [{"id": 1, "CamelCase": "a", "with space": "b"}], [{"id": 1, "CamelCase": "c"}]),
    S("unicode_values", merge(pk="id"), [{"id": 1, "v": "ünï 🚀"}], [{"id": 1, "v": "ok"}, {"id": 2, "v": "'quoted' \\ back"}]),
    S("float_and_int_values", append(), [{"id": 1, "f": 0.1, "big": 2 ** 62}]),
    S("bool_values", merge(pk="id"), [{"id": 1, "b": True}, {"id": 2, "b": False}], [{"id": 1, "b": None}]),
]
