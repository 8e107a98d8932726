"""Reading data back: `pipeline.dataset()` and `pipeline.sql_client()` on the same loaded rows as dlt 1.31's.

`sql_client()` is judged by dlt's own (`execute_sql`, `execute_query`). dlt's `dataset()` cannot run in this
environment: its column lineage calls sqlglot's `qualify(infer_schema=...)`, which sqlglot 30 no longer has
(`test_dlts_own_dataset__still_fails_here` pins that; when it passes, judge by dlt's relations instead). Until
then each relation is judged by the same query run by duckdb over the tables dlt loaded."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import python_extract as sl
from python_extract.dataset import DatasetError

from ..support.tally import record_vs_dlt as record
from ..support.extract_sides import DltSide, SparkloadSide

ROWS = [{"id": i, "name": f"n{i % 2}", "amount": Decimal(f"{i}.50"), "ts": dt.datetime(2024, 1, i + 1, 12, tzinfo=dt.timezone.utc),
         "kids": [{"k": i * 10 + j} for j in range(i % 3)]} for i in range(5)]
COLUMNS = ("id", "name", "amount", "ts")


@pytest.fixture(scope="module")
def sides(home, lakehouse):
    import dlt

    theirs, ours = DltSide(home, "dataset_parity"), SparkloadSide(lakehouse, home, "dataset_parity")
    theirs.run([dlt.resource(ROWS, name="items")])
    ours.run([sl.resource(ROWS, name="items")])
    return theirs, ours


def _duck(theirs, sql):
    import duckdb

    with duckdb.connect(str(theirs.db), read_only=True) as con:
        con.execute(f'SET search_path = "{theirs.dataset}"')
        return [tuple(r) for r in con.execute(sql).fetchall()]


def _same(values):
    """Rows as comparable tuples: instants in UTC, decimals normalized."""
    def one(v):
        if isinstance(v, dt.datetime):
            return (v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc)
        if isinstance(v, Decimal):
            return v.normalize()
        return v
    return [tuple(one(v) for v in row) for row in values]


CASES = {
    "table_select_order_by": (lambda d: d.items.select(*COLUMNS).order_by("id").fetchall(),
                              "select id, name, amount, ts from items order by id"),
    "getitem_limit": (lambda d: d["items"].select("id").order_by("id").limit(2).fetchall(), "select id from items order by id limit 2"),
    "where": (lambda d: d.items.where("id", ">", 2).select("id", "name").order_by("id").fetchall(),
              "select id, name from items where id > 2 order by id"),
    "child_table": (lambda d: sorted(d.items__kids.select("k").fetchall()), "select k from items__kids order by k"),
    "sql_query": (lambda d: d("select name, count(*) as n from items group by name order by name").fetchall(),
                  "select name, count(*) as n from items group by name order by name"),
    "row_counts": (lambda d: sorted(d.row_counts().fetchall()),
                   "select 'items', count(*) from items union all select 'items__kids', count(*) from items__kids order by 1"),
    "fetchone": (lambda d: [d("select max(id) from items").fetchone()], "select max(id) from items"),
    "df": (lambda d: list(d.items.select(*COLUMNS).order_by("id").df().itertuples(index=False, name=None)),
           "select id, name, amount, ts from items order by id"),
    "arrow": (lambda d: [tuple(r.values()) for r in d.items.select(*COLUMNS).order_by("id").arrow().to_pylist()],
              "select id, name, amount, ts from items order by id"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_dataset_relation__holds_what_dlt_loaded(sides, name):
    theirs, ours = sides
    ask, sql = CASES[name]
    got, expected = _same(ask(ours.pipe.dataset())), _same(_duck(theirs, sql))
    record("reading data back", "identical" if got == expected else "differs")
    assert got == expected


def test_iter_df__chunks_of_chunk_size_holding_every_row(sides):
    theirs, ours = sides
    chunks = list(ours.pipe.dataset().items.select("id", "ts").iter_df(chunk_size=2))
    assert [len(c) for c in chunks] == [2, 2, 1]
    got = sorted(_same(row for c in chunks for row in c.itertuples(index=False, name=None)))
    assert got == _same(_duck(theirs, "select id, ts from items order by id"))
    record("reading data back", "identical")


@pytest.mark.parametrize("sql, args", [("select count(*) from items where id > %s", (1,)),
                                       ("select id, name from items order by id", ()),
                                       ("select k from items__kids order by k", ())])
def test_sql_client__execute_sql_returns_dlts_rows(sides, sql, args):
    theirs, ours = sides
    with theirs.pipeline.sql_client() as client:
        expected = client.execute_sql(sql, *args)
    with ours.pipe.sql_client() as client:
        got = client.execute_sql(sql, *args)
    record("reading data back", "identical" if got == [tuple(r) for r in expected] else "differs")
    assert got == [tuple(r) for r in expected]


def test_sql_client__execute_query_is_a_cursor_as_dlts(sides):
    theirs, ours = sides
    with theirs.pipeline.sql_client() as client, client.execute_query("select id from items order by id") as cursor:
        expected = [tuple(r) for r in cursor.fetchall()]
    with ours.pipe.sql_client() as client, client.execute_query("select id from items order by id") as cursor:
        got = cursor.fetchall()
    record("reading data back", "identical" if got == expected else "differs")
    assert got == expected


def test_a_table_or_column_the_dataset_lacks__is_one_line_naming_it_and_the_closest(sides):
    _, ours = sides
    dataset = ours.pipe.dataset()
    with pytest.raises(DatasetError, match=r"dataset dataset_parity: no table 'itemz' \(did you mean 'items'\?\)"):
        dataset["itemz"]
    with pytest.raises(AttributeError, match="no table 'itemz'"):
        dataset.itemz
    with pytest.raises(DatasetError, match=r"no column 'nme' \(did you mean 'name'\?\)"):
        dataset.items.select("nme")


def test_dlts_own_dataset__still_fails_here(sides):
    theirs, _ = sides
    with pytest.raises(TypeError, match="infer_schema"):
        theirs.pipeline.dataset().items.fetchall()
