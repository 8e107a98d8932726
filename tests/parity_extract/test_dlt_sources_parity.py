"""dlt's Python sources ported by changing the import: the same `rest_api_source` / `rest_api_resources`
config, `sql_database` / `sql_table` arguments and `filesystem(...) | read_*()` pipes run through the real
dlt 1.31 (duckdb) and through sparkload's facades over its source plugins (python_extract/sources/
dlt_facades/), on the same input, two runs with the input changed between them. Compared after each run:
the tables (compare.py: values, types, links, loads) and each resource's cursor state."""
from __future__ import annotations

import copy
import datetime as dt
from typing import Any, Callable, Dict, List

import pytest

from ..support.api_server import ApiServer, ShopApi, iso
from ..support.compare import differences
from ..support.tally import record_vs_dlt as record
from ..support.extract_sides import DltSide, SparkloadSide

# `--suite ci` leaves this judge to make test-all: its sources are facades over the YAML plugins tests/sources runs in ci
pytestmark = pytest.mark.extended

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _items(n: int, changed: int = 0) -> List[Dict[str, Any]]:
    hours = lambda i: i + (10 if i <= changed else 0)  # noqa: E731 - the first `changed` items are updated later
    return [{"id": i, "name": f"item {i}{'*' if i <= changed else ''}", "updated_at": iso(T0 + dt.timedelta(hours=hours(i)))}
            for i in range(1, n + 1)]


def _shop(run: int) -> ShopApi:
    """Run 0: 5 items, 2 users with orders; run 1: 7 items (2 updated), a third user, one more order."""
    users = [{"id": u, "name": f"user {u}"} for u in range(1, 3 + run)]
    orders = {u: [{"id": u * 100 + k, "updated_at": iso(T0 + dt.timedelta(hours=k))} for k in range(1, 2 + run + (u == 1))]
              for u in range(1, 3 + run)}
    return ShopApi(items=_items(5 + 2 * run, changed=2 * run), users=users, orders=orders)


INITIAL = iso(T0)
REST_CASES: Dict[str, Callable[[str], Dict[str, Any]]] = {
    "incremental_param": lambda url: {
        "client": {"base_url": url, "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}},
        "resources": [{"name": "r_inc_param", "primary_key": "id",
                       "endpoint": {"path": "items/page", "data_selector": "data", "params": {
                           "since": {"type": "incremental", "cursor_path": "updated_at", "initial_value": INITIAL}}}}]},
    "endpoint_incremental_start_param": lambda url: {
        "client": {"base_url": url, "paginator": {"type": "json_link", "next_url_path": "links.next"}},
        "resources": [{"name": "r_inc_block", "endpoint": {"path": "items/json_link", "data_selector": "results",
                                                            "incremental": {"start_param": "since", "cursor_path": "updated_at",
                                                                            "initial_value": INITIAL}}}]},
    "incremental_placeholder": lambda url: {
        "client": {"base_url": url},
        "resource_defaults": {"primary_key": "id",
                              "endpoint": {"paginator": {"type": "offset", "limit": 2, "total_path": "total"}}},
        "resources": [{"name": "r_inc_placeholder", "endpoint": {
            "path": "items/offset", "data_selector": "items", "params": {"since": "{incremental.start_value}"},
            "incremental": {"cursor_path": "updated_at", "initial_value": INITIAL}}}]},
    "resolve_param_child": lambda url: {
        "client": {"base_url": url, "paginator": "single_page"},
        "resources": [{"name": "r_users", "primary_key": "id", "endpoint": "users"},
                      {"name": "r_orders", "primary_key": "id",
                       "include_from_parent": ["name"],
                       "endpoint": {"path": "users/{user_id}/orders", "data_selector": "orders",
                                    "params": {"user_id": {"type": "resolve", "resource": "r_users", "field": "id"}}}}]},
    "resources_placeholder_child_unselected_parent": lambda url: {
        "client": {"base_url": url, "paginator": "single_page"},
        "resources": [{"name": "r_users2", "endpoint": "users", "selected": False},
                      {"name": "r_orders2", "endpoint": {"path": "users/{resources.r_users2.id}/orders", "data_selector": "orders"}}]},
    "processing_steps_and_string_resource": lambda url: {
        "client": {"base_url": url, "paginator": "single_page"},
        "resources": ["users", {"name": "r_steps", "endpoint": "users",
                                "processing_steps": [{"filter": lambda u: u["id"] != 2},
                                                     {"map": lambda u: {**u, "name": u["name"].upper()}}]}]},
}


def _state(side: Any, resource: str) -> Any:
    """A resource's cursors: values as stored, the boundary hashes by count (each side hashes its own way)."""
    cursors = copy.deepcopy(side.resource_state(resource).get("incremental") or {})
    for entry in cursors.values():
        entry["unique_hashes"] = len(entry.get("unique_hashes") or [])
    return cursors


def _number_loads(runs: Dict[str, int], tables: Dict[str, Any], run: int) -> None:
    """Each load id first seen after run `run` numbered `run` (a run of several sources lands several loads)."""
    for table in tables.values():
        for row in table.rows:
            runs.setdefault(row["_dlt_load_id"], run) if "_dlt_load_id" in row else None


@pytest.mark.parametrize("form", ["source", "resources"])
def test_rest_api__dlts_config_lands_the_same_tables_and_cursors_as_dlt_run_after_run(home, lakehouse, form):
    """Every REST case in one pipeline per side (`rest_api_source(config)` per case, or the cases'
    `rest_api_resources(config)` together), run twice against a shop API that changed in between."""
    from dlt.sources.rest_api import rest_api_resources as dlt_resources
    from dlt.sources.rest_api import rest_api_source as dlt_source

    from python_extract.sources.rest_api import rest_api_resources, rest_api_source

    theirs, ours = DltSide(home, f"rest_{form}"), SparkloadSide(lakehouse, home, f"rest_{form}")
    runs: List[Dict[str, Dict[str, int]]] = [{}, {}]
    for run in range(2):
        for side, (make_source, make_resources), at in ((theirs, (dlt_source, dlt_resources), 0), (ours, (rest_api_source, rest_api_resources), 1)):
            api = _shop(run)
            with ApiServer(api):
                configs = [case(api.base_url) for case in REST_CASES.values()]
                if form == "source":
                    data = [make_source(c, name=f"src_{i}") for i, c in enumerate(configs)]
                    for source in data:
                        side.run(source)
                else:
                    side.run([r for c in configs for r in make_resources(c) if r.name != "r_users2"])
        their_tables, our_tables = theirs.tables(), ours.tables()
        _number_loads(runs[0], their_tables, run)
        _number_loads(runs[1], our_tables, run)
        for case, config in REST_CASES.items():
            roots = [r if isinstance(r, str) else r["name"] for r in config("x")["resources"]]
            for root in roots:
                if root == "r_users2":
                    continue
                found = differences(their_tables, our_tables, root, runs[0], runs[1])
                assert not found, (case, run, root, found)
            for root in roots:
                assert _state(theirs, root) == _state(ours, root), (case, run, root)
    assert len(our_tables) == 8 and "r_users2" not in our_tables  # every case root but the unselected parent
    for case in REST_CASES:
        record("dlt python sources: rest_api", "identical")


def _sqlite(path: Any, run: int) -> str:
    """orders (a numeric(10,2), a varchar(20), a column the adapter drops), events (an integer cursor),
    stamps (a naive DATETIME); run 1 adds rows to each."""
    import sqlalchemy as sa

    url = f"sqlite:///{path}"
    engine = sa.create_engine(url)
    with engine.begin() as con:
        if run == 0:
            con.exec_driver_sql("create table sq_orders (id integer primary key, amount numeric(10, 2), note varchar(20), secret text)")
            con.exec_driver_sql("create table sq_events (id integer primary key, seq integer not null, what text)")
            con.exec_driver_sql("create table sq_stamps (id integer primary key, at datetime)")
        for i in range(1 + 3 * run, 4 + 3 * run):
            con.exec_driver_sql("insert into sq_orders values (?, ?, ?, ?)", (i, f"{i}.25", f"note {i}", "pw"))
            con.exec_driver_sql("insert into sq_events values (?, ?, ?)", (i, 10 * i, f"event {i}"))
            con.exec_driver_sql("insert into sq_stamps values (?, ?)", (i, f"2026-01-0{i} 03:04:05.000000"))
    engine.dispose()
    return url


def _sql_data(dlt_like: Any, url: str, level: str) -> List[Any]:
    from importlib import import_module

    mod = import_module(f"{dlt_like.__name__}.sources.sql_database")

    def drop_secret(table):
        table._columns.remove(table.columns["secret"])

    orders = mod.sql_database(url, table_names=["sq_orders"], table_adapter_callback=drop_secret, reflection_level=level,
                              chunk_size=2)
    events = mod.sql_table(url, "sq_events", incremental=dlt_like.sources.incremental("seq", initial_value=20), chunk_size=2,
                           reflection_level=level, included_columns=["id", "seq"])
    return [*orders.resources.values(), events]


@pytest.mark.parametrize("level", ["full", "full_with_precision", "minimal"])
def test_sql_database__the_same_tables_and_cursor_as_dlt_run_after_run(home, lakehouse, level):
    """`sql_database` (a table adapter dropping a column, chunk_size 2) and `sql_table` (an incremental
    integer cursor, `included_columns`) over one sqlite file, twice with rows added between: the same tables
    (types at each `reflection_level`, values, loads) and the same cursor as dlt's."""
    import dlt

    import python_extract as sl

    theirs, ours = DltSide(home, f"sql_{level}"), SparkloadSide(lakehouse, home, f"sql_{level}")
    runs: List[Dict[str, int]] = [{}, {}]
    for run in range(2):
        url = _sqlite(home / f"sql_{level}.db", run)
        theirs.run(_sql_data(dlt, url, level))
        ours.run(_sql_data(sl, url, level))
        their_tables, our_tables = theirs.tables(), ours.tables()
        _number_loads(runs[0], their_tables, run)
        _number_loads(runs[1], our_tables, run)
        for root in ("sq_orders", "sq_events"):
            found = differences(their_tables, our_tables, root, runs[0], runs[1])
            assert not found, (level, run, root, found)
        assert _state(theirs, "sq_events") == _state(ours, "sq_events")
    assert [r["seq"] for r in our_tables["sq_events"].rows if r["seq"] > 30] and "secret" not in our_tables["sq_orders"].types
    record("dlt python sources: sql_database", "identical")


def test_sql_table__a_naive_datetime_column_is_a_utc_timestamp_where_dlt_keeps_it_naive(home, lakehouse):
    """On purpose: dlt 1.31 reflects a DATETIME without time zone as `timestamp` with `timezone: false`
    (duckdb TIMESTAMP); sparkload has no `timezone` hint and lands a UTC timestamp. The values are equal."""
    import dlt

    import python_extract as sl

    url = _sqlite(home / "sql_stamps.db", 0)
    theirs, ours = DltSide(home, "sql_stamps"), SparkloadSide(lakehouse, home, "sql_stamps")
    from dlt.sources.sql_database import sql_table as dlt_sql_table

    from python_extract.sources.sql_database import sql_table

    theirs.run([dlt_sql_table(url, "sq_stamps")])
    ours.run([sql_table(url, "sq_stamps")])
    their_table, our_table = theirs.tables()["sq_stamps"], ours.tables()["sq_stamps"]
    assert (their_table.types["at"], our_table.types["at"]) == ("TIMESTAMP", "timestamp")
    assert sorted(dt.datetime.fromisoformat(r["at"]).replace(tzinfo=dt.timezone.utc).isoformat() for r in their_table.rows) == sorted(r["at"] for r in our_table.rows)
    record("dlt python sources: sql_database", "differs-on-purpose")


def test_sql_sources__refuse_what_sparkload_does_not_support_by_name(tmp_path):
    from python_extract import ConfigError
    from python_extract.sources.sql_database import sql_database, sql_table

    url = _sqlite(tmp_path / "refuse.db", 0)
    for call, named in [(lambda: sql_database(url, backend="pyarrow"), "backend='pyarrow'"),
                        (lambda: sql_table(url, "sq_events", query_adapter_callback=print), "query_adapter_callback="),
                        (lambda: sql_database(url, reflection_level="most"), "reflection_level='most'"),
                        (lambda: sql_table(url, "nope"), "no table 'nope'")]:
        with pytest.raises(ConfigError, match=named.replace("(", r"\(")):
            call()


def _files(root: Any, run: int) -> None:
    """Run 0: two files of each format; run 1: a third (the first two unchanged)."""
    import json
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    root.mkdir(exist_ok=True)
    for k in range(2 + run):
        rows = [{"id": 10 * k + i, "name": f"n{k}{i}", "score": 1.5 * i} for i in range(3)]
        stem = root / f"part_{k}"
        if (root / f"part_{k}.jsonl").exists():
            continue
        (root / f"part_{k}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        (root / f"part_{k}.csv").write_text("id,name,score\n" + "".join(f"{r['id']},{r['name']},{r['score']}\n" for r in rows))
        pq.write_table(pa.Table.from_pylist(rows), str(stem) + ".parquet")
        for ext in ("jsonl", "csv", "parquet"):
            os.utime(str(stem) + "." + ext, (1_700_000_000 + 100 * k, 1_700_000_000 + 100 * k))


CSV_TYPES = {"id": {"data_type": "bigint"}, "name": {"data_type": "text"}, "score": {"data_type": "double"}}


def _fs_data(dlt_like: Any, bucket: str) -> List[Any]:
    from importlib import import_module

    fs = import_module(f"{dlt_like.__name__}.sources.filesystem")
    new_only = dlt_like.sources.incremental("modification_date")
    return [
        (fs.filesystem(bucket_url=bucket, file_glob="*.jsonl") | fs.read_jsonl()).with_name("fs_jsonl"),
        (fs.filesystem(bucket_url=bucket, file_glob="*.parquet") | fs.read_parquet(chunksize=2)).with_name("fs_parquet"),
        (fs.filesystem(bucket_url=bucket, file_glob="*.csv") | fs.read_csv()).with_name("fs_csv").apply_hints(columns=CSV_TYPES),
        (fs.filesystem(bucket_url=bucket, file_glob="part_*.jsonl").apply_hints(incremental=new_only)
         | fs.read_jsonl()).with_name("fs_new_files"),
    ]


def test_filesystem__piped_readers_land_the_same_tables_as_dlt_run_after_run(home, lakehouse, tmp_path):
    """`filesystem(bucket_url, file_glob) | read_jsonl() / read_parquet() / read_csv()` (typed by `columns`),
    and with an `incremental` on `modification_date` reading only new files: twice, a file added between."""
    import dlt

    import python_extract as sl

    theirs, ours = DltSide(home, "fs_readers"), SparkloadSide(lakehouse, home, "fs_readers")
    runs: List[Dict[str, int]] = [{}, {}]
    for run in range(2):
        _files(tmp_path / "bucket", run)
        theirs.run(_fs_data(dlt, str(tmp_path / "bucket")))
        ours.run(_fs_data(sl, str(tmp_path / "bucket")))
        their_tables, our_tables = theirs.tables(), ours.tables()
        _number_loads(runs[0], their_tables, run)
        _number_loads(runs[1], our_tables, run)
        for root in ("fs_jsonl", "fs_parquet", "fs_csv", "fs_new_files"):
            found = differences(their_tables, our_tables, root, runs[0], runs[1])
            assert not found, (run, root, found)
    assert len(our_tables["fs_new_files"].rows) == 9 and len(our_tables["fs_jsonl"].rows) == 6 + 9
    for _ in range(4):
        record("dlt python sources: filesystem", "identical")


def test_filesystem__csv_values_stay_text_where_dlts_pandas_infers_their_types(tmp_path):
    """On purpose: dlt's read_csv infers types with pandas; sparkload's reader keeps CSV values as text
    (the files plugin's rule: declare `columns`, as the identical case above does). The records' values agree."""
    from dlt.sources.filesystem import filesystem as dlt_filesystem
    from dlt.sources.filesystem import read_csv as dlt_read_csv

    from python_extract.sources.filesystem import filesystem, read_csv

    _files(tmp_path / "bucket", 0)
    bucket = str(tmp_path / "bucket")
    theirs = list(dlt_filesystem(bucket_url=bucket, file_glob="*.csv") | dlt_read_csv())
    ours = list(filesystem(bucket_url=bucket, file_glob="*.csv") | read_csv())
    assert [(r["id"], r["score"]) for r in theirs] == [(int(r["id"]), float(r["score"])) for r in ours]
    assert {type(r["id"]) for r in ours} == {str} and {type(r["id"]) for r in theirs} == {int}
    record("dlt python sources: filesystem", "differs-on-purpose")


def test_filesystem__file_items_and_refusals_as_dlt(tmp_path):
    """`filesystem()` alone yields dlt's file items (the same fields and values); unsupported arguments are refused."""
    from dlt.sources.filesystem import filesystem as dlt_filesystem

    from python_extract import ConfigError
    from python_extract.sources.filesystem import filesystem, read_csv

    _files(tmp_path / "bucket", 0)
    bucket = str(tmp_path / "bucket")
    theirs = [dict(f) for f in dlt_filesystem(bucket_url=bucket, file_glob="*.csv")]
    ours = [dict(f) for f in filesystem(bucket_url=bucket, file_glob="*.csv")]
    keys = ("file_name", "relative_path", "file_url", "mime_type", "size_in_bytes")
    assert [{k: f[k] for k in keys} for f in ours] == [{k: f[k] for k in keys} for f in theirs]
    assert [f["modification_date"].timestamp() for f in ours] == [f["modification_date"].timestamp() for f in theirs]
    with pytest.raises(ConfigError, match="credentials="):
        filesystem(bucket_url=bucket, credentials={"key": "x"})
    with pytest.raises(ConfigError, match="skiprows="):
        list(filesystem(bucket_url=bucket, file_glob="*.csv") | read_csv(skiprows=1))
    record("dlt python sources: filesystem", "identical")


def test_rest_api__refuses_what_sparkload_does_not_support_by_name():
    """Each refusal is one ConfigError naming the argument or key; an unknown key lists the known ones."""
    from python_extract import ConfigError
    from python_extract.sources.rest_api import rest_api_resources, rest_api_source

    client = {"base_url": "http://127.0.0.1:1/"}
    cases = [
        ({"client": {**client, "session": object()}, "resources": ["a"]}, "client.session"),
        ({"client": {**client, "auth": object()}, "resources": ["a"]}, "client.auth is a object"),
        ({"client": client, "resources": [{"name": "a", "endpoint": {"path": "a", "data": "x=1"}}]}, r"resources\[0\].endpoint.data"),
        ({"client": client, "resources": [{"name": "a", "endpoint": {"path": "a", "incremental": {"cursor_path": "t", "convert": str}}}]},
         "incremental.convert"),
        ({"client": client, "resources": [{"name": "a", "bogus": 1}]}, r"config.resources\[0\]: unknown key 'bogus'"),
        ({"client": client, "resources": [{"name": "a", "processing_steps": [{"sort": sorted}]}]}, "processing step"),
    ]
    for config, named in cases:
        with pytest.raises(ConfigError, match=named):
            rest_api_resources(config)
    with pytest.raises(ConfigError, match="parallelized=True"):
        rest_api_source({"client": client, "resources": ["a"]}, parallelized=True)
