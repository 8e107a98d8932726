"""Table maintenance (`python_extract.maintenance.maintain`, the library side of `sparkload lakehouse
maintain`) on the run's lakehouse: it compacts small files, applies delete files, expires snapshots
outside the time-travel window and removes old orphan files, by thresholds, and never changes a
table's rows, also beside a concurrent writer."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from python_extract.cli import main
from python_extract.errors import ConfigError
from python_extract.lakehouse import LakehouseConfig
from python_extract.maintenance import MaintenanceError, describe, maintain
from python_extract.maintenance.operation import _operation, _project, _runner_here

from ..support.files import table_files

MOR = ("tblproperties ('format-version'='2', 'write.delete.mode'='merge-on-read', "
       "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')")
NO_ORPHANS = {"remove_orphans_older_than": None}
NO_COMPACTION = {"compact_when": {"small_files": None, "delete_files": None, "delete_ratio": None}}


@pytest.fixture
def dataset(spark, names):
    spark.sql(f"create namespace if not exists {names.staging}")
    return names.staging


def _fragmented(spark, table: str, inserts: int = 12, files: int = 1) -> None:
    """`inserts` appends of `files` data files of 100 rows each, then a MERGE that updates every 7th
    row and deletes every 11th (delete files)."""
    spark.sql(f"create table {table} (id bigint, v string) using iceberg {MOR}")
    for i in range(inserts):
        spark.sql(f"insert into {table} select /*+ REPARTITION({files}) */ id, 'v{i}' "
                  f"from range({i * files * 100}, {(i + 1) * files * 100})")
    spark.sql(f"merge into {table} t using (select id from range(0, {inserts * files * 100}, 7)) s on t.id = s.id "
              "when matched and t.id % 11 = 0 then delete when matched then update set v = 'updated'")


def _rows(spark, table: str, snapshot=None):
    at = f" version as of {snapshot}" if snapshot else ""
    return sorted(tuple(r) for r in spark.sql(f"select id, v from {table}{at}").collect())


def _current_snapshot(spark, table: str) -> int:
    return spark.sql(f"select snapshot_id from {table}.snapshots order by committed_at desc limit 1").collect()[0][0]


def test_maintain__dry_run_plans_then_compaction_applies_deletes_keeping_rows_and_time_travel(spark, dataset, capsys):
    table = f"{dataset}.items"
    _fragmented(spark, table, inserts=1, files=12)  # 12 small data files in one commit
    before, snapshot = _rows(spark, table), _current_snapshot(spark, table)
    data_files, delete_files = table_files(spark, table)
    assert data_files >= 12 and delete_files >= 1
    # a dry run plans, and neither it nor a bad policy changes anything
    [report] = maintain(datasets=[dataset], dry_run=True, policy=NO_ORPHANS)
    assert [a["action"] for a in report["actions"]] == ["compact", "rewrite_position_deletes"]
    assert report["health"]["data_files"] == data_files and report["health"]["delete_files"] == delete_files
    assert describe(report).startswith(f"{table} (") and "would run compact" in describe(report)
    # the command prints the same line per table
    assert main(["lakehouse", "maintain", "--dataset", dataset, "--dry-run", "--policy", "{remove_orphans_older_than: none}"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == describe(report)
    assert main(["lakehouse", "maintain", "--dataset", dataset, "--policy", "{retain_snapshots: 0}"]) == 2
    assert capsys.readouterr().err.strip() == ("sparkload: sparkload maintenance: maintenance retain_snapshots=0 is not valid; "
                                               "expected an integer >= 1. The table is unchanged.")
    assert (_rows(spark, table), _current_snapshot(spark, table)) == (before, snapshot)
    # the real run: one data file, no delete file, the same rows
    [report] = maintain(datasets=[dataset], policy=NO_ORPHANS)
    assert [a["action"] for a in report["actions"]] == ["compact", "rewrite_position_deletes"], report
    assert _rows(spark, table) == before
    assert table_files(spark, table) == (1, 0)
    # the snapshot before maintenance is inside the time-travel window (7 days): still readable
    assert _rows(spark, table, snapshot) == before
    # a second pass finds nothing to do
    [again] = maintain(datasets=[dataset], policy=NO_ORPHANS)
    assert again["actions"] == [] and describe(again) == f"{table}: nothing to do (1 data files, 0 delete files)"


@pytest.mark.each_format
def test_maintain__a_datasets_health_is_read_in_one_statement_for_all_its_tables(spark, dataset, monkeypatch):
    """Issue 40 item 7: a dry run of a dataset of N tables runs, on Iceberg, one health statement for all of
    them and each table's orphan-file listing (N + 1; 2N before), on Delta one statement of every row count
    and DESCRIBE DETAIL and HISTORY per table (2N + 1; 4N before), and reports what one table alone reports."""
    from dbt.cli.main import dbtRunner

    from python_extract.lakehouse import session_format

    file_format = session_format(spark)
    tables = [f"{dataset}.t{i}" for i in range(3)]
    for table in tables:
        spark.sql(f"create table {table} (id bigint, v string) using {file_format}")
        spark.sql(f"insert into {table} values (1, 'a'), (2, 'b')")
    statements, init = [], dbtRunner.__init__

    def counting(runner, manifest=None, callbacks=None):  # every statement dbt sends, by its event
        init(runner, manifest=manifest, callbacks=[*(callbacks or []), lambda event: event.info.name == "SQLQuery"
                                                   and statements.append(" ".join(event.data.sql.split()))])
    monkeypatch.setattr(dbtRunner, "__init__", counting)
    reports = maintain(datasets=[dataset], dry_run=True)
    on_tables = [sql for sql in statements if any(f"`{t.split('.')[1]}`" in sql for t in tables)]
    if file_format == "iceberg":
        assert len(on_tables) == 1 + len(tables), on_tables
        assert on_tables[0].count("union all") == len(tables) - 1 and "`files`" in on_tables[0], on_tables[0]
    else:
        assert len(on_tables) == 1 + 2 * len(tables), on_tables
        assert on_tables[0].count("union all") == len(tables) - 1 and "count(*)" in on_tables[0], on_tables[0]
    assert sorted(r["table"] for r in reports) == sorted(tables)
    monkeypatch.undo()
    # the operation on one table of them reports it as the dataset's did (but for the cut-off times, relative to now)
    alone, error = _operation(_runner_here(_project(LakehouseConfig.from_env())), [tables[1]], file_format, True, True)
    [together] = [r for r in reports if r["table"] == tables[1]]
    assert error is None and [_timeless(r) for r in alone] == [_timeless(together)]


@pytest.mark.each_format
def test_maintain__a_target_schema_compacts_its_ledger_of_applied_loads(spark, dataset):
    """The ledger of a target schema gains a small file with every model run that applies a load and every
    `dbt run` reads it; `maintain` of the target schema compacts it like any table and keeps its rows
    (docs/lakehouse.md, Table maintenance: name the target schemas too)."""
    from python_extract.contract import APPLIED_LOADS_TABLE, layout
    from python_extract.lakehouse import session_format

    ledger = f"{dataset}.{APPLIED_LOADS_TABLE}"
    columns = ", ".join(f"`{column}` {kind}" for column, kind in layout(APPLIED_LOADS_TABLE).items())  # the contract's
    spark.sql(f"create table {ledger} ({columns}) using {session_format(spark)}")
    for i in range(12):  # one commit of one row per applying model, as the materialization writes it
        spark.sql(f"insert into {ledger} values ('analytics.m_{i}', '17000000{i:02d}.5', current_timestamp())")
    before = sorted(tuple(r) for r in spark.sql(f"select * from {ledger}").collect())
    assert table_files(spark, ledger) == (12, 0)
    [report] = maintain(datasets=[dataset], policy=NO_ORPHANS)
    assert report["table"] == ledger and "compact" in [a["action"] for a in report["actions"]], report
    assert table_files(spark, ledger) == (1, 0)
    assert sorted(tuple(r) for r in spark.sql(f"select * from {ledger}").collect()) == before


def _timeless(report):
    """A report without its cut-off times (relative to now)."""
    return {**report, "health": {k: v for k, v in report["health"].items() if not k.endswith("_before")},
            "actions": [a["action"] for a in report["actions"]]}


@pytest.mark.extended  # the expiry's window edge; the first test reads a snapshot the window keeps
def test_maintain__expires_snapshots_only_outside_the_time_travel_window(spark, dataset):
    table = f"{dataset}.items"
    _fragmented(spark, table, inserts=3)
    before = _rows(spark, table)
    snapshots = spark.sql(f"select count(*) from {table}.snapshots").collect()[0][0]
    [kept] = maintain(datasets=[dataset], policy={"keep_snapshots_for": "1h", **NO_ORPHANS, **NO_COMPACTION})
    assert "expire_snapshots" not in [a["action"] for a in kept["actions"]]
    assert spark.sql(f"select count(*) from {table}.snapshots").collect()[0][0] == snapshots
    time.sleep(1.5)
    [expired] = maintain(datasets=[dataset], policy={"keep_snapshots_for": "1s", "retain_snapshots": 2, **NO_ORPHANS, **NO_COMPACTION})
    assert "expire_snapshots" in [a["action"] for a in expired["actions"]]
    assert spark.sql(f"select count(*) from {table}.snapshots").collect()[0][0] == 2
    assert _rows(spark, table) == before


def test_maintain__removes_orphan_files_older_than_the_threshold_only(spark, dataset, lakehouse):
    table = f"{dataset}.items"
    spark.sql(f"create table {table} (id bigint, v string) using iceberg {MOR}")
    spark.sql(f"insert into {table} values (1, 'a'), (2, 'b')")
    data_dir = Path(spark.sql(f"select file_path from {table}.files").collect()[0][0].replace("file:", "")).parent
    old, fresh = data_dir / "orphan-old.parquet", data_dir / "orphan-fresh.parquet"
    for orphan in (old, fresh):
        orphan.write_bytes(b"not referenced by any snapshot")
    ten_days_ago = time.time() - 10 * 86400
    os.utime(old, (ten_days_ago, ten_days_ago))
    [report] = maintain(datasets=[dataset], policy={"remove_orphans_older_than": "3d"})
    assert [a for a in report["actions"] if a["action"] == "remove_orphan_files"][0]["result"] == {"orphan_files": 1}
    assert (old.exists(), fresh.exists()) == (False, True)
    assert _rows(spark, table) == [(1, "a"), (2, "b")]


def test_maintain__never_loses_a_concurrent_writers_commit(spark, dataset):
    """A writer appends and merges while maintenance runs; a writer statement that loses the race to a
    compaction fails whole and is retried, as a dbt rerun would. Every row the writer committed is there."""
    table = f"{dataset}.items"
    _fragmented(spark, table, inserts=6)
    expected = dict(_rows(spark, table))
    failures = []

    def writer():
        for k in range(6):
            for statement in (f"insert into {table} select id, 'new{k}' from range({10000 + k * 50}, {10000 + (k + 1) * 50})",
                              f"merge into {table} t using (select id from range({k}, 600, 13)) s on t.id = s.id "
                              f"when matched then update set v = 'w{k}'"):
                for _ in range(5):
                    try:
                        spark.sql(statement)
                        break
                    except Exception as e:  # noqa: BLE001 - a lost race is retried like a dbt rerun
                        failures.append(str(e).splitlines()[0][:200])
                else:
                    raise AssertionError(f"writer gave up: {failures[-1]}")
            expected.update({i: f"new{k}" for i in range(10000 + k * 50, 10000 + (k + 1) * 50)})
            expected.update({i: f"w{k}" for i in range(k, 600, 13) if i in expected})

    thread = threading.Thread(target=writer)
    thread.start()
    reports = []
    while thread.is_alive():
        reports += maintain(datasets=[dataset], policy={"compact_when": {"small_files": 2, "delete_files": 1}, **NO_ORPHANS})
    thread.join()
    assert _rows(spark, table) == sorted(expected.items())
    assert any(a["action"] == "compact" for r in reports for a in r["actions"]), reports


def test_maintain__an_invalid_policy_is_a_one_line_error_and_changes_nothing(spark, dataset):
    table = f"{dataset}.items"
    _fragmented(spark, table, inserts=3)
    snapshot = _current_snapshot(spark, table)
    with pytest.raises(MaintenanceError) as error:
        maintain(datasets=[dataset], policy={"compact_when": {"small_files": "ten"}})
    assert str(error.value) == ("sparkload maintenance: maintenance compact_when.small_files='ten' is not valid; "
                                "expected an integer >= 1 or none. The table is unchanged.")
    with pytest.raises(MaintenanceError, match=r"maintenance remove_orphans_older_than='1h' is not valid; expected at least 1d"):
        maintain(datasets=[dataset], policy={"remove_orphans_older_than": "1h"})
    with pytest.raises(MaintenanceError, match=r"maintenance compact_wen=.* expected one of the keys compact_when, small_file_size"):
        maintain(datasets=[dataset], policy={"compact_wen": {}})
    with pytest.raises(ConfigError, match=r"no dataset no_such_dataset in the lakehouse"):
        maintain(datasets=["no_such_dataset"])
    assert _current_snapshot(spark, table) == snapshot


@pytest.mark.only_on("iceberg")
def test_maintain__compacts_a_table_with_a_sort_order_in_that_order_and_an_unsorted_one_by_bin_packing(spark, dataset):
    """A table with a sort order (a model's `cluster_by` on Iceberg) is compacted with the `sort` strategy,
    so its compacted file holds the rows in that order; a twin without one is only bin-packed, which
    keeps the small files' rows in whatever order they are read (so the first check can fail)."""
    ranges = [5, 0, 9, 2, 7, 11, 1, 4, 10, 3, 8, 6]  # 12 small files, ids in no order across them
    for name, ordered in (("sorted_items", True), ("unsorted_items", False)):
        table = f"{dataset}.{name}"
        spark.sql(f"create table {table} (id bigint, v string) using iceberg")
        if ordered:
            spark.sql(f"alter table {table} write ordered by id")
        for i in ranges:
            spark.sql(f"insert into {table} select id, 'v' from range({i * 100}, {(i + 1) * 100}, 1, 1)")  # one file each
        assert table_files(spark, table) == (12, 0)
    plan = {r["table"]: [(a["action"], a["why"]) for a in r["actions"]] for r in maintain(datasets=[dataset], dry_run=True, policy=NO_ORPHANS)}
    assert plan == {f"{dataset}.sorted_items": [("compact", "12 small files, sorted by id ASC NULLS FIRST")],
                    f"{dataset}.unsorted_items": [("compact", "12 small files")]}
    maintain(datasets=[dataset], policy=NO_ORPHANS)

    def compacted_ids(name):
        table = f"{dataset}.{name}"
        assert table_files(spark, table) == (1, 0)
        assert _rows(spark, table) == [(i, "v") for i in range(1200)]
        [path] = [r[0] for r in spark.sql(f"select file_path from {table}.files where content = 0").collect()]
        return pq.read_table(path.removeprefix("file:"), columns=["id"])["id"].to_pylist()

    assert compacted_ids("sorted_items") == list(range(1200))
    unsorted = compacted_ids("unsorted_items")
    assert sorted(unsorted) == list(range(1200)) and unsorted != list(range(1200))


@pytest.mark.only_on("delta")
def test_maintain_delta__compaction_and_purge_apply_deletion_vectors_keeping_rows_and_time_travel(spark, dataset):
    table = f"{dataset}.items"
    spark.sql(f"create table {table} (id bigint, v string) using delta tblproperties ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"insert into {table} select /*+ REPARTITION(12) */ id, 'v' from range(0, 1200)")  # 12 small files
    spark.sql(f"merge into {table} t using (select id from range(0, 1200, 7)) s on t.id = s.id "
              "when matched and t.id % 11 = 0 then delete when matched then update set v = 'updated'")
    before, version = _rows(spark, table), spark.sql(f"describe history {table} limit 1").first()["version"]
    data_files, vectors = table_files(spark, table)
    assert data_files >= 12 and vectors >= 1
    [plan] = maintain(datasets=[dataset], dry_run=True, policy=NO_ORPHANS)
    assert [a["action"] for a in plan["actions"]] == ["compact", "purge_deletion_vectors"], plan
    assert plan["health"]["deletion_vectors"] == vectors and plan["health"]["data_files"] == data_files
    assert describe(plan).startswith(f"{table} ({data_files} data files, {vectors} deletion vectors): would run compact (")
    assert table_files(spark, table) == (data_files, vectors)
    [report] = maintain(datasets=[dataset], policy=NO_ORPHANS)
    assert [a["action"] for a in report["actions"]] == ["compact", "purge_deletion_vectors"], report
    assert _rows(spark, table) == before and table_files(spark, table) == (1, 0)
    assert _rows(spark, table, version) == before  # the version before maintenance: still readable
    [again] = maintain(datasets=[dataset], policy=NO_ORPHANS)
    assert again["actions"] == [] and describe(again) == f"{table}: nothing to do (1 data files, 0 deletion vectors)"


@pytest.mark.only_on("delta")
def test_maintain_delta__a_time_travel_window_below_deltas_7_days_is_refused_and_changes_nothing(spark, dataset):
    table = f"{dataset}.items"
    spark.sql(f"create table {table} (id bigint, v string) using delta")
    spark.sql(f"insert into {table} values (1, 'a')")
    commits = spark.sql(f"describe history {table}").count()
    with pytest.raises(MaintenanceError) as error:
        maintain(datasets=[dataset], policy={"keep_snapshots_for": "1h", **NO_ORPHANS})
    assert str(error.value) == (f"sparkload maintenance of {table}: maintenance keep_snapshots_for='3600s' is not valid; expected "
                                "at least 7d on Delta, whose VACUUM refuses a shorter window (a reader of an older version "
                                "would lose its files), or none. The table is unchanged.")
    assert spark.sql(f"describe history {table}").count() == commits
