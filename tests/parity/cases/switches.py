"""A resource whose write disposition or merge strategy changes between loads."""
from ...support.parity_scenario import L, SD, S, append, merge, replace, scd2, upsert

SWITCH_CHILDREN = ("switching a table with child rows to merge: dlt cannot add `_dlt_root_id` to the existing child rows "
                   "(NOT NULL on duckdb, dlt#4041; elsewhere they stay as orphans of replaced roots) and fails the load; "
                   "sparkload's child rows always carry `_dlt_root_id`, so the switch applies")

SCENARIOS = [
    S("switch_append_to_merge", append(), [{"id": 1, "v": "a"}, {"id": 1, "v": "a"}, {"id": 2, "v": "b"}],
      L([{"id": 1, "v": "c"}], hints=merge(pk="id"))),
    S("switch_merge_to_append", merge(pk="id"), [{"id": 1, "v": "a"}], L([{"id": 1, "v": "b"}], hints=append())),
    S("switch_append_to_replace", append(), [{"id": 1}, {"id": 2}], L([{"id": 3}], hints=replace())),
    S("switch_replace_to_append", replace(), [{"id": 1}], L([{"id": 2}], hints=append())),
    S("switch_delete_insert_to_upsert", merge(pk="id"), [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}],
      L([{"id": 1, "v": "c"}], hints=upsert(pk="id"))),
    S("switch_upsert_to_delete_insert", upsert(pk="id"), [{"id": 1, "v": "a"}], L([{"id": 1, "v": "b"}, {"id": 2, "v": "c"}], hints=merge(pk="id"))),
    S("switch_append_to_scd2", append(), L([{"nk": 1, "v": "foo"}, {"nk": 2, "v": "bar"}]),
      L([{"nk": 1, "v": "foo"}, {"nk": 2, "v": "bar"}], hints=scd2(mk="nk"), boundary="2024-01-02"),
      L([{"nk": 1, "v": "foo_updated"}, {"nk": 3, "v": "baz"}], boundary="2024-01-03")),
    S("switch_append_to_merge_with_children", append(), [{"id": 1, "tags": [1, 2]}, {"id": 1, "tags": [3]}],
      L([{"id": 1, "tags": [4]}], hints=merge(pk="id")),
      on_purpose=SWITCH_CHILDREN, expect=[(1,)], expect_columns=("id",)),
    S("switch_replace_to_merge_with_children", replace(), [{"id": 1, "tags": [1, 2]}, {"id": 2, "tags": [3]}],
      L([{"id": 1, "tags": [4]}], hints=merge(pk="id")),
      on_purpose=SWITCH_CHILDREN, expect=[(1,), (2,)], expect_columns=("id",)),
    S("switch_primary_key_to_merge_key", merge(pk="id"), [{"id": 1, "day": "d1"}, {"id": 2, "day": "d1"}],
      L([{"id": 3, "day": "d1"}], hints={"primary_key": None, "merge_key": "day"})),
    SD("switch_scd2_merge_key_added", scd2(), [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}],
       L([{"id": 1, "v": "a2"}], hints=scd2(mk="id"))),
]
