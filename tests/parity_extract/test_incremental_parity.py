"""Incremental differential: every cursor option (initial/end value, last_value_func, range start/end,
lag, row_order, on_cursor_value_missing, boundary and primary-key dedup, nested paths, Arrow tables)
run as a dlt resource with `dlt.sources.incremental` and as a sparkload resource with `sl.incremental`,
several runs in a row. After each run: the rows the run landed, how many rows the run read from the
generator, and the stored cursor (initial, start and last value, number of boundary hashes) must be
dlt's. All cases run as one batch: one dlt run and one sparkload run per run number."""
from __future__ import annotations

import copy
import datetime as dt
from collections import Counter
from typing import Any, Callable, Dict, List

import pytest

import python_extract as sl

from ..support.tally import record_vs_dlt as record
from ..support.extract_incremental_cases import CASES, Case
from ..support.extract_sides import SYSTEM, DltSide, SparkloadSide

BATCHED = [c for c in CASES if not c.fails]
FAILING = [c for c in CASES if c.fails]


def _stored(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc).isoformat() if value.tzinfo else value.isoformat() + " (naive)"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_stored(v) for v in value]
    return value


def cursor_state(rstate: Dict[str, Any], path: str) -> Dict[str, Any]:
    entry = rstate.get("incremental", {}).get(path)
    if entry is None:
        return {}
    return {"initial_value": _stored(entry.get("initial_value")), "start_value": _stored(entry.get("start_value")),
            "last_value": _stored(entry.get("last_value")), "boundary hashes": len(entry.get("unique_hashes") or [])}


class Side:
    """One side of the batch: its pipeline, resources, and what each run read and stored per case."""

    def __init__(self, runner: Any, make_resource: Callable[..., Any], make_incremental: Callable[..., Any]):
        self.runner, self.run_no, self.read = runner, {"n": 0}, Counter()
        self.make_resource, self.make_incremental = make_resource, make_incremental
        self.states: Dict[str, List[Dict[str, Any]]] = {}

    def resource(self, case: Case) -> Any:
        run_no, read = self.run_no, self.read

        def gen(cursor=self.make_incremental(case.cursor, **case.options)):
            data = copy.deepcopy(case.runs[run_no["n"]])
            if case.arrow:
                import pyarrow as pa

                yield pa.Table.from_pylist(data)
            elif case.pages:
                yield data
            else:
                for row in data:
                    read[case.name] += 1
                    yield row
        gen.__name__ = case.name
        return self.make_resource(gen, name=case.name, table_name=case.name, **case.hints)

    def run(self, cases: List[Case], n: int, resources: Dict[str, Any]) -> str:
        self.run_no["n"] = n
        load_id = self.runner.run([resources[c.name] for c in cases])
        for c in cases:
            self.states.setdefault(c.name, []).append(cursor_state(self.runner_state(c.name), c.cursor))
        return load_id

    def runner_state(self, resource: str) -> Dict[str, Any]:
        if isinstance(self.runner, SparkloadSide):  # the in-memory state after the run; the stored one is checked at the end
            for source in self.runner.pipe.state.get("sources", {}).values():
                if resource in source.get("resources", {}):
                    return source["resources"][resource]
            return {}
        return self.runner.resource_state(resource)


def _values(rows: List[Dict[str, Any]]) -> Counter:
    return Counter(tuple(sorted((k, v) for k, v in r.items() if k not in SYSTEM and v is not None)) for r in rows)


@pytest.fixture(scope="module")
def batch(home, lakehouse):
    import dlt

    theirs = Side(DltSide(home, "inc_parity"), dlt.resource, dlt.sources.incremental)
    ours = Side(SparkloadSide(lakehouse, home, "inc_parity"), sl.resource, sl.incremental)
    their_res = {c.name: theirs.resource(c) for c in BATCHED}
    our_res = {c.name: ours.resource(c) for c in BATCHED}
    their_landed: Dict[str, List[Counter]] = {c.name: [] for c in BATCHED}
    our_runs: Dict[str, int] = {}
    before: Dict[str, Counter] = {}
    for n in range(max(len(c.runs) for c in BATCHED)):
        cases = [c for c in BATCHED if n < len(c.runs)]
        theirs.run(cases, n, their_res)
        our_runs[ours.run(cases, n, our_res)] = n
        tables = theirs.runner.tables()
        for c in cases:
            now = _values(tables[c.name].rows) if c.name in tables else Counter()
            their_landed[c.name].append(now - before.get(c.name, Counter()))
            before[c.name] = now
    our_tables = ours.runner.tables([c.name for c in BATCHED])
    our_landed = {c.name: [Counter() for _ in c.runs] for c in BATCHED}
    for c in BATCHED:
        for row in our_tables[c.name].rows if c.name in our_tables else []:
            our_landed[c.name][our_runs[row["_dlt_load_id"]]] += _values([row])
    stored = {c.name: cursor_state(ours.runner.resource_state(c.name), c.cursor) for c in BATCHED}
    return theirs, ours, their_landed, our_landed, stored


@pytest.mark.parametrize("case", BATCHED, ids=[c.name for c in BATCHED])
def test_incremental__each_run_lands_and_stores_what_dlt_does(batch, case):
    theirs, ours, their_landed, our_landed, stored = batch
    found = []
    for n in range(len(case.runs)):
        if their_landed[case.name][n] != our_landed[case.name][n]:
            found.append(f"run {n + 1} landed: dlt {sorted(their_landed[case.name][n])} sparkload {sorted(our_landed[case.name][n])}")
        if theirs.states[case.name][n] != ours.states[case.name][n]:
            found.append(f"run {n + 1} state: dlt {theirs.states[case.name][n]} sparkload {ours.states[case.name][n]}")
    if theirs.read[case.name] != ours.read[case.name]:
        found.append(f"rows read from the generator: dlt {theirs.read[case.name]} sparkload {ours.read[case.name]}")
    if stored[case.name] != ours.states[case.name][-1]:
        found.append(f"stored state {stored[case.name]} != the state after the last run {ours.states[case.name][-1]}")
    assert any(our_landed[case.name]), "the case landed nothing: it proves nothing"
    if case.on_purpose:
        landed = [sorted(dict(values)["id"] for values in run) for run in our_landed[case.name]]
        assert found and landed == case.ours, (case.on_purpose, landed, found)
        record("incremental", "differs-on-purpose")
        return
    record("incremental", "differs" if found else "identical")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("case", FAILING, ids=[c.name for c in FAILING])
def test_incremental__fails_where_dlt_fails_and_lands_nothing(home, lakehouse, case):
    import dlt

    theirs = Side(DltSide(home, f"inc_{case.name}"), dlt.resource, dlt.sources.incremental)
    ours = Side(SparkloadSide(lakehouse, home, f"inc_{case.name}"), sl.resource, sl.incremental)
    with pytest.raises(Exception) as their_error:
        theirs.run([case], 0, {case.name: theirs.resource(case)})
    with pytest.raises(sl.PipelineStepFailed) as our_error:
        ours.run([case], 0, {case.name: ours.resource(case)})
    assert case.fails in str(their_error.value) and case.fails in str(our_error.value)
    assert case.name not in theirs.runner.tables()
    assert not ours.runner.pipe.spark.catalog.tableExists(f"{ours.runner.pipe.dataset_name}.{case.name}")
    assert cursor_state(ours.runner.resource_state(case.name), case.cursor) == {}
    record("incremental", "identical")


def test_extract_twice_then_load__the_second_extract_goes_on_from_the_first_ones_cursor_as_in_dlt(home, lakehouse):
    """Two extracts of an incremental resource before one `load`: dlt's second extract continues from the
    cursor the first one left (in its pending package), so each row lands once; so does sparkload's."""
    import dlt

    def events(make, incremental, upto: int):  # a datetime cursor: the state a package holds is JSON-encoded
        @make(name="events", primary_key="id")
        def gen(cursor=incremental("at")):
            yield [{"id": i, "at": dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=i)}
                   for i in range(upto)]
        return gen

    theirs, ours = DltSide(home, "twice"), SparkloadSide(lakehouse, home, "twice")
    for pipeline, make, incremental in ((theirs.pipeline, dlt.resource, dlt.sources.incremental),
                                        (ours.pipe, sl.resource, sl.sources.incremental)):  # dlt's spelling
        pipeline.extract(events(make, incremental, 5))
        pipeline.extract(events(make, incremental, 10))
        pipeline.normalize()
        pipeline.load()
    their_ids = sorted(r["id"] for r in theirs.tables()["events"].rows)
    our_ids = sorted(r["id"] for r in ours.tables(["events"])["events"].rows)
    assert their_ids == our_ids == list(range(10))
    record("incremental", "identical")



def _events_with_transforms(make, incremental, limit):
    @make(name="events", primary_key="id")
    def gen(cursor=incremental("at")):
        for page in range(4):
            yield [{"id": 3 * page + k, "at": 3 * page + k, "v": k} for k in range(3)]
    res = gen().add_map(lambda r: {**r, "twice": r["v"] * 2}).add_filter(lambda r: r["v"] != 1)
    return res.add_limit(limit) if limit else res.add_yield_map(lambda r: iter([r, {**r, "id": r["id"] + 1000}]))


@pytest.mark.parametrize("limit", [0, 2], ids=["map_filter_yield_map", "map_filter_limit_2"])
def test_item_transforms_and_add_limit__the_same_tables_as_dlt_run_after_run(home, lakehouse, limit):
    """dlt's add_map, add_filter, add_yield_map (before the cursor, in the order added) and add_limit
    (yields counted after the cursor, the generator closed at the limit): an incremental resource of four
    pages, the same rows as dlt after each of three runs; limited to two pages a run, it lands two by two."""
    import dlt

    theirs, ours = DltSide(home, f"steps_{limit}"), SparkloadSide(lakehouse, home, f"steps_{limit}")
    for run in range(3):
        theirs.run([_events_with_transforms(dlt.resource, dlt.sources.incremental, limit)])
        ours.run([_events_with_transforms(sl.resource, sl.sources.incremental, limit)])
        their_rows = sorted(tuple(sorted((k, v) for k, v in r.items() if k not in SYSTEM)) for r in theirs.tables()["events"].rows)
        our_rows = sorted(tuple(sorted((k, v) for k, v in r.items() if k not in SYSTEM)) for r in ours.tables(["events"])["events"].rows)
        assert their_rows == our_rows, (run, their_rows, our_rows)
        assert len(our_rows) == ([4, 8, 8][run] if limit else 16)  # 2 of each page's 3 items are kept
    record("incremental", "identical")


@pytest.mark.parametrize("limit", [{"max_items": 2}, {"max_items": 2, "count_rows": True}, {"max_items": 3, "count_rows": True},
                                   {"max_items": 0}, {"max_items": 10}], ids=["2_yields", "2_rows", "3_rows", "0", "more_than_all"])
def test_add_limit__a_resource_iterated_directly_stops_where_dlts_does(limit):
    """`list(resource.add_limit(...))` outside a pipeline: dlt stops the resource at the limit (yields, or
    rows with count_rows, counted as they come), and so does sparkload; the generator is closed there."""
    import dlt

    closed = []

    def pages():
        try:
            yield [1, 2]
            yield 3
            yield [4, 5, 6]
            yield 7
        finally:
            closed.append(True)

    theirs = list(dlt.resource(pages, name="pages")().add_limit(**limit))
    ours = list(sl.resource(pages, name="pages")().add_limit(**limit))
    assert theirs == ours
    assert len(closed) == 2 or limit["max_items"] == 0  # each side closed its generator (dlt starts it even for 0)
    assert list(dlt.resource([1, 2, 3, 4], name="l").add_limit(**limit)) == list(sl.resource([1, 2, 3, 4], name="l").add_limit(**limit))
    record("incremental", "identical")


def _numbered(make, current):
    @make(name="numbered", primary_key="id")
    def gen():
        state = current.resource_state()  # dlt's own cursor: the next id, kept with the load
        first = state.setdefault("next_id", 0)
        state["next_id"] = first + 3
        current.source_state()["runs"] = current.source_state().get("runs", 0) + 1
        yield [{"id": i, "resource": current.resource_name()} for i in range(first, first + 3)]
    return gen


def test_current_resource_state__kept_with_each_load_the_same_rows_and_state_as_dlt(home, lakehouse):
    """`dlt.current.resource_state()` / `source_state()` inside a resource: a hand-made cursor that
    numbers the rows of each run on from the last; after three runs the same rows as dlt, and the same
    resource state."""
    import dlt

    theirs, ours = DltSide(home, "numbered"), SparkloadSide(lakehouse, home, "numbered")
    for _ in range(3):
        theirs.run([_numbered(dlt.resource, dlt.current)])
        ours.run([_numbered(sl.resource, sl.current)])
    rows = lambda side: sorted((r["id"], r["resource"]) for r in side)  # noqa: E731
    assert rows(theirs.tables()["numbered"].rows) == rows(ours.tables(["numbered"])["numbered"].rows) == [
        (i, "numbered") for i in range(9)]
    assert theirs.resource_state("numbered") == ours.resource_state("numbered") == {"next_id": 9}
    runs = lambda state: [s.get("runs") for s in state["sources"].values() if "numbered" in s.get("resources", {})]  # noqa: E731
    assert runs(theirs.pipeline.state) == runs(ours.pipe.state) == [3]  # the source's state, beside its resources'
    record("incremental", "identical")


def test_dev_mode__each_pipeline_object_starts_from_scratch_in_a_dataset_of_its_own_as_dlt(home, lakehouse):
    """`pipeline(..., dev_mode=True)`: dlt wipes the pipeline's local folder (state, pending packages) and
    suffixes the dataset with the local time (`_YYYYMMDDhhmmss`); so a second pipeline object reloads what an
    incremental resource yields into a new dataset. Same names and rows as dlt."""
    import re
    import time

    import dlt

    def events(make, incremental):
        @make(name="events", primary_key="id")
        def gen(cursor=incremental("id", initial_value=0)):
            yield [{"id": 1}, {"id": 2}]
        return gen

    datasets, counts = {"dlt": [], "sl": []}, {"dlt": [], "sl": []}
    for attempt in range(2):
        theirs = dlt.pipeline(pipeline_name="dev", destination=dlt.destinations.duckdb(str(home / "dev.duckdb")),
                              dataset_name="raw_dev", pipelines_dir=str(home / "dlt_pipelines"), dev_mode=True)
        ours = sl.pipeline(pipeline_name="dev", dataset_name="raw_dev", lakehouse=lakehouse,
                           pipelines_dir=str(home / "sl_pipelines"), dev_mode=True)
        theirs.run(events(dlt.resource, dlt.sources.incremental))
        ours.run(events(sl.resource, sl.sources.incremental))
        datasets["dlt"].append(theirs.dataset_name)
        datasets["sl"].append(ours.dataset_name)
        counts["sl"].append(ours.spark.table(f"{ours.dataset_name}.events").count())
        with theirs.sql_client() as client:
            counts["dlt"].append(client.execute_sql("select count(*) from events")[0][0])
        time.sleep(1.1)  # the suffix counts seconds
    for side in ("dlt", "sl"):
        assert all(re.fullmatch(r"raw_dev_\d{14}", d) for d in datasets[side]), datasets
        assert datasets[side][0] != datasets[side][1]
    assert counts["dlt"] == counts["sl"] == [2, 2]  # the second object starts over: its cursor is new
    with pytest.raises(sl.SparkloadError, match="dev_mode='yes'; expected True or False"):
        sl.pipeline(pipeline_name="dev", lakehouse=lakehouse, dev_mode="yes")
    record("incremental", "identical")


def test_with_name_source_add_limit_and_pending_packages__as_dlt(home, lakehouse):
    """`resource.with_name("other")` lands under the new name, its cursor kept under it; `source.add_limit(1)`
    takes one page of each resource; after `extract`, `has_pending_data` is true until
    `drop_pending_packages()` drops the package, whose rows then never land and whose cursor never moves:
    the next run extracts them again. The same tables and cursors as dlt."""
    import dlt

    def build(dlt_like):
        @dlt_like.resource(primary_key="id")
        def items(cursor=dlt_like.sources.incremental("id", initial_value=0)):
            yield [{"id": 1}, {"id": 2}]
            yield [{"id": 3}]

        @dlt_like.resource
        def pages():
            for k in range(3):
                yield [{"page": k}]

        @dlt_like.source
        def shop():
            return [items, pages]
        return items, shop

    theirs, ours = DltSide(home, "renamed"), SparkloadSide(lakehouse, home, "renamed")
    their_items, their_shop = build(dlt)
    our_items, our_shop = build(sl)
    theirs.run([their_items.with_name("other")])
    ours.run([our_items.with_name("other")])
    theirs.run(their_shop().add_limit(1))
    ours.run(our_shop().add_limit(1))
    their_tables, our_tables = theirs.tables(), ours.tables(["other", "items", "pages"])
    for table, expected in (("other", 3), ("items", 2), ("pages", 1)):
        assert _rows(their_tables[table].rows) == _rows(our_tables[table].rows) and len(our_tables[table].rows) == expected
    assert theirs.resource_state("other")["incremental"]["id"]["last_value"] == ours.resource_state("other")["incremental"]["id"]["last_value"] == 3

    for side, pipeline, (items, _) in ((theirs, theirs.pipeline, build(dlt)), (ours, ours.pipe, build(sl))):
        pipeline.extract(items.with_name("later"))
        assert pipeline.has_pending_data
        pipeline.drop_pending_packages()
        assert not pipeline.has_pending_data
        pipeline.run(items.with_name("later"))  # the dropped rows come again: the cursor never moved
    assert _rows(theirs.tables()["later"].rows) == _rows(ours.tables(["later"])["later"].rows) == [(("id", 1),), (("id", 2),), (("id", 3),)]
    record("incremental", "identical")


def _rows(rows):
    return sorted(tuple(sorted((k, v) for k, v in r.items() if k not in SYSTEM)) for r in rows)


def test_load_info__raise_on_failed_jobs_and_has_failed_jobs_as_a_ported_script_calls_them(home, lakehouse):
    """dlt's examples end with `load_info.raise_on_failed_jobs()`: after a good load it returns None and
    `has_failed_jobs` is false on both; a load that fails raises from `run` itself on both (dlt 1.x raises on
    a failed job by default), so no returned LoadInfo holds one."""
    import dlt

    theirs, ours = DltSide(home, "load_info"), SparkloadSide(lakehouse, home, "load_info")
    their_info = theirs.pipeline.run([{"id": 1}], table_name="items")
    our_info = ours.pipe.run([{"id": 1}], table_name="items")
    assert their_info.raise_on_failed_jobs() is None and our_info.raise_on_failed_jobs() is None
    assert their_info.has_failed_jobs is False and our_info.has_failed_jobs is False
    assert len(their_info.loads_ids) == len(our_info.loads_ids) == 1
    with pytest.raises(Exception):  # a value too wide for its column: the load fails on both, from run
        theirs.pipeline.run([{"id": 2, "n": 40000}], table_name="narrow", columns={"n": {"data_type": "bigint", "precision": 16}})
    with pytest.raises(sl.PipelineStepFailed):
        ours.pipe.run([{"id": 2, "n": 40000}], table_name="narrow", columns={"n": {"data_type": "bigint", "precision": 16}})
    record("incremental", "identical")
