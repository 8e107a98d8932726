"""Normalization differential: the same records (nested dicts, lists, lists of lists, type changes and
coercions, variant columns, names needing snake_case, non-dict items) through the real dlt 1.31 and
through sparkload's extractor; staging tables compared with system ids mapped (compare.py). All
identical cases run as one batch: one dlt run and one sparkload run per load."""
from __future__ import annotations

import copy
import datetime as dt
import json
import os
from decimal import Decimal
from typing import Any, Callable, Dict, List

import pytest

import python_extract as sl
from python_extract.normalize.exceptions import ColumnNameCollision

from ..support.compare import case_tables, column_types, differences
from ..support.tally import record_vs_dlt as record
from ..support.extract_normalize_cases import CASES, Case
from ..support.extract_sides import DltSide, SparkloadSide

SAME = [c for c in CASES if not c.on_purpose]
COLLISIONS = [c for c in CASES if c.name.startswith("collision")]


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_leaves(v) for v in value)
    return value is not None


def _generator(case: Case, at: Dict[str, int]) -> Callable[[], Any]:
    def gen():
        k = at["load"]
        yield from copy.deepcopy(case.loads[k]) if k < len(case.loads) else []
    gen.__name__ = case.name
    return gen


def _resources(make: Callable[..., Any], cases: List[Case], at: Dict[str, int]) -> List[Any]:
    return [make(_generator(c, at), name=c.name, table_name=c.name, **c.hints) for c in cases]


def _run_both(home, lakehouse, name: str, cases: List[Case]):
    import dlt

    theirs, ours = DltSide(home, name), SparkloadSide(lakehouse, home, name)
    their_at, our_at = {"load": 0}, {"load": 0}
    their_res, our_res = _resources(dlt.resource, cases, their_at), _resources(sl.resource, cases, our_at)
    their_runs, our_runs = {}, {}
    for k in range(max(len(c.loads) for c in cases)):
        their_at["load"] = our_at["load"] = k
        their_runs[theirs.run(their_res)] = k + 1
        our_runs[ours.run(our_res)] = k + 1
    return theirs, ours, their_runs, our_runs


@pytest.fixture(scope="module")
def batch(home, lakehouse):
    theirs, ours, their_runs, our_runs = _run_both(home, lakehouse, "norm_parity", SAME)
    return theirs.tables(), ours.tables(), their_runs, our_runs


@pytest.mark.parametrize("case", SAME, ids=[c.name for c in SAME])
def test_normalization__matches_dlt(batch, case):
    theirs, ours, their_runs, our_runs = batch
    found = differences(theirs, ours, case.name, their_runs, our_runs)
    record("normalization", "differs" if found else "identical")
    assert not found, "\n".join(found)
    assert case_tables(ours, case.name), "the case landed nothing: it proves nothing"


def test_time_values__land_as_iso_text_where_dlt_has_a_time_column(home, lakehouse):
    case = next(c for c in CASES if c.name == "time_values")
    theirs, ours, _, _ = _run_both(home, lakehouse, "norm_time", [case])
    their_tables, our_tables = theirs.tables(), ours.tables()
    assert column_types(case_tables(their_tables, case.name))[case.name]["t"] == "time"
    assert column_types(case_tables(our_tables, case.name))[case.name]["t"] == "text"
    assert [r["t"].isoformat() for r in their_tables[case.name].rows] == [r["t"] for r in our_tables[case.name].rows] == ["10:30:00"]
    record("normalization", "differs-on-purpose")


@pytest.mark.parametrize("case", COLLISIONS, ids=[c.name for c in COLLISIONS])
def test_name_collision__fails_where_dlt_keeps_one_value_silently(home, lakehouse, case):
    import dlt

    theirs, ours = DltSide(home, f"coll_{case.name}"), SparkloadSide(lakehouse, home, f"coll_{case.name}")
    theirs.run([dlt.resource(_generator(case, {"load": 0}), name=case.name, table_name=case.name)])
    their_tables = case_tables(theirs.tables(), case.name)
    kept = sum(1 for t in their_tables.values() for r in t.rows for c, v in r.items() if not c.startswith("_dlt") and v is not None)
    with pytest.raises(sl.PipelineStepFailed) as failed:
        ours.run([sl.resource(_generator(case, {"load": 0}), name=case.name, table_name=case.name)])
    assert isinstance(failed.value.__cause__, ColumnNameCollision)
    message = str(failed.value)
    first, second = failed.value.__cause__.names
    assert f"table {case.name}" in message and f"load {failed.value.load_id}" in message
    assert repr(first) in message and repr(second) in message and first != second
    assert not ours.pipe.spark.catalog.tableExists(f"{ours.pipe.dataset_name}.{case.name}")
    assert 0 < kept < _leaves(case.loads[0])  # dlt landed the item but lost a value
    record("normalization", "differs-on-purpose")


def test_arrow_struct_list_and_map_columns__one_json_column_each_as_in_dlt_null_where_the_value_is_null(home, lakehouse):
    """An Arrow table with a struct column (one nested struct, one row whose struct is NULL, one with a NULL
    field), a list column and a map column. dlt keeps each whole as one json column (a struct is not
    flattened as a dict is, a map is a JSON object); sparkload does the same: same columns, same types, same
    values (JSON compared parsed), NULL where the value is NULL."""
    import dlt
    import pyarrow as pa

    table = pa.table({
        "id": [1, 2, 3],
        "Repo": pa.array([{"Name": "r1", "owner": {"id": 10}}, None, {"Name": None, "owner": {"id": 30}}]),
        "tags": pa.array([["a", "b"], None, []]),
        "attrs": pa.array([[("k", 1), ("j", None)], None, []], pa.map_(pa.string(), pa.int64())),
    })
    theirs, ours = DltSide(home, "arrow_struct"), SparkloadSide(lakehouse, home, "arrow_struct")
    theirs.run([dlt.resource([table], name="events", table_name="events")])
    ours.run([sl.resource([table], name="events", table_name="events")])
    their, our = theirs.tables()["events"], ours.tables(["events"])["events"]

    def parsed(t):
        return [{k: json.loads(v) if isinstance(v, str) else v for k, v in r.items() if not k.startswith("_dlt")}
                for r in sorted(t.rows, key=lambda r: r["id"])]

    assert parsed(their) == parsed(our) == [
        {"id": 1, "repo": {"Name": "r1", "owner": {"id": 10}}, "tags": ["a", "b"], "attrs": {"k": 1, "j": None}},
        {"id": 2, "repo": None, "tags": None, "attrs": None},
        {"id": 3, "repo": {"Name": None, "owner": {"id": 30}}, "tags": [], "attrs": {}}]
    # the same columns and types (beside the _dlt_* columns sparkload adds to every Arrow table, on purpose)
    assert column_types({"events": their}) == column_types({"events": our}) == {
        "events": {"id": "bigint", "repo": "json", "tags": "json", "attrs": "json"}}
    record("normalization", "identical")


def test_arrow_struct_with_a_timestamp_and_a_decimal__json_text_as_sparkload_writes_json_where_duckdb_renders_its_own(home, lakehouse):
    """Inside an Arrow struct, dlt leaves the JSON text to the destination: duckdb writes a timestamp as
    `2024-01-02 03:04:05+00` and a decimal as a number. sparkload writes the JSON text itself, as it does
    for every json value (and as dlt's own JSON encoder does for dict items): ISO 8601, a decimal as text,
    so the value does not depend on the engine. On purpose; the values agree once read back as types."""
    import dlt
    import pyarrow as pa

    table = pa.table({"id": [1], "s": pa.array([{"at": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
                                                  "amount": Decimal("1.50")}])})
    theirs, ours = DltSide(home, "arrow_typed"), SparkloadSide(lakehouse, home, "arrow_typed")
    theirs.run([dlt.resource([table], name="events", table_name="events")])
    ours.run([sl.resource([table], name="events", table_name="events")])
    their = json.loads(theirs.tables()["events"].rows[0]["s"])
    our = json.loads(ours.tables(["events"])["events"].rows[0]["s"])
    assert their == {"at": "2024-01-02 03:04:05+00", "amount": 1.5}
    assert our == {"at": "2024-01-02T03:04:05+00:00", "amount": "1.50"}
    assert dt.datetime.fromisoformat(their["at"] + ":00") == dt.datetime.fromisoformat(our["at"])
    assert Decimal(str(their["amount"])) == Decimal(our["amount"])
    record("normalization", "differs-on-purpose")


def test_arrow_integer_widths_and_decimals__sized_as_dlt_sizes_them_but_8_and_16_bits_are_int_on_iceberg(home, lakehouse):
    """dlt records an Arrow integer narrower than 64 bits as bigint with that precision, and a decimal with its
    precision and scale; its destination sizes the column by them (duckdb: TINYINT, SMALLINT, INTEGER,
    DECIMAL(p,s)). sparkload sizes them the same, values equal, a scale beyond the column's rounded half away
    from zero (the hint wins over the Arrow type); only Iceberg has no 8- or 16-bit integer: those are int
    there (on purpose, the table format's; Delta has tinyint and smallint)."""
    import dlt
    import pyarrow as pa

    table = pa.table({
        "i8": pa.array([-128, None, 7], pa.int8()), "i16": pa.array([-32768, 5, None], pa.int16()),
        "i32": pa.array([2 ** 31 - 1, None, -1], pa.int32()), "u64": pa.array([1, 2, 3], pa.uint64()),
        "d": pa.array([Decimal("1.25"), None, Decimal("-99999999.99")], pa.decimal128(10, 2)),
        "d12": pa.array([Decimal("1.000000000001"), Decimal("0"), None], pa.decimal128(38, 12)),
        "r": pa.array([Decimal("1.255"), Decimal("-1.255"), Decimal("2.5")], pa.decimal128(12, 3)),
    })
    hints = {"columns": {"r": {"data_type": "decimal", "precision": 10, "scale": 2}}}
    theirs, ours = DltSide(home, "arrow_sized"), SparkloadSide(lakehouse, home, "arrow_sized")
    theirs.run([dlt.resource([table], name="events", table_name="events", **copy.deepcopy(hints))])
    ours.run([sl.resource([table], name="events", table_name="events", **copy.deepcopy(hints))])
    their, our = theirs.tables()["events"], ours.tables(["events"])["events"]

    def values(t):
        return sorted(({k: v for k, v in r.items() if not k.startswith("_dlt")} for r in t.rows), key=lambda r: r["u64"])

    assert values(their) == values(our)
    assert [r["r"] for r in values(our)] == ["1.26", "-1.26", "2.5"]
    their_types, our_types = column_types({"events": their})["events"], column_types({"events": our})["events"]
    assert their_types == {"i8": "bigint(8)", "i16": "bigint(16)", "i32": "bigint(32)", "u64": "bigint", "d": "decimal(10,2)",
                           "d12": "decimal(38,12)", "r": "decimal(10,2)"}
    iceberg = os.environ["SPARKLOAD_TABLE_FORMAT"] == "iceberg"
    assert our_types == ({**their_types, "i8": "bigint(32)", "i16": "bigint(32)"} if iceberg else their_types)  # Iceberg: int
    assert ours.pipe.default_schema.tables["events"].columns["i8"]["precision"] == 8  # kept in the schema as dlt keeps it
    record("normalization", "differs-on-purpose")


def test_a_value_too_wide_for_its_sized_column__fails_naming_table_column_and_load_where_dlt_fails_at_load(home, lakehouse):
    """A bigint column with precision 16 and a value of 40000, a decimal(4,2) and 123.4: duckdb refuses the
    value when dlt loads it (the package stays pending); sparkload refuses it while normalizing, naming table,
    column and load, before anything lands."""
    import dlt

    for column, hint, value in (("n", {"data_type": "bigint", "precision": 16}, 40000),
                                ("m", {"data_type": "decimal", "precision": 4, "scale": 2}, Decimal("123.4"))):
        name = f"too_wide_{column}"
        theirs, ours = DltSide(home, name), SparkloadSide(lakehouse, home, name)
        items = [{"id": 1, column: 1}, {"id": 2, column: value}]
        with pytest.raises(Exception, match="(?i)out of range|overflow|conver"):
            theirs.run([dlt.resource(copy.deepcopy(items), name="events", table_name="events", columns={column: dict(hint)})])
        with pytest.raises(sl.PipelineStepFailed) as failed:
            ours.run([sl.resource(copy.deepcopy(items), name="events", table_name="events", columns={column: dict(hint)})])
        message = str(failed.value)
        assert f"column {column}" in message and "table events" in message and f"load {failed.value.load_id}" in message
        assert str(value) in message
        assert not ours.pipe.spark.catalog.tableExists(f"{ours.pipe.dataset_name}.events")
    record("normalization", "differs-on-purpose")


def test_extract_normalize_load_called_as_dlt_calls_them__the_same_tables_as_dlt(home, lakehouse):
    """dlt's step by step form: `pipeline.extract(data, table_name=..., primary_key=...)`, then `normalize()`,
    then `load()`, the same calls on both pipelines (a resource and plain items with hints); the tables
    compare as in the batch above, and nothing lands before `load`."""
    import dlt

    items = [{"id": 1, "user": {"name": "a"}, "tags": ["x", "y"]}, {"id": 2, "user": {"name": "b"}, "tags": []}]
    theirs, ours = DltSide(home, "steps"), SparkloadSide(lakehouse, home, "steps")
    for pipeline, resource in ((theirs.pipeline, dlt.resource), (ours.pipe, sl.resource)):
        pipeline.extract(resource(items, name="events", primary_key="id", write_disposition="merge"))
        pipeline.extract([{"id": 7, "kind": "k"}], table_name="kinds", write_disposition="append")
        pipeline.normalize()
    assert not ours.pipe.spark.catalog.tableExists("steps.events")  # extracted and normalized, not landed
    their_ids, our_ids = theirs.pipeline.load().loads_ids, ours.pipe.load().load_ids
    assert len(their_ids) == len(our_ids) == 2  # one load per extract call, on both sides
    their_runs, our_runs = ({i: k + 1 for k, i in enumerate(sorted(ids))} for ids in (their_ids, our_ids))
    their_tables, our_tables = theirs.tables(), ours.tables(["events", "events__tags", "kinds"])
    for root in ("events", "kinds"):
        found = differences(their_tables, our_tables, root, their_runs, our_runs)
        assert found == [], found
    record("normalization", "identical")



def test_mark_with_table_name__items_and_pages_go_to_the_marked_tables_as_in_dlt(home, lakehouse):
    """`dlt.mark.with_table_name(item, table)`: a marked item, a marked page (one table per mark) and an
    unmarked item (the resource's table) from one resource with a primary key; the same three tables,
    each with the resource's key, as dlt."""
    import dlt

    def routed(make, mark):
        @make(name="events", primary_key="id")
        def gen():
            yield mark.with_table_name({"id": 1, "kind": "a"}, "alpha")
            yield mark.with_table_name([{"id": 2, "n": {"x": 1}}, {"id": 3, "n": {"x": 2}}], "beta")
            yield {"id": 4}
        return gen

    theirs, ours = DltSide(home, "marked"), SparkloadSide(lakehouse, home, "marked")
    their_runs = {theirs.run([routed(dlt.resource, dlt.mark)]): 1}
    our_runs = {ours.run([routed(sl.resource, sl.mark)]): 1}
    their_tables, our_tables = theirs.tables(), ours.tables()
    assert sorted(t for t in their_tables) == sorted(our_tables) == ["alpha", "beta", "events"]
    for root in ("alpha", "beta", "events"):
        found = differences(their_tables, our_tables, root, their_runs, our_runs)
        assert found == [], found
    assert ours.pipe.default_schema.tables["beta"].columns["id"].get("primary_key") is True
    record("normalization", "identical")


def _hinted_items(dlt_like):
    @dlt_like.resource(primary_key="id", write_disposition="merge")
    def items():
        yield {"id": 1, "v": "a", "k": 0}
        yield dlt_like.mark.with_hints({"id": 2, "v": "b"}, dlt_like.mark.make_hints(
            table_name="other", columns={"v": {"data_type": "text", "nullable": False}}), create_table_variant=True)
        yield {"id": 3, "v": "c", "k": 0}
        yield dlt_like.mark.with_hints([{"id": 4, "k": 1}], dlt_like.mark.make_hints(merge_key="k"))
        yield dlt_like.mark.with_hints({"id": 5, "v": "e", "k": 2}, dlt_like.mark.make_hints(table_name="renamed"))
        yield {"id": 6, "k": 3}
    return items


def test_mark_with_hints__merged_into_the_resource_or_a_table_variant_as_in_dlt(home, lakehouse):
    """`dlt.mark.with_hints(item, dlt.mark.make_hints(...))`: a variant (`create_table_variant=True`) takes the
    item into the table its hints name, with the resource's hints and its own; without, the hints merge into
    the resource from then on (a merge key onto its table, a new table_name for this item and the next). The
    same tables, rows and key / nullable hints as dlt."""
    import dlt

    theirs, ours = DltSide(home, "hinted"), SparkloadSide(lakehouse, home, "hinted")
    theirs.run([_hinted_items(dlt)])
    ours.run([_hinted_items(sl)])
    their_tables, our_tables = theirs.tables(), ours.tables(["items", "other", "renamed"])
    assert set(their_tables) == set(our_tables) == {"items", "other", "renamed"}
    for table in their_tables:
        rows = [sorted((k, v) for k, v in r.items() if not k.startswith("_dlt")) for r in their_tables[table].rows]
        assert sorted(rows) == sorted(sorted((k, v) for k, v in r.items() if not k.startswith("_dlt")) for r in our_tables[table].rows)

    def hints(columns):
        return {c: tuple(bool(m.get(h)) for h in ("primary_key", "merge_key")) + (m.get("nullable", True),)
                for c, m in columns.items() if not c.startswith("_dlt")}

    for table in their_tables:
        assert hints(theirs.pipeline.default_schema.tables[table]["columns"]) == hints(ours.pipe.default_schema.tables[table].columns), table
    assert ours.pipe.default_schema.tables["other"].columns["v"]["nullable"] is False
    with pytest.raises(TypeError, match="mark.make_hints: table_format is not built in sparkload"):
        sl.mark.make_hints(table_format="iceberg")
    with pytest.raises(ValueError, match=r"create_table_variant=True\): the hints need a table_name"):
        sl.mark.with_hints({}, sl.mark.make_hints(primary_key="id"), create_table_variant=True)
    record("normalization", "identical")
