"""`sparkload lakehouse maintain`: table maintenance of whole datasets, by the same macros a model's
`maintenance` config runs (macros/helpers/maintenance.sql), so the thresholds and statements have one
home. It lists the tables here, then runs the dbt operation `sparkload_maintain` in this process on
the lakehouse's session (the adapter's `embedded` method, in a throwaway dbt project) and reads the
report each table logs.

A dataset is maintained in one dbt invocation; when that fails (say a commit conflict the format could
not resolve), its tables are retried one by one, once, and a table that fails again is reported as
skipped with its error, so one busy table never stops the others.

A dry run changes nothing, so given a session on the lakehouse's running warm server (`warm`: the CLI
passes one when a server runs, runtime/warm.py) it lists the tables there and sends the operation to the
server's own dbt process (runtime/warm_dbt.py), which holds this project parsed and re-parses it when one
of its files changed: no JVM starts here, and no dbt either. When that process does not answer, dbt runs
here over thrift on the server (the adapter's `thrift` method), as it did before the server had one. Either
way, a log line says who ran the operation and where its time went (shown with --verbose).

Errors: `MaintenanceError` (the policy is invalid, checked before Spark starts by policy.py, or dbt could
not start).
"""
from __future__ import annotations

import json
import logging
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from ..contract import MAINTENANCE_ACTION_KEYS, MAINTENANCE_LOG_PREFIX, MAINTENANCE_REPORT_KEYS
from ..errors import ConfigError
from ..lakehouse import LakehouseConfig, get_session, session_format
from .catalog import lakehouse_tables

log = logging.getLogger("sparkload.maintenance")
# sparkload's own project, run on the user's behalf: it sends no usage events of its own (nor writes their cookie)
PROJECT = ("name: sparkload_maintenance\nversion: '1.0.0'\nconfig-version: 2\nprofile: sparkload_maintenance\n"
           "flags:\n  send_anonymous_usage_stats: false\n")


class MaintenanceError(ConfigError):
    """Maintenance could not run at all (an invalid policy, dbt failing to start)."""


def maintain(
    config: Optional[LakehouseConfig] = None,
    datasets: Optional[Iterable[str]] = None,
    dry_run: bool = False,
    policy: Any = True,
    on_report: Optional[Callable[[Dict[str, Any]], None]] = None,
    warm: Any = None,
) -> List[Dict[str, Any]]:
    """Maintain every table of `datasets` (default: all) by `policy`; one report per table. A dry run given
    `warm` (a `runtime.warm.WarmSession` on the lakehouse's running warm server) runs on it instead of a
    session here; a run that changes tables always runs here.

    >>> reports = maintain(LakehouseConfig.from_env(), datasets=["shop_raw"], dry_run=True)
    >>> [r["table"] for r in reports if r["actions"]]     # tables with something to do
    """
    from .policy import check_policy  # imported here: it imports this module's error

    check_policy(policy)  # before the session starts: a bad policy fails in a second, once
    config = config or LakehouseConfig.from_env()
    warm = warm if dry_run else None
    started = time.monotonic()
    spark = warm if warm is not None else get_session(config)
    if warm is None:  # a warm session's caller said where the answer comes from (cli_pipeline.warm_session): once
        log.info("started Spark%s in %.1f s", " (no warm server runs)" if dry_run else "", time.monotonic() - started)
    file_format = session_format(spark)
    found = lakehouse_tables(spark, datasets)
    reports: List[Dict[str, Any]] = []
    here = _runner_here(_project(config, warm.endpoint if warm is not None else None))
    run = here if warm is None else (lambda macro, args: warm.run_operation(macro, args) or here(macro, args))
    for dataset, tables in found.items():
        names = [f"{dataset}.{t}" for t in tables]
        if not names:
            continue
        done, error = _operation(run, names, file_format, policy, dry_run)
        if error is not None:
            done = []
            for name in names:  # one by one, twice at most: a failure skips only its table
                got, error = _operation(run, [name], file_format, policy, dry_run)
                if error is not None:
                    got, error = _operation(run, [name], file_format, policy, dry_run)
                done += got or [{"table": name, "format": file_format, "actions": [], "skipped": error}]
        for report in done:
            reports.append(report)
            if on_report:
                on_report(report)
    return reports


def describe(report: Dict[str, Any]) -> str:
    """One line per table: what was done (or would be, in a dry run) and why.

    >>> describe({"table": "raw.items", "actions": [], "health": {"data_files": 3}})
    'raw.items: nothing to do (3 data files, 0 delete files)'
    """
    if report.get("skipped"):
        return f"{report['table']}: skipped, {report['skipped']}"
    health = report.get("health", {})
    deletes = ("deletion_vectors", "deletion vectors") if report.get("format") == "delta" else ("delete_files", "delete files")
    state = f"{health.get('data_files', 0)} data files, {health.get(deletes[0], 0)} {deletes[1]}"
    if not report["actions"]:
        return f"{report['table']}: nothing to do ({state})"
    verb = "would run" if report.get("dry_run") else "ran"
    steps = []
    for action in report["actions"]:
        result = action.get("result")
        shown = ", ".join(f"{k} {v}" for k, v in result.items() if v not in (0, "0")) if result else ""
        steps.append(f"{action['action']} ({action['why']}{'; ' + shown if shown else ''})")
    return f"{report['table']} ({state}): {verb} " + "; ".join(steps)


_PROJECTS: Dict[Path, tempfile.TemporaryDirectory] = {}


def _project(config: LakehouseConfig, warm=None) -> Path:
    """A dbt project with no models, whose profile is the embedded adapter on this lakehouse (or, given
    the `warm` server's endpoint, the adapter over thrift on it); one per lakehouse and process."""
    if config.home not in _PROJECTS:
        _PROJECTS[config.home] = tempfile.TemporaryDirectory(prefix="sparkload-maintain-")
    if warm is not None:
        return write_project(Path(_PROJECTS[config.home].name), thrift_output(warm.host, warm.port))
    # the session's own settings, so dbt's adapter finds this process's session the same one (a process
    # holds one lakehouse session) rather than refusing a config that differs from it
    output = {"type": "sparkload", "method": "embedded", "schema": "default", "threads": 1,
              "lakehouse_dir": str(config.home), "master": config.master, "spark_conf": dict(config.spark_conf)}
    if config.jars_dir:
        output["jars_dir"] = str(config.jars_dir)
    return write_project(Path(_PROJECTS[config.home].name), output)


def thrift_output(host: str, port: int) -> Dict[str, Any]:
    """The profile output of the adapter over thrift on a server at host:port."""
    return {"type": "sparkload", "method": "thrift", "host": host, "port": port, "user": "sparkload",
            "schema": "default", "threads": 1}


def write_project(root: Path, output: Dict[str, Any]) -> Path:
    """Write the operations' dbt project (no models; its profile is `output`) into `root`; `root`. The warm
    server's dbt keeps one parsed (runtime/warm_dbt.py)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "dbt_project.yml").write_text(PROJECT)
    profile = {"sparkload_maintenance": {"target": "embedded", "outputs": {"embedded": output}}}
    (root / "profiles.yml").write_text(json.dumps(profile))
    return root


def dbt_command(project: Path, command: List[str]) -> List[str]:
    """dbt's arguments for `command` (["parse"], ["run-operation", macro, "--args", json]) on `project`."""
    return [*command, "--project-dir", str(project), "--profiles-dir", str(project), "--quiet"]


def _runner_here(project: Path) -> Callable[[str, Dict[str, Any]], Dict[str, Any]]:
    """Runs an operation by dbt in this process, on `project`; its answer as the warm server's dbt gives it."""
    def run(macro: str, args: Dict[str, Any]) -> Dict[str, Any]:
        from dbt.cli.main import dbtRunner

        started = time.monotonic()
        lines: List[Tuple[str, str]] = []
        result = dbtRunner(callbacks=[lambda event: lines.append((event.info.level, event.info.msg or ""))]).invoke(
            dbt_command(project, ["run-operation", macro, "--args", json.dumps(args)]))
        log.info("dbt run-operation %s ran in this process in %.1f s (dbt's start and parse included)", macro,
                 time.monotonic() - started)
        return {"success": result.success, "exception": None if result.exception is None else str(result.exception),
                "lines": lines}
    return run


def _operation(run: Callable[[str, Dict[str, Any]], Dict[str, Any]], tables: List[str], file_format: str,
               policy: Any, dry_run: bool):
    """(reports, None) after the operation `sparkload_maintain` (run by `run`: here, or on the warm server's
    dbt), or (None, its error in one line)."""
    args = {"tables": tables, "file_format": file_format, "policy": policy, "dry_run": dry_run}
    result = run("sparkload_maintain", args)
    reports: List[Dict[str, Any]] = []
    errors: List[str] = []
    for level, msg in result["lines"]:
        report = report_of_line(msg)
        if report is not None:
            reports.append(report)
        elif level == "error" and msg.strip():
            errors.append(msg.strip())
    if result["success"]:
        return reports, None
    if result["exception"] is not None:  # dbt itself did not start: nothing ran
        raise MaintenanceError(f"dbt run-operation sparkload_maintain could not run: {_first_line(result['exception'])}")
    error = errors[-1] if errors else "dbt run-operation failed"
    invalid = [line.strip() for line in error.splitlines() if "is not valid; expected" in line]
    if invalid:  # the policy: the same for every table
        raise MaintenanceError(invalid[0])
    return None, _first_line(error)


def report_of_line(line: str) -> Optional[Dict[str, Any]]:
    """The report a maintenance log line carries (contract.MAINTENANCE_LOG_PREFIX, then the report as JSON), or
    None for another line; `MaintenanceError` for a line whose report lacks a key of the contract's.

    >>> report_of_line('sparkload maintenance {"table": "raw.t", "format": "delta", "health": {}, "dry_run": false, "actions": []}')["table"]
    'raw.t'
    """
    if not line.startswith(MAINTENANCE_LOG_PREFIX):
        return None
    report = json.loads(line[len(MAINTENANCE_LOG_PREFIX):])
    missing = [key for key in MAINTENANCE_REPORT_KEYS if key not in report]
    missing += [f"actions[{n}].{key}" for n, action in enumerate(report.get("actions") or [])
                for key in MAINTENANCE_ACTION_KEYS if key not in action]
    if missing:
        raise MaintenanceError(f"the maintenance log line of {report.get('table', '?')} lacks {', '.join(missing)} "
                               "(contract.MaintenanceReport): the macros and this package differ in version")
    return report


def _first_line(error: str) -> str:
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    found = [line for line in lines if "Exception" in line or "Error" in line]
    return (found or lines or ["unknown error"])[0][:500]
