"""The dbt edit-run loop (not a test): wall time of a no-op `dbt run` of a small project, cold (method
embedded: a JVM starts in the dbt process) against warm (`warm: true`: the lakehouse's warm server) and
connect (`method: connect` on `sparkload lakehouse serve --connect`, started here: no JVM in dbt),
measured in the same run on the same lakehouse, each also as a ratio to dbt-core's own floor: `dbt run
--select` of nothing (parse and exit). Cold
runs alternate between a JVM with the class archive `sparkload lakehouse setup` trains (trained first
if missing) and one without it (`-Xshare:auto` in SPARK_SUBMIT_OPTS: the JVM's own class sharing).

    .venv/bin/python benchmarks/bench_dbt_loop.py [--reps 3] [--home DIR] [--profile]

The project (benchmarks/loop_project: two sparkload models and a view) is built once from one load;
each measured `dbt run` then finds no pending load (the sparkload models are NO-OPs, the view is
re-created). Every dbt call is a new process, as at a terminal. Figures are medians of `--reps` runs:

  wall                  from launch to exit of the `dbt` command
  launch->first query   from launch to dbt's first answered statement (its json log file)
  version->first query  from dbt's `Running with dbt=` line (imports done: what `dbt --version`
                        shows) to its first answered statement: connection, lakehouse, first query
  first warm run        the warm run that starts the server (once per idle period)
  floor                 `dbt run --select` of no model: dbt's imports, the project's parse, no connection
  `dbt --help`          the floor of any dbt call here (python, dbt's imports); `dbt --version`
                        is shown too, but it asks PyPI for newer versions (1 s timeout per package)

`--profile` adds where a warm no-op run's time goes: the slowest imports (`python -X importtime`) and
dbt's own phases (its log's timestamps). Prints the load average before and after: on a shared machine
the absolute figures move with it, the ratios much less.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "benchmarks" / "loop_project"
BIN = Path(sys.executable).parent
GOAL = 3.0
LAND = """
import sys, python_extract as sl
from python_extract.lakehouse import LakehouseConfig
p = sl.pipeline(pipeline_name="loop_raw", dataset_name="loop_raw", lakehouse=LakehouseConfig.from_env())
p.run([{"id": i, "name": f"customer {i}", "city": "Oslo"} for i in range(100)], table_name="customers",
      write_disposition="merge", primary_key="id")
p.run([{"order_id": i, "customer_id": i % 100, "amount": i * 1.5} for i in range(1000)], table_name="orders",
      write_disposition="merge", primary_key="order_id")
"""


class Call:
    """One dbt process: wall seconds, and seconds from launch to its first answered statement."""

    def __init__(self, home: Path, work: Path, profiles: Path = PROJECT):
        self.env = {**os.environ, "SPARKLOAD_HOME": str(home)}
        self.work = work
        self.profiles = profiles
        self.count = 0

    def __call__(self, *args: str, prefix=(), env=None) -> dict:
        self.count += 1
        logs = self.work / f"logs-{self.count}"
        cli = [*prefix, str(BIN / "dbt"), *args]
        if not args[0].startswith("--"):
            cli += ["--project-dir", str(PROJECT), "--profiles-dir", str(self.profiles), "--log-path", str(logs),
                    "--log-format-file", "json", "--log-level-file", "debug"]
        launched, t0 = time.time(), time.perf_counter()
        done = subprocess.run(cli, env={**self.env, **(env or {})}, cwd=PROJECT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cli)} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        events = _events(logs / "dbt.log")
        marks = {name: _first(events, name) for name in ("MainReportVersion", "SQLQueryStatus")}
        started = marks["MainReportVersion"] - launched if marks["MainReportVersion"] else None
        first = marks["SQLQueryStatus"] - launched if marks["SQLQueryStatus"] else None
        return {"wall": wall, "started": started, "first_query": first,
                "version_to_query": first - started if first is not None and started is not None else None,
                "events": events, "stdout": done.stdout, "stderr": done.stderr}


def _events(path: Path) -> list:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


def _first(events: list, name: str):
    found = [e for e in events if e["info"]["name"] == name]
    return _ts(found[0]) if found else None


def _ts(event: dict) -> float:
    return dt.datetime.fromisoformat(event["info"]["ts"].replace("Z", "+00:00")).timestamp()


def _median(values) -> float:
    return statistics.median(v for v in values if v is not None)


def _load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def _phases(events: list, launched_at: float) -> list:
    """dbt's phases of one run from its log: (what, seconds since launch when it began)."""
    marks = {"MainReportVersion": "dbt started (imports done)", "FoundStats": "project parsed",
             "ConcurrencyLine": "run starts", "NewConnection": "first connection asked",
             "SQLQueryStatus": "first statement answered", "LogModelResult": "first model done",
             "FinishedRunningStats": "run finished"}
    seen, out = set(), []
    for e in events:
        name = e["info"]["name"]
        if name in marks and name not in seen:
            seen.add(name)
            out.append((marks[name], _ts(e) - launched_at))
    return out


def _statements(events: list) -> list:
    """(model, SQL, seconds) of each statement of a run, from its SQLQuery and SQLQueryStatus events."""
    out, sent = [], None
    for e in events:
        name = e["info"]["name"]
        if name == "SQLQuery":
            sent = ((e["data"].get("node_info") or {}).get("node_name"), e["data"].get("sql", ""))
        elif name == "SQLQueryStatus" and sent:
            out.append((*sent, float(e["data"].get("elapsed", 0))))
            sent = None
    return out


def _profile(call: Call) -> None:
    print("\nwhere a warm no-op `dbt run` spends its time")
    launched = time.time()
    run = call("run", "--target", "warm")
    for what, at in _phases(run["events"], launched):
        print(f"  {at:6.2f} s  {what}")
    print(f"  {run['wall']:6.2f} s  exit")
    statements = _statements(run["events"])
    print(f"  statements: {len(statements)}, {sum(s for _, _, s in statements):.2f} s answering them:")
    for node, sql, seconds in statements:
        text = " ".join(re.sub(r"/\*.*?\*/", "", sql, flags=re.S).split())  # without dbt's query comment
        print(f"    {seconds:5.2f} s  {node or '(no model)':<16} {text[:90]}")
    timed = call("run", "--target", "warm", prefix=(sys.executable, "-X", "importtime"))
    imports = []
    for line in timed["stderr"].splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            imports.append((int(m.group(2)), len(m.group(3)), m.group(4)))
    total = sum(us for us, depth, _ in imports if depth == 1)
    print(f"  imports (python -X importtime, cumulative; all top-level: {total / 1e6:.2f} s of a "
          f"{timed['wall']:.2f} s run, the flag itself adds overhead):")
    for us, depth, name in sorted((i for i in imports if i[1] <= 2), reverse=True)[:12]:
        print(f"    {us / 1e6:6.2f} s  {name}")
    loaded = {name.split(".")[0] for _, _, name in imports}
    print(f"  pyspark imported: {'yes' if 'pyspark' in loaded else 'no'}; python_extract modules: "
          f"{sorted(n for _, _, n in imports if n.startswith('python_extract'))}")


def _profiles_with_connect(work: Path, port: int) -> Path:
    """loop_project's profiles plus a `connect` target on `port`, in a folder of `work`."""
    import yaml

    profiles = yaml.safe_load((PROJECT / "profiles.yml").read_text())
    profiles["bench_loop"]["outputs"]["connect"] = {"type": "sparkload", "method": "connect", "host": "127.0.0.1",
                                                    "port": port, "schema": "loop", "threads": 1}
    folder = work / "profiles"
    folder.mkdir()
    (folder / "profiles.yml").write_text(yaml.safe_dump(profiles))
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--home", help="lakehouse directory (default: a new temporary one)")
    parser.add_argument("--profile", action="store_true", help="also show where a warm run's time goes")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    from python_extract.lakehouse import LakehouseConfig
    from python_extract.runtime import archive_training
    from python_extract.runtime.connect import start_connect_server
    from python_extract.runtime.processes import free_port
    from python_extract.runtime.warm import stop_server

    home = Path(args.home or tempfile.mkdtemp(prefix="sparkload-bench-loop-")).resolve()
    work = Path(tempfile.mkdtemp(prefix="sparkload-bench-loop-logs-"))
    load_before = _load()
    print(f"dbt loop benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}; lakehouse {home}")
    port = free_port()
    call = Call(home, work, _profiles_with_connect(work, port))
    try:
        subprocess.run([sys.executable, "-c", LAND], env=call.env, check=True, capture_output=True)
        subprocess.run([str(BIN / "dbt"), "deps", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)],
                       env=call.env, cwd=PROJECT, check=True, capture_output=True)
        call("run", "--target", "cold")  # builds the tables from the load; every later run is a no-op
        started = time.perf_counter()
        archive = archive_training.ensure(LakehouseConfig.from_env(home=home))
        print(f"class archive: {archive[0] if archive else 'none'} "
              f"({f'trained in {time.perf_counter() - started:.0f} s' if archive and archive[1] else 'present'})")
        bare_env = {"SPARK_SUBMIT_OPTS": f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} -Xshare:auto".strip()}

        version = [call("--version")["wall"] for _ in range(args.reps)]
        floor = [call("--help")["wall"] for _ in range(args.reps)]
        nothing = [call("run", "--target", "cold", "--select", "no_such_model")["wall"] for _ in range(args.reps)]
        cold, bare = [], []
        for _ in range(args.reps):
            cold.append(call("run", "--target", "cold"))
            bare.append(call("run", "--target", "cold", env=bare_env))
        with start_connect_server(LakehouseConfig.from_env(home=home), port=port):
            first_connect = call("run", "--target", "connect")
            connect = [call("run", "--target", "connect") for _ in range(args.reps)]
        assert "NO-OP" in connect[-1]["stdout"], connect[-1]["stdout"][-2000:]
        stop_server(home)
        first_warm = call("run", "--target", "warm")
        warm = [call("run", "--target", "warm") for _ in range(args.reps)]
        assert "NO-OP" in warm[-1]["stdout"], warm[-1]["stdout"][-2000:]

        c_wall, w_wall = _median(r["wall"] for r in cold), _median(r["wall"] for r in warm)
        c_first, w_first = _median(r["first_query"] for r in cold), _median(r["first_query"] for r in warm)
        c_vq, w_vq = _median(r["version_to_query"] for r in cold), _median(r["version_to_query"] for r in warm)
        b_wall, b_first, b_vq = (_median(r[k] for r in bare) for k in ("wall", "first_query", "version_to_query"))
        v, f, n = _median(version), _median(floor), _median(nothing)
        x_wall, x_first, x_vq = (_median(r[k] for r in connect) for k in ("wall", "first_query", "version_to_query"))
        print(f"load average before: {load_before}; after: {_load()}  (1 / 5 / 15 min)")
        print(f"no-op `dbt run` of benchmarks/loop_project (2 sparkload models + 1 view), median of {args.reps}:")
        print(f"  {'':34s}{'cold, no archive':>17s}{'cold (embedded)':>17s}{'archive/none':>13s}{'warm':>10s}"
              f"{'cold/warm':>11s}")
        for label, b, c, w in (("wall", b_wall, c_wall, w_wall), ("launch -> first query answered", b_first, c_first, w_first),
                               ("version -> first query answered", b_vq, c_vq, w_vq)):
            print(f"  {label:34s}{b:15.2f} s{c:15.2f} s{c / b:12.2f}x{w:8.2f} s{c / w:10.1f}x")
        print(f"  {'`dbt --help` (floor of any call)':34s}{f:15.2f} s{f:15.2f} s{'':13s}{f:8.2f} s")
        print(f"  {'`dbt run --select` of nothing':34s}{n:15.2f} s{n:15.2f} s{'':13s}{n:8.2f} s")
        print(f"  {'`dbt --version` (asks PyPI)':34s}{v:15.2f} s{v:15.2f} s{'':13s}{v:8.2f} s")
        print(f"  {'first warm run (starts the server)':34s}{'':45s}{first_warm['wall']:8.2f} s")
        print(f"the same no-op run as a multiple of dbt's floor (`dbt run --select` of nothing, {n:.2f} s), wall:")
        for label, value in (("cold, no archive", b_wall), ("cold (embedded)", c_wall), ("warm (thrift)", w_wall),
                             ("connect", x_wall)):
            print(f"  {label:34s}{value:8.2f} s{value / n:8.2f}x")
        print(f"  connect: launch -> first query {x_first:.2f} s, version -> first query {x_vq:.2f} s; "
              f"first connect run {first_connect['wall']:.2f} s (the new server's first statements)")
        each = [", ".join(f"{r['wall']:.1f}" for r in runs) for runs in (bare, cold, warm, connect)]
        print(f"  each run, wall: cold without archive {each[0]} s; cold {each[1]} s; warm {each[2]} s; connect {each[3]} s")
        print(f"goal: warm no-op <= {GOAL:.0f} s wall: {'met' if w_wall <= GOAL else 'NOT met'} ({w_wall:.2f} s)")
        if args.profile:
            _profile(call)
    finally:
        stop_server(home)
        if not args.home:
            shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
