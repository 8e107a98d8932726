"""merge with strategy insert-only: records whose primary_key the table has are skipped, the others
inserted; delete rows are dropped; nested tables of skipped records are left alone."""
from ...support.parity_scenario import L, S, flag, merge, sort


def insert_only(pk=None, columns=None, mk=None):
    return merge("insert-only", pk=pk, mk=mk, columns=columns)


INSERT_ONLY_DUPLICATES = ("dlt's insert-only neither deduplicates a load nor reads dedup_sort: both rows of a key new to the "
                          "table are inserted; sparkload takes one row per key (dedup_sort) or refuses the load, as for upsert")

SCENARIOS = [
    S("io_known_keys_skipped_new_inserted", insert_only(pk="id"),
      [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], [{"id": 1, "v": "c"}, {"id": 3, "v": "d"}], item="17.1"),
    S("io_compound_pk", insert_only(pk=["id", "sub"]),
      [{"id": 1, "sub": "x", "v": "a"}], [{"id": 1, "sub": "x", "v": "b"}, {"id": 1, "sub": "y", "v": "c"}]),
    S("io_many_loads", insert_only(pk="id"),
      [{"id": 1, "v": "a"}], [{"id": 2, "v": "b"}], [{"id": 1, "v": None}, {"id": 2, "v": "b2"}], [{"id": 3, "v": "c"}]),
    S("io_hard_delete_rows_are_dropped", insert_only(pk="id", columns=flag()),
      [{"id": 1, "v": "a", "deleted": False}], [{"id": 1, "deleted": True}, {"id": 2, "v": "b", "deleted": True},
                                                {"id": 3, "v": "c", "deleted": False}]),
    S("io_merge_key_is_ignored", insert_only(pk="id", mk="day"),
      [{"id": 1, "day": "d1", "v": "a"}], [{"id": 2, "day": "d1", "v": "b"}]),
    S("io_new_column", insert_only(pk="id"), [{"id": 1, "v": "a"}], [{"id": 2, "v": "b", "extra": 1}, {"id": 1, "extra": 2}]),
    S("io_empty_load", insert_only(pk="id"), [{"id": 1, "v": "a"}], [], [{"id": 2, "v": "b"}]),
    S("io_nested_skipped_record_keeps_its_children", insert_only(pk="id"),
      [{"id": 1, "tags": [1, 2]}], [{"id": 1, "tags": [9, 8]}, {"id": 2, "tags": [3]}]),
    S("io_dedup_sort_picks_one_row", insert_only(pk="id", columns=sort("seq", "desc")),
      [{"id": 1, "v": "a", "seq": 1}, {"id": 1, "v": "b", "seq": 2}],
      on_purpose=INSERT_ONLY_DUPLICATES, expect=[(1, "b")], expect_columns=("id", "v")),
    S("io_duplicate_new_key_is_refused", insert_only(pk="id"), [{"id": 1, "v": "a"}],
      L([{"id": 2, "v": "b"}, {"id": 2, "v": "c"}]), [{"id": 3, "v": "d"}],
      on_purpose=INSERT_ONLY_DUPLICATES, expect=[(1, "a"), (3, "d")], expect_columns=("id", "v")),
]
