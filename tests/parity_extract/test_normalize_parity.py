"""Normalisation differential: the same records (nested dicts, lists, lists of lists, type changes and
coercions, variant columns, names needing snake_case, non-dict items) through the real dlt 1.31 and
through sparkload's extractor; staging tables compared with system ids mapped (compare.py). All
identical cases run as one batch: one dlt run and one sparkload run per load."""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List

import pytest

import python_extract as sl
from python_extract.normalize.exceptions import ColumnNameCollision

from .compare import case_tables, column_types, differences
from .conftest import record
from .normalize_cases import CASES, Case
from .sides import DltSide, SparkloadSide

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
def test_normalisation__matches_dlt(batch, case):
    theirs, ours, their_runs, our_runs = batch
    found = differences(theirs, ours, case.name, their_runs, our_runs)
    record("normalisation", "differs" if found else "identical")
    assert not found, "\n".join(found)
    assert case_tables(ours, case.name), "the case landed nothing: it proves nothing"


def test_time_values__land_as_iso_text_where_dlt_has_a_time_column(home, lakehouse):
    case = next(c for c in CASES if c.name == "time_values")
    theirs, ours, _, _ = _run_both(home, lakehouse, "norm_time", [case])
    their_tables, our_tables = theirs.tables(), ours.tables()
    assert column_types(case_tables(their_tables, case.name))[case.name]["t"] == "time"
    assert column_types(case_tables(our_tables, case.name))[case.name]["t"] == "text"
    assert [r["t"].isoformat() for r in their_tables[case.name].rows] == [r["t"] for r in our_tables[case.name].rows] == ["10:30:00"]
    record("normalisation", "differs-on-purpose")


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
    record("normalisation", "differs-on-purpose")


def test_arrow_struct_columns__one_json_column_as_in_dlt_and_null_where_the_struct_is_null(home, lakehouse):
    """An Arrow table with a struct column (one nested struct, one row whose struct is NULL, one with a NULL
    field). dlt keeps the struct as one json column, not flattened as it flattens dicts; sparkload does the
    same: same columns, same types, same values (JSON compared parsed), NULL where the struct is NULL."""
    import json

    import dlt
    import pyarrow as pa

    rows = [{"id": 1, "Repo": {"Name": "r1", "owner": {"id": 10}}}, {"id": 2, "Repo": None},
            {"id": 3, "Repo": {"Name": None, "owner": {"id": 30}}}]
    theirs, ours = DltSide(home, "arrow_struct"), SparkloadSide(lakehouse, home, "arrow_struct")
    theirs.run([dlt.resource([pa.Table.from_pylist(rows)], name="events", table_name="events")])
    ours.run([sl.resource([pa.Table.from_pylist(rows)], name="events", table_name="events")])
    their, our = theirs.tables()["events"], ours.tables(["events"])["events"]

    def parsed(table):
        return [(r["id"], json.loads(r["repo"]) if isinstance(r["repo"], str) else r["repo"])
                for r in sorted(table.rows, key=lambda r: r["id"])]

    assert parsed(their) == parsed(our) == [
        (1, {"Name": "r1", "owner": {"id": 10}}), (2, None), (3, {"Name": None, "owner": {"id": 30}})]
    # the same columns and types (beside the _dlt_* columns sparkload adds to every Arrow table, on purpose)
    assert column_types({"events": their}) == column_types({"events": our}) == {"events": {"id": "bigint", "repo": "json"}}
    record("normalisation", "identical")
