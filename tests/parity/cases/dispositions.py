"""append, replace, and merge without keys (an append in dlt)."""
from ...support.parity_scenario import S, append, flag, merge, replace

TAGS_1 = [{"id": 1, "v": "a", "tags": ["x", "y"]}, {"id": 2, "v": "b"}]
ORDERS = [
    {"id": 1, "orders": [{"sku": "A", "lines": [{"q": 1}, {"q": 2}]}, {"sku": "B", "lines": []}]},
    {"id": 2, "orders": [{"sku": "C", "lines": [{"q": 3}]}]},
]

SCENARIOS = [
    # append
    S("append_basic", append(), [{"id": 1, "v": "a"}], [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]),
    S("append_duplicate_rows", append(), [{"id": 1, "v": "a"}, {"id": 1, "v": "a"}], [{"id": 1, "v": "a"}]),
    S("append_nested", append(), TAGS_1, [{"id": 1, "v": "a", "tags": ["z"]}]),
    S("append_nested_two_levels", append(), ORDERS, [{"id": 3, "orders": [{"sku": "D", "lines": [{"q": 4}]}]}]),
    S("append_empty_load", append(), [{"id": 1}], [], [{"id": 2}]),
    S("append_new_column", append(), [{"id": 1, "v": "a"}], [{"id": 2, "v": "b", "extra": "x"}]),
    S("append_nulls", append(), [{"id": 1, "v": None, "w": 1}], [{"id": 2, "v": "b", "w": None}]),
    S("append_ignores_primary_key", append(pk="id"), [{"id": 1, "v": "a"}], [{"id": 1, "v": "b"}]),
    S("append_nested_dict_flattened", append(), [{"id": 1, "a": {"b": 1, "c": {"d": "x"}}}], [{"id": 2, "a": {"b": 2}}]),
    # replace
    S("replace_basic", replace(), [{"id": 1}, {"id": 2}], [{"id": 3}]),
    S("replace_nested", replace(), TAGS_1, [{"id": 3, "v": "c"}]),
    S("replace_nested_two_levels", replace(), ORDERS, [{"id": 3, "orders": [{"sku": "D", "lines": [{"q": 4}]}]}]),
    S("replace_empty_extract_empties_table", replace(), [{"id": 1}, {"id": 2}], [], item="12.9"),
    S("replace_empty_extract_empties_children", replace(), TAGS_1, [], item="12.9"),
    S("replace_empty_then_rows", replace(), [{"id": 1, "tags": [1]}], [], [{"id": 2, "tags": [2, 3]}], item="12.9"),
    S("replace_same_rows_twice", replace(), TAGS_1, TAGS_1),
    S("replace_ignores_primary_key", replace(pk="id"), [{"id": 1, "v": "a"}, {"id": 1, "v": "b"}], [{"id": 1, "v": "c"}]),
    S("replace_new_column_then_fewer", replace(), [{"id": 1}], [{"id": 2, "extra": "x"}], [{"id": 3}]),
    S("replace_children_gone_then_back", replace(), TAGS_1, [{"id": 1, "v": "a"}], TAGS_1),
    # merge without primary_key or merge_key appends
    S("merge_no_keys_appends", merge(), [{"id": 1, "v": "a"}], [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]),
    S("merge_no_keys_with_children", merge(), [{"id": 1, "tags": [1, 2]}], [{"id": 2, "tags": [3]}], [{"id": 1, "tags": [1, 2]}],
      item="12.3"),
    S("merge_no_keys_hard_delete_skips_deleted_rows", merge(columns=flag()),
      [{"id": 1, "deleted": False}, {"id": 2, "deleted": True}], [{"id": 1, "deleted": True}, {"id": 3, "deleted": None}]),
    S("merge_pk_empty_extract_changes_nothing", merge(pk="id"), [{"id": 1, "tags": [1]}], [], [{"id": 1, "tags": [2]}]),
]
