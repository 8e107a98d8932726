"""dlt's relational model end to end, on the shapes of dlt's destination-tables page (users/pets):
child tables and their links, variant columns on a type clash, schema evolution, `_dlt_version` hints."""
from __future__ import annotations

import json

import pytest

import python_extract as sl

from ..support.staging import staged

USERS = [
    {"id": 1, "name": "Alice", "pets": [{"id": 1, "name": "Fluffy", "type": "cat"}, {"id": 2, "name": "Spot", "type": "dog"}]},
    {"id": 2, "name": "Bob", "pets": [{"id": 3, "name": "Fido", "type": "dog"}]},
]


def test_users_and_pets__land_as_a_root_and_a_linked_child_table(pipe):
    load_1 = pipe.run(USERS, table_name="users").load_id
    users = {r["name"]: r for r in pipe.spark.table(f"{pipe.dataset_name}.users").collect()}
    pets = pipe.spark.table(f"{pipe.dataset_name}.users__pets").collect()
    assert set(users) == {"Alice", "Bob"} and {r["_dlt_load_id"] for r in users.values()} == {load_1}
    by_pet = {r["name"]: r for r in pets}
    assert {(n, r["type"], r["_dlt_list_idx"]) for n, r in by_pet.items()} == {("Fluffy", "cat", 0), ("Spot", "dog", 1), ("Fido", "dog", 0)}
    assert by_pet["Fluffy"]["_dlt_parent_id"] == users["Alice"]["_dlt_id"] == by_pet["Spot"]["_dlt_root_id"]
    assert by_pet["Fido"]["_dlt_parent_id"] == users["Bob"]["_dlt_id"]
    assert {r["_dlt_load_id"] for r in pets} == {load_1}                  # children keep the load id too
    assert len({r["_dlt_id"] for r in pets}) == 3

    # load 2: Charlie without pets adds a root row only
    load_2 = pipe.run([{"id": 3, "name": "Charlie", "pets": []}], table_name="users").load_id
    assert staged(pipe, "users", "name", "_dlt_load_id") == [("Alice", load_1), ("Bob", load_1), ("Charlie", load_2)]
    assert len(staged(pipe, "users__pets", "name")) == 3


def test_type_clash__goes_to_a_variant_column_of_the_staging_table(pipe):
    pipe.run([{"id": 1, "answer": True}], table_name="t")
    pipe.run([{"id": 2, "answer": "yes!"}, {"id": 3, "answer": [1]}, {"id": 4, "answer": {"x": 1}}], table_name="t")
    assert staged(pipe, "t", "id", "answer", "answer__v_text", "answer__x") == [
        (1, True, None, None), (2, None, "yes!", None), (3, None, None, None), (4, None, None, 1)]
    assert staged(pipe, "t__answer", "value") == [(1,)]


def test_new_column_in_a_later_load__evolves_the_staging_table(pipe):
    pipe.run([{"id": 1, "name": "a"}], table_name="t")
    pipe.run([{"id": 2, "name": "b", "address": {"city": "Oslo"}, "score": 1.5}], table_name="t")
    assert staged(pipe, "t", "id", "name", "address__city", "score") == [(1, "a", None, None), (2, "b", "Oslo", 1.5)]
    types = {f.name: f.dataType.simpleString() for f in pipe.spark.table(f"{pipe.dataset_name}.t").schema.fields}
    assert (types["score"], types["address__city"], types["id"]) == ("double", "string", "bigint")


def test_type_inference__lands_spark_types_for_each_dlt_type(pipe):
    import datetime as dt
    from decimal import Decimal

    row = {"b": True, "i": 1, "f": 1.5, "d": Decimal("1.25"), "ts": "2024-01-02T03:04:05Z",
           "day": dt.date(2024, 1, 2), "s": "x", "raw": b"\x01"}
    pipe.run([row], table_name="t")
    types = {f.name: f.dataType.simpleString() for f in pipe.spark.table(f"{pipe.dataset_name}.t").schema.fields}
    assert {k: types[k] for k in row} == {"b": "boolean", "i": "bigint", "f": "double", "d": "decimal(38,9)",
                                          "ts": "timestamp", "day": "date", "s": "string", "raw": "binary"}


def test_dlt_version__records_the_schema_with_the_hints_for_dbt(pipe):
    @sl.resource(name="orders", primary_key="id", merge_key="day",
                 write_disposition={"disposition": "merge", "strategy": "upsert"},
                 columns={"deleted": {"hard_delete": True}, "seq": {"dedup_sort": "desc", "data_type": "bigint"}})
    def orders():
        yield {"id": 1, "day": "d1", "deleted": False, "seq": 1, "lines": [{"sku": "A"}]}

    pipe.run(orders)
    stored = pipe.spark.sql(f"select * from {pipe.dataset_name}._dlt_version").collect()
    schema = json.loads(stored[-1]["schema"])
    assert stored[-1]["schema_name"] == pipe.pipeline_name and stored[-1]["version_hash"] == schema["version_hash"]
    table = schema["tables"]["orders"]
    assert (table["write_disposition"], table["merge_strategy"], table["resource"]) == ("merge", "upsert", "orders")
    columns = table["columns"]
    assert columns["id"]["primary_key"] and columns["day"]["merge_key"] and columns["deleted"]["hard_delete"]
    assert columns["seq"]["dedup_sort"] == "desc" and columns["id"]["nullable"] is False
    assert schema["tables"]["orders__lines"]["parent"] == "orders"
    loads = pipe.spark.sql(f"select schema_version_hash from {pipe.dataset_name}._dlt_loads").collect()
    assert loads[0]["schema_version_hash"] == schema["version_hash"]


def test_table_name_function__dispatches_items_to_tables(pipe):
    @sl.resource(name="events", table_name=lambda e: e["type"])
    def events():
        yield [{"type": "PushEvent", "id": 1}, {"type": "WatchEvent", "id": 2}, {"type": "PushEvent", "id": 3}]

    info = pipe.run(events)
    assert info.row_counts == {"push_event": 2, "watch_event": 1}
    assert staged(pipe, "push_event", "id") == [(1,), (3,)]


def test_max_table_nesting__stores_deeper_structure_as_json_text(pipe):
    @sl.resource(name="t", max_table_nesting=1)
    def t():
        yield {"id": 1, "a": {"b": {"c": 1}}, "l": [{"m": [1, 2]}]}

    pipe.run(t)
    assert staged(pipe, "t", "a__b") == [('{"c":1}',)]  # json text as dlt writes it
    assert staged(pipe, "t__l", "m") == [("[1,2]",)]


def test_naming_convention__snake_cases_tables_and_columns(pipe):
    pipe.run([{"UserId": 1, "Price (EUR)": 2.5, "nested": {"InnerKey": "x"}}], table_name="MyTable Name")
    assert staged(pipe, "my_table_name", "user_id", "price_eurx", "nested__inner_key") == [(1, 2.5, "x")]


@pytest.mark.parametrize("extra", [{}, {"mixed": [1, "a"]}], ids=["arrow_batch", "row_by_row"])
def test_list_of_lists__lands_a_child_table_and_a_grandchild_table_of_values(pipe, extra):
    # dlt's shape (checked against dlt in tests/parity_extract): one row per inner list, its values below
    pipe.run([{"id": 1, "matrix": [[1, 2], [3]], **extra}, {"id": 2, "matrix": [[4]]}], table_name="t")
    roots = {r["_dlt_id"]: r["id"] for r in pipe.spark.table(f"{pipe.dataset_name}.t").collect()}
    lists = {r["_dlt_id"]: (roots[r["_dlt_parent_id"]], r["_dlt_list_idx"])
             for r in pipe.spark.table(f"{pipe.dataset_name}.t__matrix").collect()}
    assert sorted(lists.values()) == [(1, 0), (1, 1), (2, 0)]
    values = [(lists[r["_dlt_parent_id"]], r["_dlt_list_idx"], r["value"])
              for r in pipe.spark.table(f"{pipe.dataset_name}.t__matrix__list").collect()]
    assert sorted(values) == [((1, 0), 0, 1), ((1, 0), 1, 2), ((1, 1), 0, 3), ((2, 0), 0, 4)]
    types = {f.name: f.dataType.simpleString() for f in pipe.spark.table(f"{pipe.dataset_name}.t__matrix__list").schema.fields}
    assert types["value"] == "bigint"


def test_coercion__text_that_parses_as_the_column_type_is_coerced_like_dlt(pipe):
    import datetime as dt
    from decimal import Decimal

    # load 1 types the columns; load 2 brings text (and other types) that dlt coerces, load 3 text it cannot
    pipe.run([{"id": 1, "n": 1, "f": 1.5, "dec": Decimal("1.5"), "b": True, "ts": "2024-01-01T00:00:00Z",
               "day": dt.date(2024, 1, 1), "s": "a"}], table_name="t")
    pipe.run([{"id": 2, "n": "5", "f": "2.5", "dec": "2.5", "b": "false", "ts": "2024-02-01", "day": "2024-03-01", "s": 5},
              {"id": 3, "n": " 0x10 ", "f": 3, "dec": 3, "b": "yes", "ts": 1700000000, "day": "2024-03-02T23:00:00-02:00", "s": True},
              {"id": 4, "n": 2.0, "f": "1e3", "dec": 0.25, "b": 0, "ts": "2024-03-01 10:00", "day": dt.datetime(2024, 3, 3, 1), "s": 2.5}],
             table_name="t")
    pipe.run([{"id": 5, "n": "x", "f": "y", "dec": "z", "b": "maybe", "ts": "never", "day": "someday"},
              {"id": 6, "n": 2.5, "b": 2.5}], table_name="t")
    columns = ("id", "n", "f", "dec", "b", "ts", "day", "s")
    got = [tuple(r) for r in pipe.spark.sql(
        f"select id, n, f, dec, b, date_format(ts, \"yyyy-MM-dd'T'HH:mm:ssXXX\"), day, s from {pipe.dataset_name}.t order by id").collect()]
    assert got == [
        (1, 1, 1.5, Decimal("1.500000000"), True, "2024-01-01T00:00:00Z", dt.date(2024, 1, 1), "a"),
        (2, 5, 2.5, Decimal("2.500000000"), False, "2024-02-01T00:00:00Z", dt.date(2024, 3, 1), "5"),
        (3, 16, 3.0, Decimal("3.000000000"), True, "2023-11-14T22:13:20Z", dt.date(2024, 3, 3), "True"),
        (4, 2, 1000.0, Decimal("0.250000000"), False, "2024-03-01T10:00:00Z", dt.date(2024, 3, 3), "2.5"),
        (5, None, None, None, None, None, None, None),
        (6, None, None, None, True, None, None, None),
    ], columns
    variants = pipe.spark.sql(f"select id, n__v_text, f__v_text, dec__v_text, b__v_text, ts__v_text, day__v_text, "
                              f"n__v_double from {pipe.dataset_name}.t where id >= 5 order by id").collect()
    assert [tuple(r) for r in variants] == [(5, "x", "y", "z", "maybe", "never", "someday", None),
                                            (6, None, None, None, None, None, None, 2.5)]
