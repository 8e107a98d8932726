"""Merge benchmark (not a test): the time each sparkload strategy takes to apply a 1% increment to a
table of N rows, against two baselines measured in the same run on the same data:

  floor    a hand-written single MERGE INTO doing the same change on a copy of the same table:
           for delete-insert and upsert `MERGE ... ON t.id = s.id WHEN MATCHED THEN UPDATE SET *
           WHEN NOT MATCHED THEN INSERT *`; for scd2 the textbook SCD2 MERGE (the increment unioned
           with a NULL-keyed copy of its changed rows)
  dbt      dbt-spark's built-in incremental `merge` (delete-insert, upsert) or a dbt `snapshot`
           (strategy check, unique_key id) over the same load (scd2)

    .venv/bin/python benchmarks/bench_merge.py [--rows 1000000 5000000 [25000000]]
        [--distribution newest|uniform|both] [--formats delta iceberg] [--home DIR]

Each table format runs in a process of its own (one lakehouse per process), one after the other; with
both (the default), a last table prints each figure on Delta ÷ the same figure on Iceberg.

An increment is one load of 1% of N rows: 0.5% updates, 0.5% new keys. The updates hit either the
newest 1% of keys (`newest`: every other one, which favours pruning by key range) or keys spread
uniformly over the whole key range (`uniform`: every 200th key, so the batch's key bounds span the
table); `both` (the default) applies the newest increments, then the uniform ones, to the same tables.
Each figure is the median of three increments applied one after another. A sparkload or dbt figure is
the model's execution time in dbt's run results (the whole materialization: metadata queries, batch
statistics, the MERGE, the ledger), dbt's start-up and parsing excluded; the MERGE alone is shown beside
it, with the statements dbt sent for the model and the Spark jobs its invocation ran (the fixed cost
per model run). Prints the machine, the versions, the ratios and, over several sizes, the growth curve.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "benchmarks" / "merge_project"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import formats  # noqa: E402
from python_extract.lakehouse import LakehouseConfig, get_session, session_format  # noqa: E402

RAW, BENCH = "bench_raw", "bench"
# the floor's table properties: those sparkload gives its targets (macros/helpers/formats.sql), row-level
# changes as delete files (Iceberg) or deletion vectors (Delta)
MOR = {"iceberg": ("tblproperties ('format-version' = '2', 'write.merge.mode' = 'merge-on-read', "
                   "'write.update.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read')"),
       "delta": "tblproperties ('delta.enableDeletionVectors' = 'true')"}
DATA = ["name", "amount", "category", "updated_at"]
SPARKLOAD = {"delete-insert": "bench_delete_insert", "upsert": "bench_upsert", "scd2": "bench_scd2"}
REPEATS = 3
DISTRIBUTIONS = ("newest", "uniform")


class Dbt:
    """dbt in this process on the benchmark session; returns {model: Run}. The Spark jobs are those of
    the whole invocation (dbt's own relation listing runs none), so invoke it on one model to count."""

    def __init__(self, spark):
        self.tracker = spark.sparkContext.statusTracker()
        self.format = session_format(spark)

    def last_job(self) -> int:
        return max(self.tracker.getJobIdsForGroup(None) or [-1])

    def __call__(self, *args: str, load_id: str):
        from dbt.cli.main import dbtRunner

        events, first_job, jobs_at = [], self.last_job(), {}

        def on_event(e) -> None:  # the Spark jobs run so far, noted as each statement is sent
            events.append(e)
            if e.info.name in ("SQLQuery", "NodeFinished"):
                jobs_at[id(e)] = self.last_job()

        cli = [*args, "--quiet", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT),
               "--vars", f"{{raw: {RAW}, load_id: '{load_id}', format: {self.format}}}"]
        result = dbtRunner(callbacks=[on_event]).invoke(cli)
        if not result.success:
            raise SystemExit(f"dbt {' '.join(args)} failed: {result.exception}")
        jobs = self.last_job() - first_job
        merges, last_sql, sent, finished = {}, {}, {}, {}
        for e in events:
            node = getattr(e.data, "node_info", None)
            name = node.node_name if node else None
            if e.info.name == "SQLQuery" and name:
                last_sql[name] = e.data.sql
                sent.setdefault(name, []).append((_seconds(e), jobs_at[id(e)], _first_words(e.data.sql)))
            elif e.info.name == "SQLQueryStatus" and name and _is_change(last_sql.get(name, "")):
                merges[name] = merges.get(name, 0.0) + float(str(e.data.elapsed))
            elif e.info.name == "NodeFinished" and name:
                finished[name] = (_seconds(e), jobs_at[id(e)])
        return {r.node.name: Run(r.execution_time, merges.get(r.node.name, 0.0),
                                 _durations(sent.get(r.node.name, []), finished.get(r.node.name)), jobs)
                for r in result.result.results}


def _seconds(event) -> float:
    return event.info.ts.seconds + event.info.ts.nanos / 1e9


def _durations(sent, end) -> tuple:
    """(seconds, Spark jobs, first words) of each statement: from sending it to sending the next one
    (its results fetched, the macros rendering the next), the last one to the end of the model."""
    if not sent:
        return ()
    stops = [(t, j) for t, j, _ in sent[1:]] + [end or sent[-1][:2]]
    return tuple((stop - start, later - jobs, sql) for (start, jobs, sql), (stop, later) in zip(sent, stops))


@dataclass(frozen=True)
class Run:
    seconds: float
    merge: float = 0.0
    statements: tuple = ()  # (seconds, Spark jobs, first words) of each statement dbt sent for the model
    jobs: int = 0


def _first_words(sql: str, width: int = 90) -> str:
    return " ".join(sql.split("*/", 1)[-1].split())[:width]


def _is_change(sql: str) -> bool:
    body = sql.split("*/", 1)[-1].lstrip().lower()
    return body.startswith(("merge into", "create or replace")) and "_dlt_loads" not in body.split("using", 1)[0]


def timed(spark, sql: str) -> float:
    start = time.perf_counter()
    spark.sql(sql).collect()
    return time.perf_counter() - start


def land(spark, load_id: str, select: str) -> None:
    """One load as the extractor lands it: rows first, its `_dlt_loads` row last."""
    spark.sql(f"insert into {RAW}.items {select}")
    spark.sql(f"insert into {RAW}._dlt_loads values ('{load_id}', 'bench', 0, current_timestamp(), 'h')")


def rows_sql(ids: str, name: str, load_id: str) -> str:
    return (f"select id, concat('{name}', id), id * 1.5, cast(id % 100 as string), "
            f"timestamp'2024-01-01' + make_interval(0, 0, 0, 0, 0, 0, id), '{load_id}', uuid() from ({ids})")


def floor_sql(strategy: str, table: str, load_id: str) -> str:
    inc = f"(select * from {RAW}.items where _dlt_load_id = '{load_id}')"
    if strategy != "scd2":
        return (f"merge into {table} t using {inc} s on t.id = s.id "
                "when matched then update set * when not matched then insert *")
    same = " and ".join(f"t.{c} <=> s.{c}" for c in DATA)
    cols = "id, " + ", ".join(DATA) + ", _dlt_load_id, _dlt_id"
    return (f"merge into {table} t using ("
            f"select s.id as merge_key, s.* from {inc} s union all "
            f"select null as merge_key, s.* from {inc} s join {table} t on t.id = s.id and t._dlt_valid_to is null "
            f"where not ({same})) s "
            f"on t.id = s.merge_key and t._dlt_valid_to is null "
            f"when matched and not ({same}) then update set _dlt_valid_to = current_timestamp() "
            f"when not matched then insert ({cols}, _dlt_valid_from, _dlt_valid_to) "
            f"values ({', '.join('s.' + c for c in cols.split(', '))}, current_timestamp(), null)")


def drop_schema(spark, schema: str) -> None:
    """Iceberg's JDBC catalog drops only empty namespaces (no CASCADE)."""
    if spark.catalog.databaseExists(schema):
        for t in spark.sql(f"show tables in {schema}").collect():
            spark.sql(f"drop table {schema}.{t['tableName']}")
        spark.sql(f"drop schema {schema}")


def run_size(spark, dbt: Dbt, n: int, distributions) -> dict:
    """Every figure of one table size, per distribution: the median of REPEATS increments, each one
    new load, all applied to the same tables in turn."""
    drop_schema(spark, BENCH)
    drop_schema(spark, RAW)
    spark.sql(f"create schema {RAW}")
    fmt = session_format(spark)
    spark.sql(f"create table {RAW}.items (id bigint, name string, amount double, category string, updated_at timestamp, "
              f"_dlt_load_id string, _dlt_id string) using {fmt}")
    spark.sql(f"create table {RAW}._dlt_loads (load_id string, schema_name string, status bigint, "
              f"inserted_at timestamp, schema_version_hash string) using {fmt}")
    first = load_id(0)
    land(spark, first, rows_sql(f"select id from range({n})", "name", first))
    t0 = time.perf_counter()
    initial = dbt("run", "--select", " ".join(SPARKLOAD.values()) + " bench_dbt_merge", load_id=first)
    initial.update(dbt("snapshot", load_id=first))
    print(f"  initial load of {n:,} rows into 5 tables: {time.perf_counter() - t0:.1f} s (" + ", ".join(
        f"{m} {r.seconds:.1f} s" for m, r in sorted(initial.items())) + ")")
    for model in SPARKLOAD.values():
        spark.sql(f"create table {BENCH}.floor_{model} using {fmt} {MOR[fmt]} as select * from {BENCH}.{model}")

    step, k, results = n // 100, 0, {}
    for distribution in distributions:
        runs = {s: {"floor": [], "sparkload": [], "dbt": []} for s in SPARKLOAD}
        for _ in range(REPEATS):
            k += 1
            top = n + (k - 1) * (step // 2)  # the table's keys are 0 .. top - 1
            increment = load_id(k)
            land(spark, increment, rows_sql(f"{updated_ids(distribution, top, step // 2, k)} union all "
                                            f"select id from range({top}, {top + step // 2})", f"upd{k}_", increment))
            for strategy, model in SPARKLOAD.items():
                runs[strategy]["floor"].append(Run(timed(spark, floor_sql(strategy, f"{BENCH}.floor_{model}", increment))))
                runs[strategy]["sparkload"].append(dbt("run", "--select", model, load_id=increment)[model])
            merge = dbt("run", "--select", "bench_dbt_merge", load_id=increment)["bench_dbt_merge"]
            runs["delete-insert"]["dbt"].append(merge)
            runs["upsert"]["dbt"].append(merge)
            runs["scd2"]["dbt"].append(dbt("snapshot", load_id=increment)["bench_snapshot"])
        results[distribution] = {s: {kind: sorted(times, key=lambda r: r.seconds)[len(times) // 2] for kind, times in r.items()}
                                 for s, r in runs.items()}
    check(spark, n, step, k)
    return results


def updated_ids(distribution: str, top: int, count: int, k: int) -> str:
    """The `count` existing keys increment k updates, of the keys 0 .. top - 1: every other one of the
    newest 2 * count, or one every top // count keys over the whole range (offset by k, so each
    increment updates other keys)."""
    if distribution == "newest":
        return f"select id from range({top - 2 * count}, {top}, 2)"
    stride = top // count
    return f"select id from range({k % stride}, {k % stride + count * stride}, {stride})"


def load_id(k: int) -> str:
    return f"1700000000.{k + 1:06d}"


def check(spark, n: int, step: int, increments: int) -> None:
    """The tables hold what the increments say, so the timings are of correct work."""
    count = lambda sql: spark.sql(sql).first()[0]  # noqa: E731
    new, newest = increments * (step // 2), load_id(increments)
    for model in ("bench_delete_insert", "bench_upsert", "floor_bench_upsert", "bench_dbt_merge"):
        assert count(f"select count(*) from {BENCH}.{model}") == n + new, model
        assert count(f"select count(*) from {BENCH}.{model} where _dlt_load_id = '{newest}'") == step, model
    for model in ("bench_scd2", "floor_bench_scd2"):
        assert count(f"select count(*) from {BENCH}.{model}") == n + increments * step, model
        assert count(f"select count(*) from {BENCH}.{model} where _dlt_valid_to is null") == n + new, model
    assert count(f"select count(*) from {BENCH}.bench_snapshot where dbt_valid_to is null") == n + new


def versions() -> str:
    import dbt.adapters.spark.__version__ as spark_v
    import dbt.version
    import pyspark

    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    return f"dbt-core {dbt.version.__version__}, dbt-spark {spark_v.version}, pyspark {pyspark.__version__}, {java}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 5_000_000],
                        help="table sizes, e.g. 1000000 5000000 25000000 (default: 1M and 5M)")
    parser.add_argument("--distribution", choices=[*DISTRIBUTIONS, "both"], default="both",
                        help="which keys the updates hit: the newest 1%%, keys spread uniformly, or both (default)")
    parser.add_argument("--home", help="lakehouse directory (default: a temporary one per format)")
    parser.add_argument("--statements", action="store_true",
                        help="also list each statement of the sparkload model runs shown, with its seconds")
    formats.add_arguments(parser)
    args = parser.parse_args()
    distributions = DISTRIBUTIONS if args.distribution == "both" else (args.distribution,)
    if len(args.formats) > 1:
        argv = ["--distribution", args.distribution, "--rows", *map(str, args.rows)] + (["--statements"] if args.statements else [])
        figures = formats.run_each(__file__, args.formats, argv, args.home)
        compare_formats(figures, args.rows, distributions)
        return
    fmt = args.formats[0]
    home = Path(args.home or tempfile.mkdtemp(prefix=f"bench_merge_{fmt}_"))
    os.environ["SPARKLOAD_HOME"] = str(home)
    spark = get_session(LakehouseConfig.from_env(home=home, table_format=fmt, spark_conf={"spark.driver.memory": "8g"}))
    dbt = Dbt(spark)
    from dbt.cli.main import dbtRunner

    dbtRunner().invoke(["deps", "--quiet", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, "
          f"load average {os.getloadavg()[0]:.1f}; {platform.platform()}")
    print(f"versions: {versions()}; table format {session_format(spark)} (row-level changes as delete files / deletion vectors)")
    results = {}
    for n in args.rows:
        print(f"N = {n:,}, increment {n // 100:,} rows (load average {os.getloadavg()[0]:.1f})")
        results[n] = run_size(spark, dbt, n, distributions)
        for distribution in distributions:
            print(f"  updates: {distribution} keys")
            print(f"  {'strategy':<14}{'sparkload s':>12}{'(MERGE s)':>11}{'stmts':>6}{'jobs':>5}{'floor s':>9}{'dbt s':>8}"
                  f"{'÷ floor':>9}{'÷ dbt':>8}")
            for strategy, f in results[n][distribution].items():
                ours, floor, theirs = f["sparkload"], f["floor"].seconds, f["dbt"].seconds
                print(f"  {strategy:<14}{ours.seconds:>12.2f}{ours.merge:>11.2f}{len(ours.statements):>6}{ours.jobs:>5}{floor:>9.2f}"
                      f"{theirs:>8.2f}{ours.seconds / floor:>9.2f}{ours.seconds / theirs:>8.2f}")
            for strategy, f in results[n][distribution].items() if args.statements else ():
                print(f"    {strategy}: " + "".join(f"\n      {t:6.3f} s {j:>2} jobs  {sql}" for t, j, sql in f["sparkload"].statements))
    if len(args.rows) > 1:
        growth(args.rows, distributions, results)
    formats.write(args.json, {str(n): {d: {s: {kind: run.seconds for kind, run in f.items()} for s, f in by.items()}
                                       for d, by in r.items()} for n, r in results.items()})
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)


def compare_formats(figures, sizes, distributions) -> None:
    """Each format's seconds side by side, its ratio to its own floor, and Delta ÷ Iceberg."""
    print("\nformats side by side: seconds per 1% increment (÷ its own floor), then Delta ÷ Iceberg")
    print(f"  {'N':>10} {'keys':<8}{'strategy':<14}{'kind':<10}{'delta s':>9}{'÷ floor':>8}{'iceberg s':>10}{'÷ floor':>8}{'D ÷ I':>7}")
    for n in sizes:
        for distribution in distributions:
            for strategy in SPARKLOAD:
                for kind in ("sparkload", "floor", "dbt"):
                    d, i = (figures[f][str(n)][distribution][strategy] for f in ("delta", "iceberg"))
                    print(f"  {n:>10,} {distribution:<8}{strategy:<14}{kind:<10}{d[kind]:>9.2f}{d[kind] / d['floor']:>8.2f}"
                          f"{i[kind]:>10.2f}{i[kind] / i['floor']:>8.2f}{d[kind] / i[kind]:>7.2f}")


def growth(sizes, distributions, results) -> None:
    """Seconds per 1% increment at each size, and ÷ the smallest size: sparkload, then its floor."""
    label = lambda n: f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n:,}"  # noqa: E731
    print("growth: seconds per 1% increment at " + " / ".join(label(n) for n in sizes)
          + f", then ÷ {label(sizes[0])}")
    for distribution in distributions:
        for strategy in SPARKLOAD:
            for kind in ("sparkload", "floor"):
                secs = [results[n][distribution][strategy][kind].seconds for n in sizes]
                print(f"  {distribution:<8}{strategy:<14}{kind:<10}" + " / ".join(f"{t:.2f}" for t in secs)
                      + "   ×" + " / ".join(f"{t / secs[0]:.1f}" for t in secs))


if __name__ == "__main__":
    main()
