"""Loads that must fail on both sides and leave both sides' tables as they were; the next load
applies normally."""
from ...support.parity_scenario import L, SD, S, merge, scd2, upsert

SCENARIOS = [
    S("fail_upsert_duplicate_key", upsert(pk="id"), [{"id": 1, "v": "a"}],
      L([{"id": 1, "v": "b"}, {"id": 1, "v": "c"}], fails=True), [{"id": 1, "v": "d"}], item="12.12"),
    S("fail_upsert_duplicate_key_nested", upsert(pk="id"), [{"id": 1, "tags": [1]}, {"id": 2, "tags": [2]}],
      L([{"id": 2, "tags": [2]}, {"id": 2, "tags": [3]}], fails=True), [{"id": 2, "tags": [4]}], item="12.12"),
    S("fail_upsert_without_primary_key", upsert(), L([{"id": 1}], fails=True)),
    S("fail_null_primary_key", merge(pk="id"), [{"id": 1}], L([{"id": None, "v": "x"}, {"id": 2}], fails=True), [{"id": 3}],
      item="12.2"),
    S("fail_null_compound_key_part", merge(pk=["a", "b"]), L([{"a": 1, "b": None}], fails=True), item="12.2"),
    S("fail_null_merge_key", merge(mk="day"), [{"day": "d1", "v": 1}], L([{"day": None, "v": 2}], fails=True), item="12.2"),
    S("fail_null_upsert_key", upsert(pk="id"), [{"id": 1}], L([{"id": None}], fails=True), item="12.2"),
    SD("fail_null_scd2_merge_key", scd2(mk="nk"), [{"nk": 1, "v": "a"}], L([{"nk": None, "v": "b"}], fails=True), item="12.2"),
    SD("fail_scd2_bad_active_record_timestamp", scd2(active_record_timestamp="i_am_not_a_timestamp"), L([{"id": 1}], fails=True)),
    SD("fail_scd2_bad_boundary_timestamp", scd2(), [{"id": 1, "v": "a"}],
       L([{"id": 1, "v": "b"}], boundary="2024-13-45 25:00", fails=True), [{"id": 1, "v": "c"}], item="19.2"),
]
