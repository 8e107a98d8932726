"""Late-arrival benchmark (not a test): the time bitemporal scd2 (strategy=scd2 with sequence_by) takes
to slot 1% late-arriving updates into a table of N rows, against the plain scd2 of the same package and
a dbt snapshot (timestamp strategy, unique_key id), all on the same loads in the same run:

    .venv/bin/python benchmarks/bench_late.py [--rows 1000000 5000000] [--home DIR]

Loads: load 0 holds N keys dated 2024-01-01; load 1 (the setup) brings a newer version, dated
2024-02-01, of 1% of the keys (one every 100th); each timed increment k then brings an update of those
same keys dated 2024-01-15 + k hours: late, older than their current version, so bitemporal scd2 slots
it between their two versions and re-closes both neighbours. Plain scd2 adds it as a new current
version at the load's time (history in load order), and the snapshot skips it (its rows are older
than the snapshot's versions): both do the cheaper, wrong thing, which is the baseline to beat. Each
figure is the median of three increments; a figure is the model's execution time in dbt's run results
(the whole materialization, dbt's start-up and parsing excluded). Prints the ratios bitemporal ÷ plain
scd2 (goal <= 1.5) and bitemporal ÷ snapshot, then checks the bitemporal table's history.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "benchmarks" / "late_project"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_merge import drop_schema, load_id, versions  # noqa: E402  (the same helpers as the merge benchmark)
from python_extract.lakehouse import LakehouseConfig, get_session, session_format  # noqa: E402

RAW, BENCH = "bench_late_raw", "bench_late"
MODELS = ("bench_bitemporal", "bench_scd2_plain")
SNAPSHOT = "bench_late_snapshot"
REPEATS = 3


def dbt(*args: str, load: str) -> dict:
    """dbt in this process on the benchmark session: {node name: execution seconds}."""
    from dbt.cli.main import dbtRunner

    cli = [*args, "--quiet", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT),
           "--vars", f"{{raw: {RAW}, load_id: '{load}'}}"]
    result = dbtRunner().invoke(cli)
    if not result.success:
        raise SystemExit(f"dbt {' '.join(args)} failed: {result.exception}")
    return {r.node.name: r.execution_time for r in result.result.results}


def land(spark, load: str, ids_sql: str, updated_at_sql: str, name: str) -> None:
    """One load as the extractor lands it: rows first, its `_dlt_loads` row last."""
    spark.sql(f"insert into {RAW}.items select id, concat('{name}', id), id * 1.5, {updated_at_sql}, '{load}', uuid() "
              f"from ({ids_sql})")
    spark.sql(f"insert into {RAW}._dlt_loads values ('{load}', 'bench', 0, current_timestamp(), 'h')")


def run_size(spark, n: int) -> dict:
    drop_schema(spark, BENCH)
    drop_schema(spark, RAW)
    spark.sql(f"create schema {RAW}")
    fmt = session_format(spark)
    spark.sql(f"create table {RAW}.items (id bigint, name string, amount double, updated_at timestamp, "
              f"_dlt_load_id string, _dlt_id string) using {fmt}")
    spark.sql(f"create table {RAW}._dlt_loads (load_id string, schema_name string, status bigint, "
              f"inserted_at timestamp, schema_version_hash string) using {fmt}")
    late_keys = f"select id from range(0, {n}, 100)"
    t0 = time.perf_counter()
    for k, (ids, at, name) in enumerate([(f"select id from range({n})", "timestamp'2024-01-01 00:00:00'", "v0_"),
                                         (late_keys, "timestamp'2024-02-01 00:00:00'", "v2_")]):
        land(spark, load_id(k), ids, at, name)
        dbt("run", "--select", *MODELS, load=load_id(k))
        dbt("snapshot", load=load_id(k))
    print(f"  initial load of {n:,} rows and the setup update of {n // 100:,} keys: {time.perf_counter() - t0:.1f} s")
    runs = {m: [] for m in (*MODELS, SNAPSHOT)}
    for k in range(2, 2 + REPEATS):
        land(spark, load_id(k), late_keys, f"timestamp'2024-01-15 00:00:00' + make_interval(0, 0, 0, 0, {k}, 0, 0)", f"late{k}_")
        for model in MODELS:
            runs[model].append(dbt("run", "--select", model, load=load_id(k))[model])
        runs[SNAPSHOT].append(dbt("snapshot", load=load_id(k))[SNAPSHOT])
    check(spark, n)
    return {m: sorted(t)[len(t) // 2] for m, t in runs.items()}


def check(spark, n: int) -> None:
    """The bitemporal table holds the history the loads say, so its timing is of correct work: each late
    key has its January version, the REPEATS late ones in sequence order and the February one current."""
    count = lambda sql: spark.sql(sql).first()[0]  # noqa: E731
    table = f"{BENCH}.bench_bitemporal"
    late = (n + 99) // 100
    assert count(f"select count(*) from {table}") == n + late * (1 + REPEATS)
    assert count(f"select count(*) from {table} where _dlt_valid_to is null") == n
    # every version but the current one ends where the next one of its key starts
    assert count(f"""select count(*) from (select _dlt_valid_to, lead(_dlt_valid_from) over (partition by id order by _dlt_valid_from) nxt
                     from {table}) where not (_dlt_valid_to <=> nxt)""") == 0
    assert count(f"select count(*) from {table} where id = 0 and _dlt_valid_to = timestamp'2024-02-01 00:00:00'") == 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 5_000_000],
                        help="table sizes (default: 1M and 5M); --rows 20000 to try the script")
    parser.add_argument("--home", help="lakehouse directory (default: a temporary one)")
    args = parser.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="bench_late_"))
    os.environ["SPARKLOAD_HOME"] = str(home)
    spark = get_session(LakehouseConfig.from_env(home=home, spark_conf={"spark.driver.memory": "8g"}))
    from dbt.cli.main import dbtRunner

    dbtRunner().invoke(["deps", "--quiet", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {platform.platform()}")
    print(f"versions: {versions()}; table format {session_format(spark)} (merge-on-read)")
    print(f"  {'N':>10}{'bitemporal s':>14}{'plain scd2 s':>14}{'snapshot s':>12}{'÷ plain':>9}{'÷ snapshot':>12}")
    for n in args.rows:
        f = run_size(spark, n)
        ours, plain, snap = f["bench_bitemporal"], f["bench_scd2_plain"], f[SNAPSHOT]
        print(f"  {n:>10,}{ours:>14.2f}{plain:>14.2f}{snap:>12.2f}{ours / plain:>9.2f}{ours / snap:>12.2f}"
              f"   (load average {os.getloadavg()[0]:.1f})")
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
