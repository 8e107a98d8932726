"""dbt over each transport (not a test): wall time of a no-op `dbt run` and of a one-model `dbt run` over
Spark Connect (`method: connect`), the thrift server (`method: thrift`), the warm loop (`warm: true`) and
cold embedded (a JVM in the dbt process), each as a multiple of dbt-core's own floor, `dbt run --select`
of nothing (imports, parse, exit; no connection), all measured in this one run on one lakehouse.

    .venv/bin/python benchmarks/bench_connect.py [--reps 3] [--home DIR]

The project is benchmarks/loop_project (two sparkload models and a view), built once from one load:
  no-op       `dbt run`: no pending load, so both sparkload models are NO-OPs and the view is re-created
  one model   `dbt run --select customers --full-refresh`: the sparkload model rebuilt from its loads (a
              `create or replace ... as` of the merged loads and the ledger's update: real writes)
Every dbt call is a new process, as at a terminal; figures are medians of `--reps` runs. One server at a
time runs (started here, `python_extract.runtime`, and stopped before the next), so the transports do not
share the machine's two cores; the warm loop's first run starts its server and is not counted. Prints the
load average before and after: on a shared machine the absolute figures move with it, the ratios much less.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_dbt_loop as loop  # noqa: E402  (its dbt process probe, project and first load)

REPO = loop.REPO
RUNS = {"no-op": ("run",), "one model": ("run", "--select", "customers", "--full-refresh")}


def _profiles(work: Path, thrift_port: int, connect_port: int) -> Path:
    """loop_project's profiles (cold, warm) plus `thrift` and `connect` targets, in a folder of `work`."""
    profiles = yaml.safe_load((loop.PROJECT / "profiles.yml").read_text())
    outputs = profiles["bench_loop"]["outputs"]
    outputs["thrift"] = {"type": "sparkload", "method": "thrift", "host": "127.0.0.1", "port": thrift_port,
                         "schema": "loop", "threads": 1}
    outputs["connect"] = {"type": "sparkload", "method": "connect", "host": "127.0.0.1", "port": connect_port,
                          "schema": "loop", "threads": 1}
    folder = work / "profiles"
    folder.mkdir()
    (folder / "profiles.yml").write_text(yaml.safe_dump(profiles))
    return folder


def _measure(call, target: str, reps: int) -> dict:
    """{run: [wall seconds of each rep]} of both runs on `target`; each run must succeed as it should."""
    out = {}
    for name, args in RUNS.items():
        walls = []
        for _ in range(reps):
            done = call(*args, "--target", target)
            expected = "NO-OP" if name == "no-op" else "OK created sql sparkload model"
            assert expected in done["stdout"], done["stdout"][-2000:]
            walls.append(done["wall"])
        out[name] = walls
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--home", help="lakehouse directory (default: a new temporary one)")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    from python_extract.lakehouse import LakehouseConfig
    from python_extract.runtime.connect import start_connect_server
    from python_extract.runtime.processes import free_port
    from python_extract.runtime.serve import start_thrift_server
    from python_extract.runtime.warm import stop_server

    home = Path(args.home or tempfile.mkdtemp(prefix="sparkload-bench-connect-")).resolve()
    work = Path(tempfile.mkdtemp(prefix="sparkload-bench-connect-logs-"))
    load_before = loop._load()
    fmt = os.environ.get("SPARKLOAD_TABLE_FORMAT", "delta")
    print(f"transports benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}; lakehouse {home} ({fmt})", flush=True)
    thrift_port, connect_port = free_port(), free_port()
    call = loop.Call(home, work, _profiles(work, thrift_port, connect_port))
    config = LakehouseConfig.from_env(home=home)
    walls = {}
    try:
        subprocess.run([sys.executable, "-c", loop.LAND], env=call.env, check=True, capture_output=True)
        subprocess.run([str(loop.BIN / "dbt"), "deps", "--project-dir", str(loop.PROJECT), "--profiles-dir",
                        str(loop.PROJECT)], env=call.env, cwd=loop.PROJECT, check=True, capture_output=True)
        call("run", "--target", "cold")  # builds the tables from the load; later plain runs are no-ops
        floor = [call("run", "--target", "cold", "--select", "no_such_model")["wall"] for _ in range(args.reps)]
        walls["cold embedded"] = _measure(call, "cold", args.reps)
        with start_thrift_server(config, port=thrift_port):
            walls["thrift"] = _measure(call, "thrift", args.reps)
        with start_connect_server(config, port=connect_port):
            walls["connect"] = _measure(call, "connect", args.reps)
        first_warm = call("run", "--target", "warm")["wall"]
        walls["warm"] = _measure(call, "warm", args.reps)
    finally:
        stop_server(home)
        if not args.home:
            shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    n = loop._median(floor)
    print(f"load average before: {load_before}; after: {loop._load()}  (1 / 5 / 15 min)")
    print(f"dbt's floor, `dbt run --select` of nothing: {n:.2f} s (each: {', '.join(f'{w:.2f}' for w in floor)} s)")
    print(f"benchmarks/loop_project, median wall of {args.reps} and as a multiple of the floor:")
    print(f"  {'transport':16s}{'no-op':>10s}{'x floor':>9s}{'one model':>12s}{'x floor':>9s}")
    for transport, runs in walls.items():
        noop, one = loop._median(runs["no-op"]), loop._median(runs["one model"])
        print(f"  {transport:16s}{noop:8.2f} s{noop / n:8.2f}x{one:10.2f} s{one / n:8.2f}x")
    for transport, runs in walls.items():
        print(f"  each run, {transport}: " + "; ".join(f"{name} {', '.join(f'{w:.1f}' for w in ws)} s"
                                                     for name, ws in runs.items()))
    print(f"  first warm run (starts the warm server, not counted above): {first_warm:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
