"""The small commands (not a test): wall time of `sparkload pipeline info`, `pipeline loads`, `pipeline
expire --dry-run` and `lakehouse maintain --dry-run` on a small lakehouse, cold (no warm server: each starts
a JVM) against warm (the lakehouse's warm server runs: they answer over thrift), measured in the same run on
the same lakehouse, with warm ÷ cold. The goal is a warm answer under 3 s (issue 40 item 7).

    .venv/bin/python benchmarks/bench_small_commands.py [--reps 3] [--home DIR] [--format delta|iceberg]

The lakehouse gets one pipeline with two loads of two small tables and a third table of another load.
Every command is a new process, as at a terminal; figures are medians of `--reps` runs. Each command's
warm output is compared with its cold output (they must be the same). The warm server is started here
(`ensure_server`, as a dbt run with `warm: true` does) and stopped at the end. Prints the load average
before and after: on a shared machine the absolute figures move with it, the ratios much less.
"""
from __future__ import annotations

import argparse
import re
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL = 3.0
LAND = """
import python_extract as sl
from python_extract.lakehouse import LakehouseConfig
p = sl.pipeline(pipeline_name="small", dataset_name="small_raw", lakehouse=LakehouseConfig.from_env())
p.run([{"id": i, "name": f"customer {i}", "orders": [{"sku": f"A-{i}"}]} for i in range(50)], table_name="customers",
      write_disposition="merge", primary_key="id")
p.run([{"id": i, "name": f"customer {i}"} for i in range(10)], table_name="customers", write_disposition="merge", primary_key="id")
"""
COMMANDS = {
    "pipeline info": ["pipeline", "info", "small"],
    "pipeline loads": ["pipeline", "loads", "small"],
    "pipeline expire --dry-run": ["pipeline", "expire", "small", "--older-than", "1s", "--dry-run"],
    "lakehouse maintain --dry-run": ["lakehouse", "maintain", "--dry-run"],
}


def sparkload(env, *args: str) -> tuple:
    """(wall seconds, stdout) of one `sparkload` process."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "python_extract.cli", *args], env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"sparkload {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-800:]}")
    return elapsed, done.stdout


def measure(env, reps: int) -> dict:
    """{command: (median seconds, stdout of the last run, seconds of the first run)}."""
    out = {}
    for name, args in COMMANDS.items():
        times, text = [], ""
        for _ in range(reps):
            seconds, text = sparkload(env, *args)
            times.append(seconds)
        out[name] = (statistics.median(times), text, times[0])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--home", help="lakehouse directory (default: a new temporary one)")
    parser.add_argument("--format", choices=("delta", "iceberg"), default=os.environ.get("SPARKLOAD_TABLE_FORMAT", "delta"))
    args = parser.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="sparkload-small-")).resolve()
    env = {**os.environ, "SPARKLOAD_HOME": str(home), "SPARKLOAD_TABLE_FORMAT": args.format,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    print(f"lakehouse {home} ({args.format}); load average before {os.getloadavg()[0]:.2f}", flush=True)
    subprocess.run([sys.executable, "-c", LAND], env=env, check=True, capture_output=True)

    sys.path.insert(0, str(REPO))
    os.environ.update(SPARKLOAD_HOME=str(home), SPARKLOAD_TABLE_FORMAT=args.format)
    from python_extract.lakehouse import LakehouseConfig
    from python_extract.runtime.warm import WarmFiles, ensure_server, stop_server

    cold = measure(env, args.reps)
    started = time.monotonic()
    ensure_server(LakehouseConfig.from_env(), idle_timeout=600, say=lambda line: None)
    print(f"warm server started in {time.monotonic() - started:.1f} s (once per idle period)", flush=True)
    # a server warms up by itself once started (runtime/warm.py `_warm_up`): a command at a terminal comes
    # after that, as one after a dbt run does; the wait is printed, and a command sent during it pays it
    waited, log_file = time.monotonic(), WarmFiles(home).log
    while time.monotonic() - waited < 120 and not re.search(r"warmed up|warm-up skipped", log_file.read_text()):
        time.sleep(0.2)
    print(f"warm-up: {log_file.read_text().splitlines()[-1].split(': ', 1)[-1]} (waited {time.monotonic() - waited:.1f} s)",
          flush=True)
    try:
        warm = measure(env, args.reps)
    finally:
        stop_server(home)

    # the first warm run of each apart: maintain's pays the server's dbt's lazy start (its imports and parse)
    print(f"\n{'command':<30} {'cold s':>8} {'warm s':>8} {'warm/cold':>10}  same output  under {GOAL:.0f} s warm  "
          "first warm s")
    for name in COMMANDS:
        (c, cold_text, _), (w, warm_text, first) = cold[name], warm[name]
        print(f"{name:<30} {c:>8.2f} {w:>8.2f} {w / c:>10.2f}  {'yes' if cold_text == warm_text else 'NO':<11}  "
              f"{'yes' if w < GOAL else 'no':<15}  {first:.2f}")
    print(f"\nmedians of {args.reps} runs each; load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
