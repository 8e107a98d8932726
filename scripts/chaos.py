"""A chaos run that counts rows: extractions and `dbt run`s of every strategy, concurrently, for N rounds,
with SIGKILLs of random processes at random moments, each killed process restarted until it completes;
then every final table is compared with the same loads applied once without faults.

    python scripts/chaos.py --rounds 25 --seed 7            # the full run (>= 200 kills)
    python scripts/chaos.py --rounds 40 --minutes 30 --table chaos-table.md   # rounds until 30 min, table kept current
    python scripts/chaos.py --short                         # the CI run (tests/reliability/test_chaos.py)

Each round the source of truth grows (new rows, updates, deletes; `round` and a global `seq` on every
row), then these jobs run at once, each a real process:

    extract a   pipeline chaos_a: events (append), accounts (delete-insert, hard deletes), settings (replace)
    extract b   pipeline chaos_b: customers (upsert, child table customers__tags), products (scd2, merge_key)
                (both land into one dataset; sometimes a second extractor of the same pipeline runs too and
                must be refused by the pipeline lock)
    dbt a, b    `dbt run` of each pipeline's models (threads 4: the strategies of a group run at once;
                the short run has one dbt job for all models)

A job's attempt is killed (SIGKILL, its whole process group) with probability `--kill-probability`, up to
`--max-kills` times per job: at a random moment of its start-up, or just after it reaches a stage
(extraction: extracted, sealed, a table landed, state written, `_dlt_loads` written; dbt: a model started,
the run finishing), then restarted. Extractions take rows up to their round, so a load holds one round.
After the last round one dbt run per group runs without faults, so every completed load is applied. A
watchdog (python_extract.runtime.processes) ends the jobs if the driver itself is killed.

Checks: every source row is in the staging tables exactly once (0 lost, 0 duplicated), no staging row
belongs to a load without its `_dlt_loads` row, each resource's stored cursor equals the largest `seq` it
landed (never ahead of the data), and each final table equals, row for row, the table `dbt run` builds from
the same completed loads in a fresh schema without faults. Exit code 0 when all hold.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PIPELINES = {"a": ("events", "accounts", "settings"), "b": ("customers", "products")}
INCREMENTAL = ("events", "accounts", "customers", "products")
MODELS = {
    "events": "write_disposition='append'",
    "accounts": "write_disposition='merge', strategy='delete-insert', primary_key='id', hard_delete='deleted'",
    "settings": "write_disposition='replace'",
    "customers": "write_disposition='merge', strategy='upsert', primary_key='id'",
    "customers__tags": "root_model='customers'",
    "products": "write_disposition='merge', strategy='scd2', merge_key='id'",
}
GROUPS = {"a": ["events", "accounts", "settings"], "b": ["customers", "customers__tags", "products"]}
EXTRACT_STAGES = ["startup", "extracted", "sealed", "landing", "state written", "completed"]
DBT_STAGES = ["startup", "running", "finishing"]
# an attempt that failed on the embedded H2 catalog because another job's kill took the process serving it
# (the connection breaks) or left its lock file behind for a moment (the open fails): restarted, counted
COLLATERAL = re.compile(r"JdbcSQLNonTransientConnectionException: (Connection is broken|Database may be already in use)"
                        r"|Failed to connect: jdbc:h2:|org\.h2\.store\.FileLock\.lockFile")


# ---- the source of truth: rows per resource, as JSON lines under <work>/source/


def generate(work: Path, rnd: int, rng: random.Random) -> None:
    """Append round `rnd`'s rows to the source of truth."""
    folder = work / "source"
    folder.mkdir(parents=True, exist_ok=True)
    counter = work / "source" / "seq"
    seq = int(counter.read_text()) if counter.exists() else 0
    known = json.loads((folder / "keys.json").read_text()) if (folder / "keys.json").exists() else {}
    rows: Dict[str, List[Dict[str, Any]]] = {r: [] for r in (*INCREMENTAL, "settings")}

    def add(resource: str, row: Dict[str, Any]) -> None:
        nonlocal seq
        seq += 1
        rows[resource].append({**row, "seq": seq, "round": rnd})

    for i in range(20):
        add("events", {"id": rnd * 1000 + i, "kind": rng.choice(["view", "click", "buy"]), "value": rng.randint(0, 99)})
    accounts = known.setdefault("accounts", [])
    live = [a for a in accounts if a >= 0]
    new = list(range(len(accounts), len(accounts) + (30 if rnd == 0 else 2)))
    accounts.extend(new)
    updated = rng.sample(live, min(4, len(live)))
    deleted = rng.sample([a for a in live if a not in updated], min(2, max(len(live) - 4, 0)))
    for a in new + updated:
        add("accounts", {"id": a, "balance": rng.randint(0, 10_000), "deleted": False})
    for a in deleted:
        add("accounts", {"id": a, "balance": None, "deleted": True})
        accounts[a] = -1
    customers = known.setdefault("customers", 0)
    changed = rng.sample(range(customers), min(5, customers)) + list(range(customers, customers + (20 if rnd == 0 else 3)))
    known["customers"] = customers + (20 if rnd == 0 else 3)
    for c in changed:
        add("customers", {"id": c, "name": f"customer {c} r{rnd}", "tags": [f"t{rng.randint(0, 5)}" for _ in range(rng.randint(0, 3))]})
    products = known.setdefault("products", 0)
    changed = rng.sample(range(products), min(3, products)) + list(range(products, products + (15 if rnd == 0 else 1)))
    known["products"] = products + (15 if rnd == 0 else 1)
    for p in changed:
        add("products", {"id": p, "price": rng.randint(1, 500)})
    rows["settings"] = [{"key": f"k{k}", "value": f"v{k}.{rnd}.{rng.randint(0, 9)}", "round": rnd} for k in range(5)]
    for resource, found in rows.items():
        mode = "w" if resource == "settings" else "a"
        with open(folder / f"{resource}.jsonl", mode) as out:
            out.writelines(json.dumps(r) + "\n" for r in found)
    (folder / "keys.json").write_text(json.dumps(known))
    counter.write_text(str(seq))


def read_source(work: Path, resource: str, upto: Optional[int] = None) -> List[Dict[str, Any]]:
    path = work / "source" / f"{resource}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in rows if upto is None or r["round"] <= upto]


# ---- the jobs' own processes: `chaos.py extract ...` (a pipeline run reporting its stages)


def extract(work: Path, home: Path, dataset: str, pipeline: str, upto: int, stage_file: Path,
            slow_landing: float = 0.0) -> None:
    """One extraction (a job's process); `slow_landing` seconds of sleep after the first table landed."""
    import python_extract as sl

    def stage(name: str):
        def record(**_: Any) -> None:
            with open(stage_file, "a") as out:
                out.write(name + "\n")
        return record

    def rows_of(resource: str, **hints: Any):
        if resource == "settings":
            @sl.resource(name=resource, write_disposition="replace")
            def full():
                yield read_source(work, resource, upto)
            return full

        @sl.resource(name=resource, **hints)
        def incremental(seq=sl.incremental("seq", initial_value=0)):
            yield read_source(work, resource, upto)
        return incremental

    hints = {"events": {}, "accounts": {"primary_key": "id", "write_disposition": "merge"},
             "customers": {"primary_key": "id", "write_disposition": {"disposition": "merge", "strategy": "upsert"}},
             "products": {"merge_key": "id", "write_disposition": {"disposition": "merge", "strategy": "scd2"}}}

    @sl.source(name=f"shop_{pipeline}")
    def shop():
        return [rows_of(r, **hints.get(r, {})) for r in PIPELINES[pipeline]]

    pipe = sl.pipeline(pipeline_name=f"chaos_{pipeline}", dataset_name=dataset, pipelines_dir=str(work / "pipelines"),
                       home=str(home))
    for event, name in (("extract_done", "extracted"), ("package_sealed", "sealed"), ("table_landed", "landing"),
                        ("state_written", "state written"), ("load_completed", "completed")):
        pipe.hooks.register(event, stage(name))
    if slow_landing:
        slept = []
        pipe.hooks.register("table_landed", lambda **_: slept or slept.append(time.sleep(slow_landing)))
    pipe.run(shop())


# ---- the dbt project the jobs run


def write_project(work: Path, home: Path, dataset: str) -> Path:
    project = work / "dbt"
    (project / "models").mkdir(parents=True, exist_ok=True)
    (project / "dbt_project.yml").write_text("name: chaos\nversion: '1.0'\nconfig-version: 2\nprofile: chaos\n")
    (project / "profiles.yml").write_text(
        "chaos:\n  target: dev\n  outputs:\n    dev:\n      type: sparkload\n      method: embedded\n"
        "      schema: \"{{ env_var('CHAOS_TARGET_SCHEMA') }}\"\n"
        f"      lakehouse_dir: {json.dumps(str(home))}\n      threads: 4\n")
    tables = "\n".join(f"      - name: {t}" for t in MODELS)
    (project / "models" / "sources.yml").write_text(f"version: 2\nsources:\n  - name: raw\n    schema: {dataset}\n    tables:\n{tables}\n")
    for model, config in MODELS.items():
        depends = "-- depends_on: {{ ref('customers') }}\n" if "root_model" in config else ""
        (project / "models" / f"{model}.sql").write_text(
            f"{{{{ config(materialized='sparkload', {config}) }}}}\n{depends}select * from {{{{ source('raw', '{model}') }}}}\n")
    return project


# ---- the driver


def dbt_failures(output: str) -> List[str]:
    """The failing models of a `dbt run`'s console output, each as "<model>: <its error>": the first line
    naming an exception or an error class (a Java trace's cause), else the first line of the message."""
    lines = [re.sub(r"^\d\d:\d\d:\d\d\s+", "", re.sub(r"\x1b\[[0-9;]*m", "", line)).strip()
             for line in output.splitlines()]
    found = []
    for i, line in enumerate(lines):
        failed = re.match(r"Failure in (?:model|test|seed|snapshot) (\S+)", line)
        if failed:
            block = []
            for m in lines[i + 1:]:
                if m.startswith(("Failure in ", "compiled code at ", "Done. PASS=")):
                    break
                if m and not re.fullmatch(r"\w+ Error( in .*)?", m) and not m.startswith("at "):
                    block.append(m)
            cause = next((m for m in block if re.search(r"[\w.]+(Exception|Error): |^\[[A-Z_]+\]", m)), None)
            found.append(f"{failed.group(1)}: {cause or (block[0] if block else '')}")
    return found


def dbt_result_failures(result) -> List[str]:
    """The failing nodes of an in-process `dbtRunner` result, as `dbt_failures`."""
    if result.exception is not None:
        return [f"(dbt itself): {str(result.exception).strip().splitlines()[0]}"]
    return [f"{r.node.name}: {(r.message or '').strip().splitlines()[0] if r.message else r.status}"
            for r in getattr(result.result, "results", []) if r.status in ("error", "fail")]



@dataclass
class Job:
    name: str           # "extract a", "extract a (second writer)", "dbt b", ...
    kind: str           # extract | dbt
    argv: List[str]
    env: Dict[str, str]
    stage_file: Optional[Path] = None
    refusable: bool = False  # a second writer: exit 4 (busy) ends it


@dataclass
class Tally:
    kills: Counter = field(default_factory=Counter)
    recoveries: int = 0
    busy: int = 0
    collateral: int = 0  # attempts failed because a killed job held the catalog server they used (restarted)
    attempts: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Chaos:
    def __init__(self, work: Path, home: Path, dataset: str, target: str, rng: random.Random, kill_probability: float,
                 max_kills: int, groups: Dict[str, List[str]], log=print):
        from python_extract.runtime.processes import Watchdog

        self.work, self.home, self.dataset, self.target = work, home, dataset, target
        self.rng, self.kill_probability, self.max_kills, self.groups, self.log = rng, kill_probability, max_kills, groups, log
        self.tally = Tally()
        self.watchdog = Watchdog()
        self.project = write_project(work, home, dataset)
        self.env = {**os.environ, "SPARKLOAD_HOME": str(home), "PYTHONPATH": str(REPO), "CHAOS_TARGET_SCHEMA": target}
        self.env.pop("SPARKLOAD_TARGET_SCHEMA", None)
        self._serial = 0
        self.phase = "set-up"  # which part of the run the jobs belong to, for the failure messages

    def extract_job(self, pipeline: str, upto: int, second: bool = False) -> Job:
        self._serial += 1
        stage_file = self.work / "stages" / f"{self._serial}"
        stage_file.parent.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, str(Path(__file__).resolve()), "extract", "--work", str(self.work), "--home", str(self.home),
                "--dataset", self.dataset, "--pipeline", pipeline, "--upto", str(upto), "--stage-file", str(stage_file)]
        return Job(f"extract {pipeline}" + (" (second writer)" if second else ""), "extract", argv, self.env, stage_file,
                   refusable=second)

    def dbt_job(self, group: str) -> Job:
        argv = [str(BIN / "dbt"), "run", "--project-dir", str(self.project), "--profiles-dir", str(self.project),
                "--select", " ".join(self.groups[group])]
        return Job(f"dbt {group}", "dbt", argv, self.env)

    def _attempt(self, job: Job, faults: bool) -> int:
        """One process of `job`; killed when `faults`. Its exit code (-9 when killed)."""
        if job.stage_file is not None:
            job.stage_file.write_text("startup\n")
        lines: List[str] = []
        process = subprocess.Popen(job.argv, env=job.env, cwd=str(self.work), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.watchdog.guard_group(process.pid)
        reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
        reader.start()
        with self.tally.lock:
            self.tally.attempts += 1
            stages = EXTRACT_STAGES if job.kind == "extract" else DBT_STAGES
            target = self.rng.choice(stages) if faults else None
            delay = self.rng.uniform(0, 15) if target == "startup" else self.rng.uniform(0, 0.4)
        started = time.monotonic()
        killed_at = None
        while process.poll() is None:
            now = self._stage(job, lines)
            due = target is not None and (time.monotonic() - started >= delay if target == "startup"
                                          else stages.index(now) >= stages.index(target))  # reached, or passed
            if due:
                if target != "startup":
                    time.sleep(delay)
                killed_at = self._stage(job, lines)
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    killed_at = None
                break
            time.sleep(0.05)
        code = process.wait()
        reader.join(10)
        self.watchdog.release_group(process.pid)
        if code == -signal.SIGKILL and killed_at is not None:
            with self.tally.lock:
                self.tally.kills[f"{job.kind}: {killed_at}"] += 1
        elif code not in (0, 4) and COLLATERAL.search("".join(lines[-200:])):
            with self.tally.lock:  # another job's kill took the catalog server it was connected to
                self.tally.collateral += 1
            return -signal.SIGKILL
        elif code not in (0, 4):
            failing = "; ".join(dbt_failures("".join(lines))) if job.kind == "dbt" else ""
            cause = next((line.strip() for line in lines if re.search(r"(Error|Exception)\b.*:", line)
                          and not line.lstrip().startswith("at ")), "")
            raise RuntimeError(f"chaos: job '{job.name}' failed with exit code {code} in {self.phase}"
                               + (f"; failing models: {failing}" if failing else "")
                               + (f"; first error: {cause[:500]}" if cause else "")
                               + "\n--- its last output lines:\n" + "".join(lines[-60:]))
        return code

    def _stage(self, job: Job, lines: List[str]) -> str:
        if job.kind == "extract":
            try:
                seen = job.stage_file.read_text().splitlines()
            except OSError:
                return "startup"
            return seen[-1] if seen and seen[-1] in EXTRACT_STAGES else "startup"
        text = "".join(lines[-20:])
        if "Finished running" in text:
            return "finishing"
        if " START sql " in text or "Concurrency:" in text and " START " in text:
            return "running"
        return "startup"

    def run_job(self, job: Job, faults: bool) -> None:
        killed = False
        kills = 0
        while True:
            with self.tally.lock:
                kill = faults and kills < self.max_kills and self.rng.random() < self.kill_probability
            code = self._attempt(job, kill)
            kills += code == -signal.SIGKILL
            if code == 0:
                break
            if code == 4:
                if job.refusable:
                    with self.tally.lock:
                        self.tally.busy += 1
                    return
                time.sleep(1)
                continue
            killed = True
        if killed:
            with self.tally.lock:
                self.tally.recoveries += 1

    def run_jobs(self, jobs: List[Job], faults: bool) -> None:
        errors: List[BaseException] = []

        def guarded(job: Job) -> None:
            try:
                self.run_job(job, faults)
            except BaseException as e:  # noqa: BLE001 - reported after the other jobs ended
                errors.append(e)

        threads = [threading.Thread(target=guarded, args=(j,)) for j in jobs]
        for thread in threads:
            thread.start()
            time.sleep(self.rng.uniform(0, 2))
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]

    second_writers = 0.3  # probability, per pipeline and round, of a second extractor of the same pipeline

    rounds_done = 0
    deadline: Optional[float] = None  # time.monotonic() after which no round starts
    after_round = staticmethod(lambda: None)  # called after every round (the interim table)

    def run(self, rounds: int) -> None:
        try:
            for rnd in range(rounds):
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    self.log(f"time is up after {rnd} rounds")
                    break
                generate(self.work, rnd, self.rng)
                self.phase = f"round {rnd + 1}/{rounds} (with faults)"
                jobs = [self.extract_job(p, rnd) for p in PIPELINES]
                jobs += [self.extract_job(p, rnd, second=True) for p in PIPELINES if self.rng.random() < self.second_writers]
                jobs += [self.dbt_job(g) for g in self.groups]
                self.rng.shuffle(jobs)
                started = time.monotonic()
                if rnd == 0:  # a dbt run needs the staging tables: the first round's dbt jobs start after its extractions
                    self.run_jobs([j for j in jobs if j.kind == "extract"], faults=True)
                    self.run_jobs([j for j in jobs if j.kind == "dbt"], faults=True)
                else:
                    self.run_jobs(jobs, faults=True)
                self.rounds_done = rnd + 1
                self.log(f"round {rnd + 1}/{rounds}: {sum(self.tally.kills.values())} kills so far "
                         f"({time.monotonic() - started:.0f} s)")
                self.after_round()
            self.phase = "the final fault-free dbt run (applies every completed load to the faulty run's tables)"
            self.run_jobs([self.dbt_job(g) for g in self.groups], faults=False)
        finally:
            self.watchdog.close()


# ---- the checks


def _rows(spark, sql: str) -> List[tuple]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def check(spark, chaos: Chaos) -> Dict[str, Any]:
    """Compare staging with the source of truth and the final tables with a fault-free application."""
    from dbt.cli.main import dbtRunner

    from python_extract.load.destination import read_state

    ds = f"`{chaos.dataset}`"
    loads = {r[0] for r in _rows(spark, f"select load_id from {ds}._dlt_loads")}
    found: Dict[str, Any] = {"lost": 0, "duplicated": 0, "orphans": 0, "cursor_ahead": 0, "staging_rows": 0,
                             "final_rows": 0, "final_differences": 0, "per_table": {}}
    for resource in INCREMENTAL:
        truth = Counter((r["id"], r["seq"]) for r in read_source(chaos.work, resource))
        staged = _rows(spark, f"select id, seq, `_dlt_load_id` from {ds}.`{resource}`")
        landed = Counter((i, s) for i, s, load in staged if load in loads)
        found["orphans"] += sum(1 for *_, load in staged if load not in loads)
        found["lost"] += sum((truth - landed).values())
        found["duplicated"] += sum((landed - truth).values())
        found["staging_rows"] += len(staged)
        pipeline = next(p for p, rs in PIPELINES.items() if resource in rs)
        state = read_state(spark, chaos.dataset, f"chaos_{pipeline}")
        cursor = state["sources"][f"shop_{pipeline}"]["resources"][resource]["incremental"]["seq"]["last_value"]
        if cursor > max((s for _, s in landed), default=0):
            found["cursor_ahead"] += 1
    reference = f"{chaos.target}_ref"
    os.environ["CHAOS_TARGET_SCHEMA"] = reference
    result = dbtRunner().invoke(["run", "--project-dir", str(chaos.project), "--profiles-dir", str(chaos.project)])
    os.environ["CHAOS_TARGET_SCHEMA"] = chaos.target
    if not result.success:
        raise RuntimeError(f"chaos: the reference dbt run (the same loads applied once without faults, schema "
                           f"{reference}) failed; failing models: {'; '.join(dbt_result_failures(result)) or '?'}")
    for model in MODELS:
        a, b = f"`{chaos.target}`.`{model}`", f"`{reference}`.`{model}`"
        rows = spark.table(a).count()
        diff = spark.sql(f"(select * from {a} except all select * from {b}) union all "
                         f"(select * from {b} except all select * from {a})").count()
        found["per_table"][model] = (rows, diff)
        found["final_rows"] += rows
        found["final_differences"] += diff
    return found


def report(chaos: Chaos, found: Optional[Dict[str, Any]], seconds: float, loads_seen: List[float]) -> str:
    """The run's table; with `found` None, the interim one (the checks run after the last round)."""
    tally = chaos.tally
    out = [f"chaos run: {chaos.rounds_done} rounds, {tally.attempts} processes started, {seconds / 60:.1f} min, "
           f"load average {min(loads_seen):.1f}-{max(loads_seen):.1f} (1 min, sampled each round)", "",
           "| stage at kill | kills |", "|---|---|"]
    for stage in [f"extract: {s}" for s in EXTRACT_STAGES] + [f"dbt: {s}" for s in DBT_STAGES]:
        out.append(f"| {stage} | {tally.kills.get(stage, 0)} |")
    out += [f"| **total** | **{sum(tally.kills.values())}** |", "",
            f"recoveries (killed jobs restarted until they completed): {tally.recoveries}",
            f"second writers refused by the pipeline lock: {tally.busy}",
            f"attempts failed because a killed job held the catalog server (restarted): {tally.collateral}"]
    if found is None:
        return "\n".join(out + ["", "(in progress: the rows are compared after the last round)"])
    out += [f"rows compared: staging {found['staging_rows']} (against the source of truth), final tables "
            f"{found['final_rows']} (against a fault-free dbt run of the same loads): "
            + ", ".join(f"{m} {r}" for m, (r, _) in found["per_table"].items()),
            f"differences: lost {found['lost']}, duplicated {found['duplicated']}, rows of incomplete loads "
            f"{found['orphans']}, cursors ahead of the data {found['cursor_ahead']}, final-table rows "
            f"{found['final_differences']}"]
    return "\n".join(out)


def differences(found: Dict[str, Any]) -> int:
    return sum(found[k] for k in ("lost", "duplicated", "orphans", "cursor_ahead", "final_differences"))


def run(work: Path, home: Path, dataset: str, target: str, rounds: int, seed: int, kill_probability: float,
        max_kills: int = 3, short: bool = False, spark=None, log=print, minutes: Optional[float] = None,
        table: Optional[Path] = None) -> Dict[str, Any]:
    """The whole chaos run; returns the checks' findings with the report under "report". `short`: one
    dbt job for every model, no second writers. `minutes`: no round starts after that time; `table`: a
    file the report is written to after every round and at the end."""
    started = time.monotonic()
    groups = {"all": [m for g in GROUPS.values() for m in g]} if short else GROUPS
    chaos = Chaos(work, home, dataset, target, random.Random(seed), kill_probability, max_kills, groups, log)
    chaos.second_writers = 0.0 if short else 0.3
    loads_seen = [os.getloadavg()[0]]
    original = chaos.run_jobs

    def sampled(jobs, faults):
        original(jobs, faults)
        loads_seen.append(os.getloadavg()[0])
    chaos.run_jobs = sampled
    if minutes is not None:
        chaos.deadline = started + minutes * 60
    if table is not None:
        chaos.after_round = lambda: table.write_text(report(chaos, None, time.monotonic() - started, loads_seen) + "\n")
    chaos.run(rounds)
    if spark is None:
        from python_extract.lakehouse import LakehouseConfig, get_session

        spark = get_session(LakehouseConfig.from_env(home=home))
    found = check(spark, chaos)
    found["kills"] = sum(chaos.tally.kills.values())
    found["report"] = report(chaos, found, time.monotonic() - started, loads_seen)
    if table is not None:
        table.write_text(found["report"] + "\n")
    return found


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    child = sub.add_parser("extract", help="(a job's process) one extraction reporting its stages")
    for name in ("work", "home", "dataset", "pipeline", "stage-file"):
        child.add_argument(f"--{name}", required=True)
    child.add_argument("--upto", type=int, required=True)
    child.add_argument("--slow-landing", type=float, default=0.0, help="seconds to sleep after the first table landed")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kill-probability", type=float, default=0.8)
    parser.add_argument("--max-kills", type=int, default=4, help="kills per job at most (default 4)")
    parser.add_argument("--minutes", type=float, help="start no round after this many minutes; then the checks")
    parser.add_argument("--table", type=Path, help="write the table here after every round and at the end")
    parser.add_argument("--short", action="store_true", help="the CI run: 1 round, every job killed once")
    parser.add_argument("--work", help="working directory (default: a new temporary one, removed afterwards)")
    args = parser.parse_args(argv)
    if args.command == "extract":
        from python_extract.errors import PipelineLocked

        try:
            extract(Path(args.work), Path(args.home), args.dataset, args.pipeline, args.upto, Path(args.stage_file),
                    args.slow_landing)
        except PipelineLocked as e:  # as the CLI: exit 4, busy (a second writer, or a job meeting one)
            print(f"busy: {e}", file=sys.stderr)
            return 4
        return 0
    rounds, probability, kills = (1, 1.0, 1) if args.short else (args.rounds, args.kill_probability, args.max_kills)
    work = Path(args.work or tempfile.mkdtemp(prefix="sparkload-chaos-"))
    try:
        found = run(work, work / "lake", "chaos_raw", "chaos", rounds, args.seed, probability, kills, args.short,
                    minutes=args.minutes, table=args.table)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print(found["report"])
    return 0 if differences(found) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
