"""sparkload's side of the differential scenarios, batched: every scenario of a batch lands into one
staging dataset through one pipeline (a resource per scenario, tables `p<NNN>_<table>`), and is
applied by its own models (`p<NNN>_<table>`, one per root and child table) of one generated dbt
project. Load step N of all scenarios is one extractor run and one `dbt run`.

Per step:
1. extract: one run with the resources of every scenario that has a load N; a load declared to fail
   (`L(..., fails=True)`) runs alone afterwards, and when the shared run fails, every scenario's load
   runs alone, so one bad load fails only its own scenario;
2. models: a model per staging table of each scenario (a child model per child table), written with
   the load's config (its scd2 boundary, a disposition switch); `dbt run` on the embedded target
   selects the models of the scenarios that had a load;
3. a model that refuses a load fails its scenario's step; the load is aborted
   (`sparkload pipeline loads --abort`), so the scenario's next load is applied;
4. snapshot: every table of the scenarios of this step, read in one query.
"""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .compare import Snapshot
from .parity_scenario import Scenario, model_config

SOURCE = "parity"
TS_FORMAT = "'ts:'yyyy-MM-dd HH:mm:ss.SSSSSS"
DATE_FORMAT = "'d:'yyyy-MM-dd"
INTERPRETER_BUG = "AST constructor recursion depth mismatch"  # CPython gh-106905, in dbt run with threads


@dataclass
class StepResult:
    load_id: Optional[str] = None
    error: Optional[str] = None
    tables: Snapshot = field(default_factory=dict)


@dataclass
class Timing:
    extract: float = 0.0
    dbt: float = 0.0
    snapshot: float = 0.0

    def __str__(self) -> str:
        return f"extract {self.extract:.0f}s, dbt {self.dbt:.0f}s, snapshot {self.snapshot:.0f}s"


def _jinja(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, bool) else ("true" if value else "false")


class SparkBatch:
    def __init__(self, spark, lakehouse, workdir: Path, scenarios: List[Scenario], dataset: str, schema: str,
                 threads: int = 4):
        self.spark, self.lakehouse, self.workdir = spark, lakehouse, Path(workdir)
        self.scenarios, self.dataset, self.schema, self.threads = scenarios, dataset, schema, threads
        self.prefix = {s.name: f"p{i:03d}" for i, s in enumerate(scenarios)}
        self.results: Dict[str, List[StepResult]] = {s.name: [] for s in scenarios}
        self.models: Dict[str, str] = {}  # model name -> file text
        self.timing = Timing()
        self.project = self.workdir / "project"
        self._pipeline = None

    # -- setup -------------------------------------------------------------------------------------
    @property
    def pipeline(self):
        import python_extract as sl

        if self._pipeline is None:
            self._pipeline = sl.pipeline(pipeline_name=self.dataset, dataset_name=self.dataset, lakehouse=self.lakehouse,
                                         pipelines_dir=str(self.workdir / "pipelines"))
        return self._pipeline

    def _write_project(self) -> None:
        from tests.support.paths import REPO

        shutil.rmtree(self.project, ignore_errors=True)
        (self.project / "models").mkdir(parents=True)
        (self.project / "dbt_project.yml").write_text(
            "name: sparkload_parity\nversion: '0.1.0'\nconfig-version: 2\nprofile: sparkload_parity\nmodel-paths: [models]\n")
        (self.project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
        (self.project / "profiles.yml").write_text(
            "sparkload_parity:\n  target: embedded\n  outputs:\n    embedded:\n      type: sparkload\n      method: embedded\n"
            f"      schema: {self.schema}\n      lakehouse_dir: {self.lakehouse.home}\n      threads: {self.threads}\n")
        self._dbt("deps")

    def _dbt(self, *args: str):
        from dbt.cli.main import dbtRunner

        cli = [*args, "--project-dir", str(self.project), "--profiles-dir", str(self.project)]
        return dbtRunner().invoke(cli)

    # -- a step ------------------------------------------------------------------------------------
    def run(self) -> Dict[str, List[StepResult]]:
        self._write_project()
        steps = max(len(s.loads) for s in self.scenarios)
        for k in range(steps):
            active = [s for s in self.scenarios if k < len(s.loads)]
            t0 = time.monotonic()
            loads = self._extract(k, active)
            t1 = time.monotonic()
            errors = self._apply(k, active, loads)
            t2 = time.monotonic()
            snaps = self._snapshot(active)
            self.timing.extract += t1 - t0
            self.timing.dbt += t2 - t1
            self.timing.snapshot += time.monotonic() - t2
            for s in active:
                self.results[s.name].append(StepResult(loads.get(s.name, (None, None))[0],
                                                       loads.get(s.name, (None, None))[1] or errors.get(s.name),
                                                       snaps.get(s.name, {})))
        return self.results

    def _resource(self, s: Scenario, k: int):
        from python_extract import Resource

        hints = s.hints_at(k)
        return Resource(list(s.loads[k].rows), f"{self.prefix[s.name]}_{s.table}", **hints)

    def _extract(self, k: int, active: List[Scenario]) -> Dict[str, Tuple[Optional[str], Optional[str]]]:
        """{scenario: (load id, extract error)} of load k: one run for all, a load declared to fail alone."""
        out: Dict[str, Tuple[Optional[str], Optional[str]]] = {}
        self._run_group(k, [s for s in active if not s.loads[k].fails], out)
        for s in active:
            if s.loads[k].fails:
                self._run_group(k, [s], out)
        return out

    def _run_group(self, k: int, group: List[Scenario], out: Dict[str, Tuple[Optional[str], Optional[str]]]) -> None:
        """One run of the group's resources; when it fails, each half runs again, down to the scenario
        whose load fails."""
        if not group:
            return
        try:
            info = self.pipeline.run([self._resource(s, k) for s in group])
            out.update({s.name: (info.load_id, None) for s in group})
        except Exception as e:  # noqa: BLE001 - a failing load is a result to compare
            self._drop_pending()
            if len(group) == 1:
                out[group[0].name] = (None, f"extract: {type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}")
                return
            half = len(group) // 2
            self._run_group(k, group[:half], out)
            self._run_group(k, group[half:], out)

    def _drop_pending(self) -> None:
        for package in self.pipeline.packages.pending():
            shutil.rmtree(package.root, ignore_errors=True)

    def _staging_tables(self) -> List[str]:
        rows = self.spark.sql(f"show tables in `{self.dataset}`").collect()
        return sorted(r["tableName"] for r in rows if not r["tableName"].startswith("_"))

    def _model_text(self, s: Scenario, k: int, table: str) -> str:
        root = f"{self.prefix[s.name]}_{s.table}"
        if table != root:
            return (f"{{{{ config(materialized='sparkload', root_model='{root}') }}}}\n"
                    f"-- depends_on: {{{{ ref('{root}') }}}}\n"
                    f"select * from {{{{ source('{SOURCE}', '{table}') }}}}\n")
        cfg = model_config(s.hints_at(k))
        args = "".join(f", {key}={_jinja(value)}" for key, value in cfg.items())
        return f"{{{{ config(materialized='sparkload'{args}) }}}}\nselect * from {{{{ source('{SOURCE}', '{table}') }}}}\n"

    def _apply(self, k: int, active: List[Scenario], loads) -> Dict[str, str]:
        """Writes the models of load k and runs them; {scenario: error} of the models that failed."""
        tables = self._staging_tables()
        sources = "version: 2\nsources:\n  - name: %s\n    schema: %s\n    tables:\n%s" % (
            SOURCE, self.dataset, "".join(f"      - name: {t}\n" for t in tables))
        (self.project / "models" / "sources.yml").write_text(sources)
        selected: Dict[str, str] = {}
        for s in active:
            if loads.get(s.name, (None, None))[0] is None:
                continue
            prefix = self.prefix[s.name]
            root = f"{prefix}_{s.table}"
            for table in tables:
                if table == root or table.startswith(root + "__"):
                    text = self._model_text(s, k, table)
                    if self.models.get(table) != text:
                        (self.project / "models" / f"{table}.sql").write_text(text)
                        self.models[table] = text
                    selected[table] = s.name
        if not selected:
            return {}
        result = self._dbt("run", "--quiet", "--select", *sorted(selected), "--target", "embedded")
        errors: Dict[str, str] = {}
        if result.result is None:
            msg = f"dbt: {result.exception}"
            return {name: msg for name in selected.values()}
        results = {r.node.name: r for r in result.result.results}
        if any(INTERPRETER_BUG in (r.message or "") for r in results.values()):
            # CPython 3.11's compiler, hit by dbt threads compiling Jinja at once, fails a model before
            # it runs any SQL: run the models that did not succeed again, in one thread
            again = [name for name, r in results.items() if str(r.status) not in ("success", "RunStatus.Success")]
            rerun = self._dbt("run", "--quiet", "--threads", "1", "--select", *sorted(again), "--target", "embedded")
            if rerun.result is not None:
                results.update({r.node.name: r for r in rerun.result.results})
        for r in results.values():
            status = str(r.status)
            if status not in ("success", "RunStatus.Success"):
                name = selected.get(r.node.name)
                if name and name not in errors:
                    errors[name] = f"dbt {status} {r.node.name}: {' '.join((r.message or '').split())[:600]}"
        for name in errors:
            load_id = loads.get(name, (None, None))[0]
            if load_id:
                self._abort(load_id)
        return errors

    def _abort(self, load_id: str) -> None:
        from python_extract.load import destination

        destination.abort_load(self.spark, self.dataset, load_id)

    def _snapshot(self, active: List[Scenario]) -> Dict[str, Snapshot]:
        existing = {r["tableName"] for r in self.spark.sql(f"show tables in `{self.schema}`").collect()}
        wanted: List[Tuple[str, str, str]] = []  # (scenario, table as dlt names it, model)
        for s in active:
            prefix = self.prefix[s.name] + "_"
            for model in sorted(existing):
                if model == prefix + s.table or model.startswith(prefix + s.table + "__"):
                    wanted.append((s.name, model[len(prefix):], model))
        out: Dict[str, Snapshot] = {s.name: {} for s in active}
        opts = f"map('timestampFormat', \"{TS_FORMAT}\", 'dateFormat', \"{DATE_FORMAT}\", 'ignoreNullFields', 'false')"
        for i in range(0, len(wanted), 40):
            chunk = wanted[i:i + 40]
            sql = " union all ".join(
                f"select {n} as `i`, to_json(struct(*), {opts}) as `j` from `{self.schema}`.`{model}`"
                for n, (_, _, model) in enumerate(chunk, i))
            for name, table, _ in chunk:
                out[name].setdefault(table, [])
            for row in self.spark.sql(sql).collect():
                name, table, _ = wanted[row["i"]]
                out[name][table].append(_normal_row(json.loads(row["j"])))
        return out


def _normal_row(row: Dict[str, Any]) -> Dict[str, Any]:
    from .compare import normal_value

    return {k: normal_value(v) for k, v in row.items()}
