"""Nested tables one and two levels deep under every disposition and strategy: lists of scalars and
of dicts, lists that grow, shrink, empty or disappear, dicts flattened into the parent row."""
from ...support.parity_scenario import SD, S, append, flag, merge, replace, scd2, upsert

TWO = [
    {"id": 1, "orders": [{"sku": "A", "lines": [{"q": 1}, {"q": 2}]}, {"sku": "B"}]},
    {"id": 2, "orders": [{"sku": "C", "lines": [{"q": 3}]}]},
]
TWO_CHANGED = [{"id": 1, "orders": [{"sku": "A", "lines": [{"q": 1}]}, {"sku": "D", "lines": [{"q": 9}]}]}]
SAME_CHILD_CONTENT = [{"id": 1, "orders": [{"sku": "A", "lines": [{"q": 1}]}, {"sku": "A", "lines": [{"q": 1}]}]}]

SCENARIOS = [
    S("nested_di_list_of_dicts_update", merge(pk="id"), TWO, TWO_CHANGED),
    S("nested_di_list_disappears", merge(pk="id"),
      [{"id": 1, "nested": [1, 2, 3]}, {"id": 2, "nested": [1, 2]}], [{"id": 1, "v": "bar"}]),
    S("nested_di_list_emptied", merge(pk="id"), [{"id": 1, "tags": [1, 2]}], [{"id": 1, "tags": []}]),
    S("nested_di_list_null", merge(pk="id"), [{"id": 1, "tags": [1, 2]}], [{"id": 1, "tags": None}]),
    S("nested_di_merge_key_inserted_deleted", merge(pk="id", mk="foo"),
      [{"id": 1, "foo": 1, "child": [{"bar": 1, "grandchild": [{"baz": 1}]}]},
       {"id": 2, "foo": 1, "child": [{"bar": 1, "grandchild": [{"baz": 1}]}]},
       {"id": 3, "foo": 1, "child": [{"bar": 3, "grandchild": [{"baz": 3}]}]}],
      [{"id": 1, "foo": 1, "child": [{"bar": 2}]}, {"id": 2, "foo": 1}],
      [{"id": 1, "foo": 1, "child": [{"bar": 1, "grandchild": [{"baz": 1}, {"baz": 2}]}, {"bar": 2}]},
       {"id": 2, "foo": 1, "child": [{"bar": 3, "grandchild": [{"baz": 3}]}]},
       {"id": 3, "foo": 1, "child": [{"bar": 4, "grandchild": [{"baz": 4}]}]}]),
    S("nested_di_hard_delete_two_levels", merge(pk="id", columns=flag()),
      [{"id": 1, "deleted": False, "child": [{"a": 1, "gc": [1, 2]}, {"a": 2, "gc": [3]}]},
       {"id": 2, "deleted": False, "child": [{"a": 3, "gc": [4, 5]}]}],
      [{"id": 1, "deleted": True}], [{"id": 2, "deleted": True}]),
    S("nested_di_identical_children", merge(pk="id"), SAME_CHILD_CONTENT, [{"id": 1, "orders": [{"sku": "A", "lines": [{"q": 1}]}]}]),
    S("nested_append_two_levels_identical_children", append(), SAME_CHILD_CONTENT, SAME_CHILD_CONTENT),
    S("nested_replace_list_of_dicts", replace(), TWO, TWO_CHANGED),
    S("nested_upsert_two_levels", upsert(pk="id"), TWO, TWO_CHANGED),
    S("nested_upsert_identical_children", upsert(pk="id"), SAME_CHILD_CONTENT, [{"id": 1, "orders": [{"sku": "B"}]}]),
    SD("nested_scd2_two_levels", scd2(), TWO, TWO_CHANGED + TWO[1:], TWO_CHANGED),
    SD("nested_scd2_identical_children", scd2(), SAME_CHILD_CONTENT, SAME_CHILD_CONTENT, [{"id": 1, "orders": [{"sku": "A"}]}]),
    SD("nested_scd2_list_emptied", scd2(mk="id"), [{"id": 1, "tags": [1, 2]}], [{"id": 1, "tags": []}], item="12.1"),
    SD("nested_scd2_dict_in_list", scd2(), [{"id": 1, "items": [{"a": {"b": 1}}]}], [{"id": 1, "items": [{"a": {"b": 2}}]}],
       item="12.1"),
    S("nested_dict_flattened_di", merge(pk="id"), [{"id": 1, "a": {"b": 1, "c": {"d": 2}}}], [{"id": 1, "a": {"b": 3}}]),
    S("nested_list_of_scalars_mixed_with_nulls", append(), [{"id": 1, "tags": [1, None, 3]}]),
    S("nested_three_levels", merge(pk="id"),
      [{"id": 1, "a": [{"b": [{"c": [1, 2]}]}]}], [{"id": 1, "a": [{"b": [{"c": [3]}, {"c": []}]}]}]),
]
