"""`dbt seed` of one large CSV: the sparkload adapter (one DataFrame) against dbt-spark's own seed path
(`insert ... values` statements of SQL literals, what `method: embedded` did before), in one process on
one SparkSession, so the ratio is measured in the same run.

    .venv/bin/python benchmarks/bench_seed.py            # 100,000 rows
    .venv/bin/python benchmarks/bench_seed.py --rows 20000

The CSV holds ids, text with unicode and backslashes, decimals, dates, timestamps, booleans and blank
cells; no `'`, which dbt-spark's session path cannot load at all. Both runs must leave the same number
of rows. Not a test: figures on a shared machine are noisy, so prefer the ratio.
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECT = "name: bench_seed\nversion: '1.0'\nconfig-version: 2\nprofile: bench_seed\n"
PROFILES = """bench_seed:
  target: sparkload
  outputs:
    sparkload:
      type: sparkload
      method: embedded
      lakehouse_dir: {home}
      schema: bench_seed_sparkload
      threads: 1
    dbt_spark:
      type: spark
      method: session
      host: NA
      schema: bench_seed_dbt_spark
      threads: 1
"""


def write_csv(path: Path, rows: int) -> None:
    start = dt.datetime(2024, 1, 1)
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["id", "name", "note", "amount", "day", "at", "flag"])
        for i in range(rows):
            at = start + dt.timedelta(minutes=i)
            out.writerow([i, f"customer {i} Ærø 東京", "" if i % 7 == 0 else f"back\\slash {i % 13}",
                          f"{(i % 10000) / 100:.2f}", at.date().isoformat(), at.isoformat(sep=" "),
                          "true" if i % 2 else "false"])


def seed(project: Path, target: str) -> float:
    from dbt.cli.main import dbtRunner

    started = time.perf_counter()
    result = dbtRunner().invoke(["seed", "--project-dir", str(project), "--profiles-dir", str(project),
                                 "--target", target, "--full-refresh"])
    elapsed = time.perf_counter() - started
    if not result.success:
        sys.exit(f"dbt seed --target {target} failed: {result.exception}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=1, help="runs per path (the median is printed)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-seed-"))
    project = work / "project"
    (project / "seeds").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(PROJECT)
    (project / "profiles.yml").write_text(PROFILES.format(home=work / "lake"))
    write_csv(project / "seeds" / "big.csv", args.rows)
    os.environ["SPARKLOAD_HOME"] = str(work / "lake")

    from python_extract.lakehouse.config import LakehouseConfig
    from python_extract.lakehouse.session import get_session

    spark = get_session(LakehouseConfig.from_env(home=work / "lake", table_format="iceberg"))
    seed(project, "sparkload")  # warm-up: JIT, catalog, dbt's parse of the project
    figures = {}
    for target in ("sparkload", "dbt_spark"):
        figures[target] = statistics.median(seed(project, target) for _ in range(args.repeat))
    counts = {t: spark.sql(f"select count(*) from bench_seed_{t}.big").collect()[0][0] for t in figures}
    if set(counts.values()) != {args.rows}:
        sys.exit(f"row counts differ: {counts}")

    print(f"dbt seed of {args.rows:,} rows x 7 columns (median of {args.repeat}):")
    for target, label in (("sparkload", "sparkload adapter (DataFrame)"), ("dbt_spark", "dbt-spark (SQL literals)")):
        print(f"  {label:32s} {figures[target]:8.1f} s  {args.rows / figures[target]:10,.0f} rows/s")
    print(f"  ratio dbt-spark / sparkload      {figures['dbt_spark'] / figures['sparkload']:8.1f}x")


if __name__ == "__main__":
    main()
