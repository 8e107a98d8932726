"""merge with strategy upsert: update or insert by primary_key, hard deletes, nested tables."""
from ...support.parity_scenario import L, S, flag, sort, upsert

NESTED_1 = [
    {"id": 1, "foo": 1, "child": [{"bar": 1, "grandchild": [{"baz": 1}]}]},
    {"id": 2, "foo": 1, "child": [{"bar": 1, "grandchild": [{"baz": 1}]}]},
    {"id": 3, "foo": 1, "child": [{"bar": 3, "grandchild": [{"baz": 3}]}]},
]

UPSERT_DUPLICATES = ("dlt's upsert neither deduplicates a load nor reads dedup_sort: the rows of a key new to the table are all "
                     "inserted (sharing one _dlt_id) and the key's next load fails; sparkload takes one row per key (dedup_sort) "
                     "or refuses the load")

SCENARIOS = [
    S("up_update_and_insert", upsert(pk="id"), [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], [{"id": 1, "v": "c"}, {"id": 3, "v": "d"}]),
    S("up_compound_pk", upsert(pk=["id", "sub"]),
      [{"id": 1, "sub": "x", "v": "a"}, {"id": 1, "sub": "y", "v": "b"}], [{"id": 1, "sub": "x", "v": "c"}, {"id": 2, "sub": "x", "v": "d"}]),
    S("up_missing_column_becomes_null", upsert(pk="id"), [{"id": 1, "v": "a", "w": "keep?"}], [{"id": 1, "v": "b"}]),
    S("up_same_rows_twice", upsert(pk="id"), [{"id": 1, "v": "a"}], [{"id": 1, "v": "a"}]),
    S("up_many_loads", upsert(pk="id"),
      [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], [{"id": 2, "v": "b2"}, {"id": 3, "v": "c"}], [{"id": 1, "v": None}], [{"id": 4, "v": "d"}]),
    S("up_hard_delete", upsert(pk="id", columns=flag()),
      [{"id": 1, "v": "a", "deleted": False}, {"id": 2, "v": "b", "deleted": False}], [{"id": 1, "deleted": True}, {"id": 2, "v": "b2", "deleted": False}]),
    S("up_hard_delete_unknown_key", upsert(pk="id", columns=flag()),
      [{"id": 1, "v": "a", "deleted": False}], [{"id": 2, "v": "b", "deleted": True}],
      on_purpose="dlt inserts a delete marker whose key the table lacks; sparkload inserts nothing for a delete row",
      expect=[(1, "a")], expect_columns=("id", "v")),
    S("up_hard_delete_timestamp_column", upsert(pk="id", columns=flag("deleted_at", "timestamp")),
      [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], [{"id": 2, "deleted_at": "2024-05-01T10:00:00+00:00"}]),
    S("up_delete_then_reinsert", upsert(pk="id", columns=flag()),
      [{"id": 1, "v": "a", "deleted": False}], [{"id": 1, "deleted": True}], [{"id": 1, "v": "a", "deleted": False}]),
    S("up_dedup_sort_desc", upsert(pk="id", columns=sort("seq", "desc")),
      [{"id": 1, "v": "a", "seq": 1}, {"id": 1, "v": "b", "seq": 2}], [{"id": 1, "v": "c", "seq": 0}, {"id": 1, "v": "d", "seq": 1}],
      on_purpose=UPSERT_DUPLICATES, expect=[(1, "d")], expect_columns=("id", "v")),
    S("up_dedup_sort_asc", upsert(pk="id", columns=sort("seq", "asc")),
      [{"id": 1, "v": "a", "seq": 1}, {"id": 1, "v": "b", "seq": 2}],
      on_purpose=UPSERT_DUPLICATES, expect=[(1, "a")], expect_columns=("id", "v")),
    S("up_duplicate_new_key_is_refused", upsert(pk="id"), [{"id": 1, "tags": [1]}],
      L([{"id": 2, "tags": [2]}, {"id": 2, "tags": [3]}]), [{"id": 2, "tags": [4]}],
      on_purpose=UPSERT_DUPLICATES, expect=[(1,), (2,)], expect_columns=("id",), item="12.12"),
    S("up_merge_key_is_ignored", upsert(pk="id", mk="day"),
      [{"id": 1, "day": "d1"}, {"id": 2, "day": "d1"}], [{"id": 1, "day": "d1", "v": "x"}], item="12.10"),
    S("up_nulls", upsert(pk="id"), [{"id": 1, "v": None}], [{"id": 1, "v": "a"}], [{"id": 1, "v": None}]),
    S("up_new_column", upsert(pk="id"), [{"id": 1, "v": "a"}], [{"id": 2, "v": "b", "extra": 1}], [{"id": 1, "v": "c"}]),
    S("up_empty_load", upsert(pk="id"), [{"id": 1, "v": "a"}], [], [{"id": 1, "v": "b"}]),
    # nested tables
    S("up_nested", upsert(pk="id"), NESTED_1, [{"id": 1, "foo": 1, "child": [{"bar": 2}]}, {"id": 2, "foo": 1}]),
    S("up_nested_list_shrinks", upsert(pk="id"), [{"id": 1, "tags": [1, 2, 3]}, {"id": 2, "tags": [4]}], [{"id": 1, "tags": [1]}]),
    S("up_nested_list_grows", upsert(pk="id"), [{"id": 1, "tags": [1]}], [{"id": 1, "tags": [1, 2, 3]}]),
    S("up_nested_list_disappears", upsert(pk="id"), [{"id": 1, "v": "a", "tags": [1, 2]}], [{"id": 1, "v": "b"}]),
    S("up_nested_list_emptied", upsert(pk="id"), [{"id": 1, "tags": [1, 2]}], [{"id": 1, "tags": []}]),
    S("up_nested_hard_delete_removes_children", upsert(pk="id", columns=flag()),
      [{"id": 1, "deleted": False, "tags": [1, 2]}, {"id": 2, "deleted": False, "tags": [3]}], [{"id": 1, "deleted": True}]),
    S("up_nested_two_levels_change", upsert(pk="id"), NESTED_1,
      [{"id": 3, "foo": 2, "child": [{"bar": 3, "grandchild": [{"baz": 4}, {"baz": 5}]}, {"bar": 4}]}]),
    S("up_nested_other_record_keeps_children", upsert(pk="id"), [{"id": 1, "tags": [1]}, {"id": 2, "tags": [2]}],
      [{"id": 3, "tags": [3]}], L([{"id": 1, "tags": [9]}])),
]
