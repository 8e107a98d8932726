"""What a `dbt run` reads once for all its models (macros/helpers/run_loads.sql, issue 37): a model the
run's shared read shows as idle sends no statement of its own (the run's last model records the loads
that bring it no rows, with every idle model's, in one insert) and still reports NO-OP; a load that completes after the shared read is applied
by the next run, not lost and not applied twice. The shared read is the sparkload adapter's, so these
run on `embedded` only (the package alone reads per model, as every other test here shows)."""
from __future__ import annotations

import re

import pytest

from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets("embedded")
TABLES = {"up_pk": "items", "cust_io": "customers"}  # two root models, each over its own staging table


def _messages(result) -> dict:
    return {r.node.name: r.message for r in result.result.results}


def _statements(dbt, model: str) -> list:
    return [" ".join(re.sub(r"/\*.*?\*/", "", sql, flags=re.S).split())[:60] for node, sql in dbt.queries if node == model]


def _ledger(spark, names, model: str, load_id: str) -> int:
    return spark.sql(f"select count(*) from {names.target}._sparkload_applied_loads "
                     f"where target = '{names.target}.{model}' and load_id = '{load_id}'").collect()[0][0]


def _run_with_callback(dbt, monkeypatch, on_event) -> dict:
    """A run of both models whose dbt events also go to `on_event` (it acts between the two models); their messages."""
    from dbt.cli import main as dbt_main

    class Runner(dbt_main.dbtRunner):
        def __init__(self, manifest=None, callbacks=None):
            super().__init__(manifest=manifest, callbacks=[*(callbacks or []), on_event])

    monkeypatch.setattr(dbt_main, "dbtRunner", Runner)
    try:
        return _messages(dbt.run(" ".join(TABLES)))
    finally:
        monkeypatch.undo()


def test_run_loads__a_load_completing_during_a_run_is_applied_by_the_next_run(spark, stage, dbt, names, monkeypatch):
    # load 1 and 2: a row for each model; the first run builds both tables
    stage.load([{"id": 1, "name": "a"}], table="items")
    stage.load([{"id": 1, "name": "Ann"}], table="customers")
    dbt.run(" ".join(TABLES))

    # run 2, nothing pending: right after the first model finished (it read the run's loads), load 3
    # lands a row for the other model, which then finds nothing pending in the run's shared read
    order, landed = [], {}

    def on_event(e) -> None:
        if e.info.name == "LogModelResult" and not landed:
            order.append(e.data.node_info.node_name)
            other = next(m for m in TABLES if m != order[0])
            landed[other] = stage.load([{"id": 2, "name": "late"}], table=TABLES[other])

    shown = _run_with_callback(dbt, monkeypatch, on_event)
    (other, late), first = next(iter(landed.items())), order[0]
    assert shown == {first: "NO-OP: no pending loads", other: "NO-OP: no pending loads"}
    assert _ledger(spark, names, other, late) == 0
    before = table(spark, f"{names.target}.{other}", "id, name")
    assert before == rows_of((1, "a" if other == "up_pk" else "Ann"))

    # run 3: the late load is applied once by the model it brings rows, recorded by the other
    dbt.queries.clear()
    shown = _messages(dbt.run(" ".join(TABLES)))
    assert shown == {other: "APPLIED 1 inserted from 1 load", first: f"NO-OP: loads {late} bring no rows for this model"}
    assert table(spark, f"{names.target}.{other}", "id, name") == sorted(before + rows_of((2, "late")))
    assert (_ledger(spark, names, other, late), _ledger(spark, names, first, late)) == (1, 1)

    # run 4, nothing pending: the model that runs second sends no statement at all
    dbt.queries.clear()
    shown = _messages(dbt.run(" ".join(TABLES)))
    assert shown == {m: "NO-OP: no pending loads" for m in TABLES}
    sent = {m: _statements(dbt, m) for m in TABLES}
    # the first: `show tables` and the run's loads its models have not applied (none: their tables not read)
    assert sorted(len(s) for s in sent.values()) == [0, 2], sent
    busy = next(s for s in sent.values() if s)
    assert busy[0].startswith("show tables") and busy[1].startswith("select 'pending'"), sent
    dbt.run(" ".join(TABLES))
    assert (_ledger(spark, names, other, late), _ledger(spark, names, first, late)) == (1, 1)


@pytest.mark.each_format  # the re-read replaced the read that cost 1.7-2.4 s a pending model on Delta
def test_run_loads__a_later_pending_model_drops_loads_applied_or_aborted_since_the_runs_read(spark, stage, dbt, names,
                                                                                              monkeypatch):
    """The run's second model has rows to apply from the run's shared read; right before it writes it reads again
    its loads' status and its ledger: a load another run applied meanwhile (its ledger entry) and one aborted
    meanwhile are dropped, not applied; a load completed meanwhile waits for the next run."""
    stage.load([{"id": 1, "name": "a"}], table="items")
    stage.load([{"id": 1, "name": "Ann"}], table="customers")
    dbt.run(" ".join(TABLES))
    # two new loads for each model, each bringing it a row
    loads = {m: [stage.load([{"id": i, "name": f"{m}-{i}"}], table=TABLES[m]) for i in (2, 3)] for m in TABLES}

    order, late = [], {}

    def on_event(e) -> None:
        if e.info.name == "LogModelResult" and not order:
            order.append(e.data.node_info.node_name)
            other = next(m for m in TABLES if m != order[0])
            applied, aborted = loads[other]
            # another run applied `applied` to the other model (its ledger entry); `aborted` is aborted; a new load lands
            spark.sql(f"insert into {names.target}._sparkload_applied_loads values "
                      f"('{names.target}.{other}', '{applied}', current_timestamp())")
            spark.sql(f"update {names.staging}._dlt_loads set status = -1 where load_id = '{aborted}'")
            late[other] = stage.load([{"id": 4, "name": "late"}], table=TABLES[other])

    shown = _run_with_callback(dbt, monkeypatch, on_event)
    first = order[0]
    (other, late_load), = late.items()
    first_rows = [(1, "a" if first == "up_pk" else "Ann"), (2, f"{first}-2"), (3, f"{first}-3")]
    other_row = (1, "a" if other == "up_pk" else "Ann")
    assert shown == {first: "APPLIED 2 inserted from 4 loads",  # its two and the other model's two (no rows for it)
                     other: f"NO-OP: loads {', '.join(sorted(loads[first]))} bring no rows for this model"}, shown
    assert table(spark, f"{names.target}.{first}", "id, name") == rows_of(*first_rows)
    assert table(spark, f"{names.target}.{other}", "id, name") == rows_of(other_row)

    # the next run applies the late load, and neither the one applied elsewhere nor the aborted one
    shown = _messages(dbt.run(" ".join(TABLES)))
    assert shown == {other: "APPLIED 1 inserted from 1 load", first: f"NO-OP: loads {late_load} bring no rows for this model"}
    assert table(spark, f"{names.target}.{other}", "id, name") == rows_of(other_row, (4, "late"))
    assert [_ledger(spark, names, other, load) for load in (*loads[other], late_load)] == [1, 0, 1]


def test_run_loads__idle_models_record_loads_without_rows_in_one_insert_at_the_end_of_the_run(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}], table="items")
    stage.load([{"id": 1, "name": "Ann"}], table="customers")
    dbt.run(" ".join(TABLES))
    # load 3: rows for items only; customers' model has it pending but it brings that model no rows
    load = stage.load([{"id": 2, "name": "b"}], table="items")
    dbt.queries.clear()
    shown = _messages(dbt.invoke("run", "--select", "up_pk", "cust_io"))
    assert shown == {"up_pk": "APPLIED 1 inserted from 1 load", "cust_io": f"NO-OP: loads {load} bring no rows for this model"}
    # cust_io sends at most the run's first statements (`show tables`, the run's loads its models have not
    # applied, their tables) and, as the run's last model, the one ledger insert of the idle models; no
    # describe, no statistics
    mine = _statements(dbt, "cust_io")
    assert all(s.startswith(("show tables", "select 'pending'", "select 'covered'", "insert into")) for s in mine), mine
    assert len(mine) <= 4, mine
    sent = [" ".join(re.sub(r"/\*.*?\*/", "", sql, flags=re.S).split()) for _, sql in dbt.queries]
    inserts = [sql for sql in sent if sql.startswith("insert into") and "_sparkload_applied_loads" in sql]
    assert len(inserts) == 2, inserts  # up_pk's after its MERGE, and the idle models' (cust_io's) one
    assert table(spark, f"{names.target}.cust_io", "id, name") == rows_of((1, "Ann"))
    assert _ledger(spark, names, "cust_io", load) == 1


@pytest.mark.only_on("iceberg")
def test_run_loads__the_tables_a_run_reads_merge_their_manifests_on_iceberg(spark, stage, dbt, names):
    """Every read of the loads tables and the ledger plans over all their manifests, and each load or applying
    run adds one (issue 37: 70 manifests made a ledger read 0.34-0.38 s, merged 0.15-0.18 s). The extractor's
    tables and the package's ledger are created to merge them from 5 on (contract.ICEBERG_COMMIT_PROPERTIES)."""
    from python_extract.contract import ICEBERG_COMMIT_PROPERTIES

    for n in range(7):  # 7 commits to each of the extractor's tables; the model applies each load: 7 ledger commits
        stage.load([{"id": n, "name": f"n{n}"}], table="items")
        dbt.run("up_pk")
    assert table(spark, f"{names.target}.up_pk", "id") == rows_of(*[(n,) for n in range(7)])
    tables = [f"{names.staging}.{t}" for t in ("_dlt_loads", "_sparkload_load_tables", "items")] + [
        f"{names.target}._sparkload_applied_loads"]
    for name in tables:
        properties = {r[0]: r[1] for r in spark.sql(f"show tblproperties {name}").collect()}
        assert {k: properties.get(k) for k in ICEBERG_COMMIT_PROPERTIES} == dict(ICEBERG_COMMIT_PROPERTIES), name
        commits = spark.sql(f"select count(*) from {name}.snapshots").collect()[0][0]
        manifests = spark.sql(f"select count(*) from {name}.manifests").collect()[0][0]
        assert commits >= 7 and manifests <= 4, (name, commits, manifests)  # unmerged: one manifest per commit


def _files(spark, name: str) -> int:
    from python_extract.lakehouse import session_format

    if session_format(spark) == "delta":
        return spark.sql(f"describe detail {name}").collect()[0]["numFiles"]
    return spark.sql(f"select count(*) from {name}.files where content = 0").collect()[0][0]


@pytest.mark.each_format  # the compaction is each format's own statement
def test_run_loads__a_run_compacts_a_ledger_it_wrote_once_it_holds_enough_files(spark, stage, dbt, names):
    """Each applying model adds a file to its schema's ledger, and every run's shared read scans the whole
    ledger; the run's last model compacts a ledger the run wrote to once it holds `sparkload_compact_ledger_at`
    files (here 3). Its rows stay as they were; none never compacts; a bad value changes nothing."""
    ledger = f"{names.target}._sparkload_applied_loads"
    at3 = {"sparkload_compact_ledger_at": 3}
    loads = [stage.load([{"id": 1, "name": "a"}], table="items")]
    dbt.invoke("run", "--select", "up_pk", vars=at3)
    loads.append(stage.load([{"id": 2, "name": "b"}], table="items"))
    dbt.invoke("run", "--select", "up_pk", vars=at3)
    assert _files(spark, ledger) == 2
    loads.append(stage.load([{"id": 3, "name": "c"}], table="items"))
    dbt.invoke("run", "--select", "up_pk", vars=at3)  # its ledger write makes 3 files: compacted into 1
    assert _files(spark, ledger) == 1
    applied = rows_of(*[(f"{names.target}.up_pk", load) for load in loads])
    assert table(spark, ledger, "target, load_id") == applied
    assert table(spark, f"{names.target}.up_pk", "id") == rows_of((1,), (2,), (3,))

    off = {"sparkload_compact_ledger_at": "none"}
    for n in (4, 5):
        loads.append(stage.load([{"id": n, "name": "d"}], table="items"))
        dbt.invoke("run", "--select", "up_pk", vars=off)
    assert _files(spark, ledger) == 3

    loads.append(stage.load([{"id": 6, "name": "e"}], table="items"))
    refused = dbt.invoke("run", "--select", "up_pk", vars={"sparkload_compact_ledger_at": 1}, expect_success=False)
    assert "--vars sparkload_compact_ledger_at=1 is not valid" in str(refused.result.results[0].message)
    assert table(spark, f"{names.target}.up_pk", "id") == rows_of(*[(n,) for n in range(1, 6)])
    assert _files(spark, ledger) == 3
    assert table(spark, ledger, "target, load_id") == rows_of(*[(f"{names.target}.up_pk", load) for load in loads[:-1]])
