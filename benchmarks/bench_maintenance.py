"""Maintenance benchmark (not a test): how 100 incremental syncs of 1% fragment a table of N rows
(upsert and scd2 through the sparkload materialization, merge-on-read defaults), and what
`python_extract.maintenance.maintain` gives back, against a freshly written copy of the same rows.

    .venv/bin/python benchmarks/bench_maintenance.py [--rows 1000000] [--syncs 100] [--every 10]
                                                     [--formats delta iceberg] [--home DIR]

A sync is one load of 1% of N rows (0.5% updates of keys spread over the whole table, 0.5% new keys)
and one `dbt run` of both models (benchmarks/merge_project: bench_upsert, bench_scd2). Every `--every`
syncs, for each table: data files, delete files, median data file size, the time of a full scan
(every column of every live row) and of the next MERGE (a hand-written MERGE of a probe increment
that no model ever applies, rolled back afterwards, so the tables keep only the syncs' changes). Then
maintenance of the dataset (default policy; on Iceberg snapshots older than 0 s expired, on Delta no VACUUM,
which refuses a window under 7 days and changes neither scan nor MERGE), the same figures after
it, and the same figures for a fresh copy (CREATE TABLE AS SELECT of the table), the maintained table's
and the copy's scan and MERGE each the median of three taken in turns. Goals: after
maintenance, scan and MERGE within 1.2x of the fresh copy, no data file under 8 MiB except the newest,
maintenance under 2x one sync. Prints the machine, its load average, and the figures.

Each table format runs in a process of its own (`benchmarks/formats.py`); with both (the default) the run ends
with the figures after maintenance side by side, Delta ÷ Iceberg. Delete files are Iceberg's position-delete
files, or on Delta the data files a deletion vector applies to (from the table's `_delta_log`); the probe
MERGE is undone by `rollback_to_snapshot` (Iceberg) or `RESTORE TABLE ... TO VERSION AS OF` (Delta).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import formats  # noqa: E402
from bench_merge import BENCH, MOR, PROJECT, RAW, Dbt, drop_schema, floor_sql, land, load_id, rows_sql, versions  # noqa: E402

from python_extract.lakehouse import LakehouseConfig, get_session, session_format  # noqa: E402
from python_extract.lakehouse.delta_log import live_files, version  # noqa: E402
from python_extract.maintenance import describe, maintain  # noqa: E402

MODELS = {"upsert": "bench_upsert", "scd2": "bench_scd2"}
PROBE = "probe"
MiB = 1 << 20


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def files(spark, table: str) -> dict:
    if session_format(spark) == "delta":
        live = live_files(spark, table)
        data = sorted(f.size for f in live)
        newest = max(live, key=lambda f: f.modification_time, default=None)
        small = sum(1 for s in data if s < 8 * MiB) - (1 if newest and newest.size < 8 * MiB else 0)
        return {"data": len(data), "deletes": sum(1 for f in live if f.deletion_vector),
                "median_mib": statistics.median(data) / MiB if data else 0, "small_not_newest": small}
    rows = spark.sql(f"select content, file_size_in_bytes as size from {table}.files").collect()
    data = sorted(r["size"] for r in rows if r["content"] == 0)
    newest = spark.sql(f"select file_size_in_bytes from {table}.files where content = 0 order by "
                       "readable_metrics._dlt_load_id.upper_bound desc limit 1").collect()
    small = sum(1 for s in data if s < 8 * MiB) - (1 if newest and newest[0][0] < 8 * MiB else 0)
    return {"data": len(data), "deletes": len(rows) - len(data), "median_mib": statistics.median(data) / MiB if data else 0,
            "small_not_newest": small}


def scan(spark, table: str) -> float:
    return timed(lambda: spark.sql(f"select count(*), sum(hash(*)) from {table}").collect())


def next_merge(spark, strategy: str, table: str) -> float:
    """A hand-written MERGE of the probe increment, then the table back at its snapshot."""
    if session_format(spark) == "delta":
        before = version(spark, table)
        took = timed(lambda: spark.sql(floor_sql(strategy, table, PROBE)).collect())
        spark.sql(f"restore table {table} to version as of {before}")
        return took
    before = spark.sql(f"select snapshot_id from {table}.refs where name = 'main'").first()[0]  # after a rollback,
    # the newest snapshot is the rolled-back one, not the table's current state
    took = timed(lambda: spark.sql(floor_sql(strategy, table, PROBE)).collect())
    spark.sql(f"call system.rollback_to_snapshot('{table}', {before})")
    return took


def figures(spark, strategy: str, table: str) -> dict:
    return {**files(spark, table), "scan_s": scan(spark, table), "merge_s": next_merge(spark, strategy, table)}


def compared(spark, strategy: str, tables: list[str], repeats: int = 3) -> list[dict]:
    """The figures of each table, scan and MERGE the median of `repeats` taken in turns (a, b, a, b, ...),
    so that neither table pays alone for a cold cache or a burst of load: a sub-second scan timed once
    varied 2x between two identical one-file tables."""
    times = {t: {"scan_s": [], "merge_s": []} for t in tables}
    for _ in range(repeats):
        for t in tables:
            times[t]["scan_s"].append(scan(spark, t))
            times[t]["merge_s"].append(next_merge(spark, strategy, t))
    return [{**files(spark, t), **{k: statistics.median(v) for k, v in times[t].items()}} for t in tables]


def show(label: str, strategy: str, f: dict) -> None:
    print(f"  {label:<22}{strategy:<8}{f['data']:>7}{f['deletes']:>9}{f['median_mib']:>11.2f}{f['small_not_newest']:>8}"
          f"{f['scan_s']:>9.2f}{f['merge_s']:>9.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--syncs", type=int, default=100)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--home", help="lakehouse directory (default: a temporary one per format)")
    formats.add_arguments(parser)
    args = parser.parse_args()
    if len(args.formats) > 1:
        found = formats.run_each(__file__, args.formats, ["--rows", str(args.rows), "--syncs", str(args.syncs),
                                                           "--every", str(args.every)], args.home)
        print(f"\nafter maintenance, side by side (N = {args.rows:,}, {args.syncs} syncs)")
        rows = []
        for strategy in MODELS:
            d, i = found["delta"][strategy], found["iceberg"][strategy]
            rows += [(f"{strategy} {label}", d[key], i[key]) for label, key in (
                ("scan ÷ fresh copy", "scan_x"), ("MERGE ÷ fresh copy", "merge_x"), ("data files", "data"),
                ("delete files", "deletes"), ("median file MiB", "median_mib"))]
        rows += [(label, found["delta"][key], found["iceberg"][key]) for label, key in (
            ("maintenance s", "maintenance_s"), ("maintenance ÷ median sync", "maintenance_x"), ("median sync s", "sync_s"))]
        formats.side_by_side(rows, unit="")
        return
    fmt = args.formats[0]
    home = Path(args.home or tempfile.mkdtemp(prefix=f"bench_maintenance_{fmt}_"))
    os.environ["SPARKLOAD_HOME"] = str(home)
    config = LakehouseConfig.from_env(home=home, table_format=fmt, spark_conf={"spark.driver.memory": "8g"})  # as merge_project's profile
    spark = get_session(config)
    dbt = Dbt(spark)
    from dbt.cli.main import dbtRunner

    dbtRunner().invoke(["deps", "--quiet", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {platform.platform()}")
    print(f"versions: {versions()}; table format {session_format(spark)} (row-level changes as delete files / deletion vectors)")

    n, step = args.rows, args.rows // 100
    for schema in (BENCH, RAW):
        drop_schema(spark, schema)
    spark.sql(f"create schema {RAW}")
    spark.sql(f"create table {RAW}.items (id bigint, name string, amount double, category string, updated_at timestamp, "
              f"_dlt_load_id string, _dlt_id string) using {fmt} {MOR[fmt]}")
    spark.sql(f"create table {RAW}._dlt_loads (load_id string, schema_name string, status bigint, "
              f"inserted_at timestamp, schema_version_hash string) using {fmt}")
    land(spark, load_id(0), rows_sql(f"select id from range({n})", "name", load_id(0)))
    dbt("run", "--select", " ".join(MODELS.values()), load_id=load_id(0))
    # the probe: updates of spread keys and new keys, under a load id no `_dlt_loads` row names
    spark.sql(f"insert into {RAW}.items " + rows_sql(
        f"select id from range(0, {n}) where id % 200 = 7 union all select id from range({10 * n}, {10 * n + step // 2})",
        "probe", PROBE))

    print(f"N = {n:,}, {args.syncs} syncs of {step:,} rows (0.5% spread updates, 0.5% new keys)")
    print(f"  {'after':<22}{'table':<8}{'files':>7}{'deletes':>9}{'median MiB':>11}{'<8MiB':>8}{'scan s':>9}{'MERGE s':>9}")
    sync_times = []
    top = n
    for k in range(1, args.syncs + 1):
        increment = load_id(k)
        land(spark, increment, rows_sql(
            f"select id from range(0, {top}) where (id * 7919 + {k * 104729}) % 200 = 0 union all "
            f"select id from range({top}, {top + step // 2})", f"upd{k}_", increment))
        top += step // 2
        sync_times.append(timed(lambda: dbt("run", "--select", " ".join(MODELS.values()), load_id=increment)))
        if k % args.every == 0 or k == args.syncs:
            print(f"  sync {k} (took {sync_times[-1]:.1f} s; load average {os.getloadavg()[0]:.1f})")
            for strategy, model in MODELS.items():
                show(f"{k} syncs", strategy, figures(spark, strategy, f"{BENCH}.{model}"))

    policy = {"keep_snapshots_for": None if fmt == "delta" else "0s", "remove_orphans_older_than": None}
    took = timed(lambda: [print("  " + describe(r)) for r in maintain(config, datasets=[BENCH], policy=policy)
                          if r["table"].split(".")[1] in MODELS.values()])
    one_sync = statistics.median(sync_times)
    print(f"  maintenance of {BENCH}: {took:.1f} s = {took / one_sync:.2f}x the median sync ({one_sync:.1f} s; goal < 2x)")
    after, fresh = {}, {}
    for strategy, model in MODELS.items():
        table = f"{BENCH}.{model}"
        spark.sql(f"create or replace table {BENCH}.fresh_{model} using {fmt} {MOR[fmt]} as select * from {table}")
        after[strategy], fresh[strategy] = compared(spark, strategy, [table, f"{BENCH}.fresh_{model}"])
        show("after maintenance", strategy, after[strategy])
        show("fresh copy", strategy, fresh[strategy])
    for strategy in MODELS:
        a, f = after[strategy], fresh[strategy]
        print(f"  {strategy}: scan {a['scan_s'] / f['scan_s']:.2f}x, MERGE {a['merge_s'] / f['merge_s']:.2f}x the fresh copy "
              f"(goal <= 1.2x); data files under 8 MiB other than the newest: {a['small_not_newest']} (goal 0)")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    formats.write(args.json, {**{strategy: {**after[strategy], "scan_x": after[strategy]["scan_s"] / fresh[strategy]["scan_s"],
                                            "merge_x": after[strategy]["merge_s"] / fresh[strategy]["merge_s"]}
                                 for strategy in MODELS},
                              "maintenance_s": took, "maintenance_x": took / one_sync, "sync_s": one_sync})


if __name__ == "__main__":
    main()
