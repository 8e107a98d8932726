"""Partition benchmark (not a test): what the `partition` hint buys a large table's MERGE (issue 35 item 5).

Three tables of N rows each (ids 1..N, `day` one of DAYS days, newest ids on the newest days), in one
lakehouse, one format per run; an increment of 1% of N rows (0.5% updates of the newest keys, 0.5% new keys,
all on the newest days) is merged into each, the median of REPEATS increments applied one after another:

  unpartitioned          MERGE ... ON t.id = s.id                 (a table without the hint)
  partitioned, key only  MERGE ... ON t.id = s.id                 (partitioned by day; the key alone, as a
                                                                   model with primary_key='id' merges)
  partitioned, key+day   MERGE ... ON t.id = s.id AND t.day = s.day (the partition column in the key:
                                                                   primary_key=['id', 'day'])

Prints each time and the ratio partitioned ÷ unpartitioned, measured in the same run on the same data.

    .venv/bin/python benchmarks/bench_partition.py [--rows 200000] [--formats delta iceberg] [--home DIR]
"""
from __future__ import annotations

import argparse
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
from python_extract.lakehouse import LakehouseConfig, get_session  # noqa: E402

DAYS = 100
REPEATS = 3
SCHEMA = "bench_partition"
VARIANTS = {  # name -> (partitioned, merge condition)
    "unpartitioned": (False, "t.id = s.id"),
    "partitioned, key only": (True, "t.id = s.id"),
    "partitioned, key+day": (True, "t.id = s.id and t.day = s.day"),
}


def _table(name: str) -> str:
    return f"`{SCHEMA}`.`{''.join(c if c.isalnum() else '_' for c in name)}`"


def _build(spark, fmt: str, rows: int) -> None:
    spark.sql(f"create schema if not exists `{SCHEMA}`")
    spark.range(1, rows + 1).selectExpr(
        "id", f"date_add(date'2024-01-01', cast(floor((id - 1) * {DAYS} / {rows}) as int)) as day",
        "concat('name-', id) as name", "cast(id % 1000 as double) as amount").createOrReplaceTempView("bench_rows")
    for name, (partitioned, _) in VARIANTS.items():
        spark.sql(f"drop table if exists {_table(name)}")
        spark.sql(f"create table {_table(name)} using {fmt} {'partitioned by (day)' if partitioned else ''} "
                  "as select * from bench_rows")


def _increment(spark, rows: int, n: int) -> None:
    """1% of `rows`: half updates of the newest keys, half new keys after the current newest (increment `n`)."""
    half = max(rows // 200, 1)
    top = rows + n * half
    spark.range(top - 2 * half + 1, top + half + 1, 2).union(spark.range(top + 1, top + half + 1)).selectExpr(
        "id", f"date_add(date'2024-01-01', {DAYS - 1}) as day", f"concat('name-', id, '-v{n}') as name",
        "cast(id % 7 as double) as amount").createOrReplaceTempView("bench_increment")


def measure(fmt: str, rows: int, home: Path) -> dict:
    spark = get_session(LakehouseConfig.from_env(home=str(home), table_format=fmt))
    started = time.perf_counter()
    _build(spark, fmt, rows)
    print(f"[{fmt}] {rows:,} rows x {len(VARIANTS)} tables built in {time.perf_counter() - started:.1f} s", flush=True)
    times = {name: [] for name in VARIANTS}
    for n in range(1, REPEATS + 1):
        _increment(spark, rows, n)
        for name, (_, on) in VARIANTS.items():
            began = time.perf_counter()
            spark.sql(f"merge into {_table(name)} t using bench_increment s on {on} "
                      "when matched then update set * when not matched then insert *")
            times[name].append(time.perf_counter() - began)
    counts = {name: spark.table(_table(name)).count() for name in VARIANTS}
    assert len(set(counts.values())) == 1, f"the variants disagree: {counts}"  # the same change on each
    return {name: statistics.median(t) for name, t in times.items()}


def report(fmt: str, rows: int, figures: dict) -> None:
    base = figures["unpartitioned"]
    print(f"\n[{fmt}] MERGE of a 1% increment into {rows:,} rows ({DAYS} days), median of {REPEATS}:")
    for name, seconds in figures.items():
        print(f"  {name:<24}{seconds:>8.2f} s   ÷ unpartitioned {seconds / base:>5.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows of each table (default 200,000)")
    parser.add_argument("--home", help="lakehouse folder (default: a temporary one)")
    formats.add_arguments(parser)
    args = parser.parse_args(argv)
    print(f"{platform.machine()} {platform.system()}, Python {platform.python_version()}")
    if len(args.formats) > 1:
        figures = formats.run_each(__file__, args.formats, ["--rows", str(args.rows)], args.home)
        for fmt, found in figures.items():
            report(fmt, args.rows, found)
        return
    fmt = args.formats[0]
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(fmt, args.rows, Path(args.home or tmp))
    formats.write(args.json, figures)
    if not args.json:
        report(fmt, args.rows, figures)


if __name__ == "__main__":
    main()
