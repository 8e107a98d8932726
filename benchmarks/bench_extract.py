"""Extraction benchmark (not a test): records/s of extract, normalize and land, peak memory, and the
real dlt 1.31 on the same records in the same run, on GitHub-event-like records (nested objects plus a
list of 0-3 commits per record).

    .venv/bin/python benchmarks/bench_extract.py [--records 1000000] [--dlt-records 200000]
                                                 [--arrow-rows 10000000] [--many-tables 5 50]
                                                 [--formats delta iceberg] [--home DIR]
    .venv/bin/python benchmarks/bench_extract.py --records 0      # the many-tables figures alone

Each table format runs in a process of its own, one after the other (`benchmarks/formats.py`); with both (the
default) the run ends with the landing seconds side by side, Delta ÷ Iceberg. dlt runs in the first format's
process only (it lands nothing).

JSON path (dicts), stages timed on their own pass over the same generated records:
  generator   the resource's generator alone: the floor, no sparkload code
  extract     generator + the incremental cursor filter (the baseline of the first round)
  normalize   generator + cursor + relational normalization + typed Parquet load package on disk
  land        Spark lands the package into Iceberg/Delta staging tables + state + `_dlt_loads`
  end to end  normalize + land (records/s: root records of the resource per second)
  dlt         dlt 1.31 extract + normalize to Parquet (filesystem destination, no load) of the first
              `--dlt-records` of the same records, with `dlt.sources.incremental` on the same cursor
Arrow path: a resource yielding Arrow tables of 100,000 rows (the same events without the commit list,
`created_at` as a timestamp column, the incremental cursor on it): rows/s from the generator into staging.
Many small tables (`--many-tables 5 50`, issue 37 goal 3: 50 at most 1.3x 5): one package of S tables of 20
rows each, then one of L tables, landed into new tables and then again into the same (existing) tables, in
the warmed-up process: the landing's seconds (`load`) and L ÷ S, beside the whole run (extract + normalize +
land) and, for the issue's first figures, a new process per package (`python -c`, JVM start included).
Prints the machine, its load average before and after, the versions, the figures and the ratios.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import formats  # noqa: E402
import python_extract as sl  # noqa: E402

BASE = int(dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc).timestamp())
USERS, REPOS = 5000, 900


def github_event(i: int) -> dict:
    """Record `i`, written plainly: the definition `github_events` must reproduce."""
    ts = dt.datetime.fromtimestamp(BASE + i, dt.timezone.utc)
    user, repo = i % USERS, i % REPOS
    return {
        "id": str(30_000_000_000 + i), "type": "PushEvent", "public": True,
        "created_at": f"{ts:%Y-%m-%dT%H:%M:%S}Z",
        "actor": {"id": user, "login": f"user{user}", "display_login": f"user{user}", "gravatar_id": "",
                  "url": f"https://api.github.com/users/user{user}",
                  "avatar_url": f"https://avatars.githubusercontent.com/u/{user}?"},
        "repo": {"id": repo, "name": f"org/repo{repo}", "url": f"https://api.github.com/repos/org/repo{repo}"},
        "payload": {"push_id": 9_000_000_000 + i, "size": i % 4, "distinct_size": i % 4, "ref": "refs/heads/main",
                    "head": f"{i:040x}", "before": f"{i + 1:040x}",
                    "commits": [{"sha": f"{i:038x}{c:02x}", "author": {"email": f"user{user}@example.com", "name": f"User {user}"},
                                 "message": f"change {c} of push {i}", "distinct": True,
                                 "url": f"https://api.github.com/repos/org/repo{repo}/commits/{i:038x}{c:02x}"}
                                for c in range(i % 4)]},
    }


def github_events(n: int, start: int = 0):
    """Records start..n-1, equal to `github_event(i)` (checked at start), built from strings made once
    (per user, per repo, per second of the day): a fresh dict per record, the generator costs less."""
    users = [(f"user{u}", f"https://api.github.com/users/user{u}", f"https://avatars.githubusercontent.com/u/{u}?",
              f"user{u}@example.com", f"User {u}") for u in range(USERS)]
    repos = [(f"org/repo{r}", f"https://api.github.com/repos/org/repo{r}", f"https://api.github.com/repos/org/repo{r}/commits/")
             for r in range(REPOS)]
    first = dt.datetime.fromtimestamp(BASE, dt.timezone.utc)
    clock = [f"T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}Z" for s in range(86400)]
    days = [f"{first + dt.timedelta(days=d):%Y-%m-%d}" for d in range((n + 86399) // 86400 + 1)]
    for i in range(start, n):
        user, repo, size = i % USERS, i % REPOS, i % 4
        login, user_url, avatar, email, name = users[user]
        repo_name, repo_url, commits_url = repos[repo]
        hexed, push = f"{i:038x}", f" of push {i}"
        yield {
            "id": str(30_000_000_000 + i), "type": "PushEvent", "public": True,
            "created_at": days[i // 86400] + clock[i % 86400],
            "actor": {"id": user, "login": login, "display_login": login, "gravatar_id": "", "url": user_url,
                      "avatar_url": avatar},
            "repo": {"id": repo, "name": repo_name, "url": repo_url},
            "payload": {"push_id": 9_000_000_000 + i, "size": size, "distinct_size": size, "ref": "refs/heads/main",
                        "head": f"{i:040x}", "before": f"{i + 1:040x}",
                        "commits": [{"sha": hexed + sha, "author": {"email": email, "name": name},
                                     "message": "change " + str(c) + push, "distinct": True,
                                     "url": commits_url + hexed + sha} for c, sha in _SHAS[:size]]},
        }


_SHAS = [(c, f"{c:02x}") for c in range(4)]


def events_resource(n: int) -> sl.Resource:
    @sl.resource(name="github_events", primary_key="id", table_name="events")
    def github_events_(created_at=sl.incremental("created_at", initial_value="2024-01-01T00:00:00Z")):
        yield from github_events(n)
    return github_events_


def arrow_batches(rows: int, batch: int = 100_000):
    """Arrow tables of `batch` rows: the events without their commit list, `created_at` a timestamp."""
    import pyarrow as pa
    import pyarrow.compute as pc

    records = []
    for record in github_events(batch):
        record["payload"].pop("commits")
        record["created_at"] = dt.datetime.fromisoformat(record["created_at"])
        records.append(record)
    first = pa.Table.from_pylist(records)
    for k in range(0, rows, batch):
        shifted = pc.add(first.column("created_at"), pa.scalar(dt.timedelta(seconds=k), pa.duration("us")))
        yield first.set_column(first.schema.get_field_index("created_at"), "created_at", shifted).slice(0, min(batch, rows - k))


def arrow_resource(rows: int) -> sl.Resource:
    @sl.resource(name="github_events_arrow", table_name="events_arrow")
    def events_arrow(created_at=sl.incremental("created_at", initial_value=dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc))):
        yield from arrow_batches(rows)
    return events_arrow


def run_dlt(n: int, home: Path) -> float:
    """Seconds dlt 1.31 takes to extract and normalize (to Parquet) the first `n` records."""
    import dlt

    os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")

    @dlt.resource(name="github_events", primary_key="id", table_name="events")
    def github_events_(created_at=dlt.sources.incremental("created_at", initial_value="2024-01-01T00:00:00Z")):
        yield from github_events(n)

    pipe = dlt.pipeline(pipeline_name="bench_dlt", destination=dlt.destinations.filesystem(bucket_url=str(home / "dlt_fs")),
                        dataset_name="bench", pipelines_dir=str(home / "dlt_pipelines"))
    started = time.perf_counter()
    pipe.extract(github_events_(), loader_file_format="parquet")
    pipe.normalize()
    seconds = time.perf_counter() - started
    counts = pipe.last_trace.last_normalize_info.row_counts
    assert counts["events"] == n, counts
    return seconds


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def jvm_peak_rss_mib() -> float:
    """VmHWM of this process's java children (the Spark driver), 0 if none."""
    peak = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if fields.get("PPid", "").strip() == str(os.getpid()) and "java" in fields.get("Name", ""):
            peak = max(peak, int(fields.get("VmHWM", "0 kB").split()[0]))
    return peak / 1024


def small_tables(names, version: int) -> list:
    return [sl.resource([{"id": i, "name": f"row {i} v{version}"} for i in range(20)], name=t, primary_key="id",
                        write_disposition={"disposition": "merge", "strategy": "upsert"}) for t in names]


LAND_IN_A_PROCESS = """
import sys, python_extract as sl
names = sys.argv[2].split(",")
p = sl.pipeline(pipeline_name="many_" + sys.argv[3], dataset_name=sys.argv[3], home=sys.argv[1])
p.run([sl.resource([{"id": i, "name": f"row {i}"} for i in range(20)], name=t, primary_key="id") for t in names])
"""


def many_tables(home: Path, sizes, found: dict) -> None:
    """Goal 3 of issue 37: landing a package of many small tables against one of few, in this (warm) process
    and in a process of its own per package."""
    print(f"many small tables (20 rows each): a package of {' and of '.join(map(str, sizes))} tables")
    print(f"  {'tables':>6} {'into':<9}{'land s':>8}{'run s':>8}{'per table ms':>14}")
    figures = {}
    for into in ("new", "existing"):
        for size in sizes:
            pipe = sl.pipeline(pipeline_name=f"many_{size}", dataset_name=f"many_{size}_{int(time.time())}"
                               if into == "new" else figures[("new", size)][2], home=str(home))
            started = time.perf_counter()
            pipe.extract(small_tables([f"t_{i:03d}" for i in range(size)], version=1 if into == "new" else 2))
            extracted = time.perf_counter()
            info = pipe.load()
            land_s, run_s = time.perf_counter() - extracted, time.perf_counter() - started
            assert sum(info.row_counts.values()) == 20 * size, info.row_counts
            figures[(into, size)] = (land_s, run_s, pipe.dataset_name)
            print(f"  {size:>6} {into:<9}{land_s:>8.2f}{run_s:>8.2f}{1000 * land_s / size:>14.0f}")
    small, large = sizes
    for into in ("new", "existing"):
        ratio = figures[(into, large)][0] / figures[(into, small)][0]
        run_ratio = figures[(into, large)][1] / figures[(into, small)][1]
        print(f"  into {into} tables: landing {large} ÷ {small} = {ratio:.2f}x (goal <= 1.3x: "
              f"{'met' if ratio <= 1.3 else 'NOT met'}); the whole run {run_ratio:.2f}x")
        found[f"many_land_{into}_ratio"] = ratio
        found[f"many_run_{into}_ratio"] = run_ratio
    walls = {}
    for size in sizes:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", LAND_IN_A_PROCESS, str(home), ",".join(f"t_{i:03d}" for i in range(size)),
                        f"many_process_{size}"], check=True, capture_output=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
        walls[size] = time.perf_counter() - started
    ratio = walls[large] / walls[small]
    print(f"  a process per package (JVM start included, new tables): {small} tables {walls[small]:.1f} s, "
          f"{large} tables {walls[large]:.1f} s: {ratio:.2f}x")
    found["many_process_ratio"] = ratio


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")), 0)
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    import dlt
    import pyarrow
    import pyspark

    return (f"machine: {os.cpu_count()} cores ({cpu}), {mem / 1024 / 1024:.0f} GiB; {platform.platform()}\n"
            f"versions: python {platform.python_version()}, pyspark {pyspark.__version__}, pyarrow {pyarrow.__version__}, "
            f"dlt {dlt.__version__}, {java}")


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def row(name: str, seconds: float, n: int, baseline: float) -> str:
    return f"{name:<34}{seconds:>9.1f}{n / seconds:>14,.0f}{baseline / seconds:>12.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--dlt-records", type=int, default=200_000, help="records dlt runs on (0: skip dlt)")
    parser.add_argument("--arrow-rows", type=int, default=10_000_000, help="rows of the Arrow path (0: skip)")
    parser.add_argument("--many-tables", type=int, nargs=2, default=[5, 50], metavar=("S", "L"),
                        help="a package of S and of L small tables (default 5 50; 0 0: skip)")
    parser.add_argument("--home", help="lakehouse directory (default: a new temporary one, removed afterwards)")
    formats.add_arguments(parser)
    args = parser.parse_args()
    if len(args.formats) > 1:
        argv = ["--records", str(args.records), "--arrow-rows", str(args.arrow_rows),
                "--many-tables", *map(str, args.many_tables), "--dlt-records"]
        figures = {**formats.run_each(__file__, args.formats[:1], [*argv, str(args.dlt_records)], args.home),  # dlt once
                   **formats.run_each(__file__, args.formats[1:], [*argv, "0"], args.home)}
        print(f"\nlanding side by side ({args.records:,} records; Arrow path {args.arrow_rows:,} rows)")
        formats.side_by_side([(label, figures["delta"][key], figures["iceberg"][key])
                              for label, key in (("normalize (no table format)", "normalize_s"), ("land", "land_s"),
                                                 ("end to end", "end_to_end_s"), ("Arrow path", "arrow_s"),
                                                 ("many tables: landing L ÷ S, new (x)", "many_land_new_ratio"),
                                                 ("many tables: landing L ÷ S, existing (x)", "many_land_existing_ratio"),
                                                 ("many tables: a process each, L ÷ S (x)", "many_process_ratio"))
                              if key in figures["delta"]])
        return
    os.environ["SPARKLOAD_TABLE_FORMAT"] = args.formats[0]
    n = args.records
    found = {}
    if not n:  # the many-tables figures alone
        home = Path(args.home or tempfile.mkdtemp(prefix="bench_extract_"))
        print(machine())
        print(f"load average before: {load_average()}; table format {args.formats[0]}")
        sl.pipeline(pipeline_name="bench_warmup", dataset_name="bench_warmup", home=str(home)).run(events_resource(5_000))
        many_tables(home, args.many_tables, found)
        print(f"load average after: {load_average()}")
        formats.write(args.json, found)
        if not args.home:
            shutil.rmtree(home, ignore_errors=True)
        return
    assert all(a == b for a, b in zip(github_events(2000), map(github_event, range(2000))))
    home = Path(args.home or tempfile.mkdtemp(prefix="bench_extract_"))
    print(machine())
    print(f"load average before: {load_average()}")
    pipe = sl.pipeline(pipeline_name="bench", dataset_name=f"bench_{int(time.time())}", home=str(home))
    warm = sl.pipeline(pipeline_name="bench_warmup", dataset_name=f"{pipe.dataset_name}_warmup", home=str(home))
    warm.run(events_resource(5_000))  # JVM start and JIT warm-up are not part of any stage
    print(f"table format: {pipe.spark.conf.get('spark.sparkload.table_format')}; records: {n:,}")
    assert pipe.spark.conf.get("spark.sparkload.table_format") == args.formats[0]

    started = time.perf_counter()
    generated = sum(1 for _ in github_events(n))
    generator_s = time.perf_counter() - started
    started = time.perf_counter()
    cursor = sl.incremental("created_at", initial_value="2024-01-01T00:00:00Z").bind({}, "bench", ["id"])
    kept = sum(1 for item in github_events(n) if cursor(item))
    extract_s = time.perf_counter() - started
    assert kept == generated == n

    started = time.perf_counter()
    packages = pipe.extract([events_resource(n)])
    normalize_s = time.perf_counter() - started
    rss_after_normalize = peak_rss_mib()
    counts = packages[0].row_counts()
    started = time.perf_counter()
    info = pipe.load()
    land_s = time.perf_counter() - started
    end_to_end_s = normalize_s + land_s
    landed = pipe.spark.sql(f"select count(*) c from {pipe.dataset_name}.events").first()["c"]
    assert landed == n, landed
    rows = sum(counts.values())
    print(f"tables: {', '.join(f'{t} {c:,}' for t, c in counts.items())} ({rows:,} rows); load {info.load_id}")
    print(f"{'stage (JSON path)':<34}{'seconds':>9}{'records/s':>14}{'vs extract':>12}")
    for name, seconds in (("generator alone (the floor)", generator_s), ("extract (generator + cursor)", extract_s),
                          ("normalize (incl. extract)", normalize_s), ("land", land_s),
                          ("end to end (normalize + land)", end_to_end_s)):
        print(row(name, seconds, n, extract_s))
    print(f"sparkload's own share of end to end (without the generator): {n / max(end_to_end_s - generator_s, 1e-9):,.0f} records/s")
    found.update(normalize_s=normalize_s, land_s=land_s, end_to_end_s=end_to_end_s)
    print(f"peak RSS: extractor (python) {rss_after_normalize:,.0f} MiB after normalize, {peak_rss_mib():,.0f} MiB after land; "
          f"Spark driver JVM {jvm_peak_rss_mib():,.0f} MiB")

    if args.arrow_rows:
        started = time.perf_counter()
        arrow_info = pipe.run(arrow_resource(args.arrow_rows))
        arrow_s = time.perf_counter() - started
        found["arrow_s"] = arrow_s
        assert arrow_info.row_counts.get("events_arrow") == args.arrow_rows, arrow_info.row_counts
        print(f"Arrow path: {args.arrow_rows:,} rows from the generator into staging in {arrow_s:.1f} s: "
              f"{args.arrow_rows / arrow_s:,.0f} rows/s (peak RSS {peak_rss_mib():,.0f} MiB)")

    if all(args.many_tables):
        many_tables(home, args.many_tables, found)

    if args.dlt_records:
        m = min(args.dlt_records, n)
        dlt_s = run_dlt(m, home)
        dlt_rate = m / dlt_s
        print(f"dlt {m:,} records (the first of the same): extract + normalize to Parquet {dlt_s:.1f} s, {dlt_rate:,.0f} records/s")
        print(f"ratio to dlt (records/s): sparkload normalize {n / normalize_s / dlt_rate:.1f}x, "
              f"end to end incl. landing {n / end_to_end_s / dlt_rate:.1f}x")
    print(f"load average after: {load_average()}")
    formats.write(args.json, found)
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
