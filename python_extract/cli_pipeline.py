"""The extractor's subcommands of `sparkload` (a leaf, like cli.py: parse, call the library, print).

    sparkload run TARGET [--pipeline-name N] [--dataset-name D] [--resource R ...] [--arg K=V ...]
    sparkload pipeline info NAME       state, cursors, pending packages and the last loads
    sparkload pipeline loads NAME      completed loads with status and row counts per table
    sparkload pipeline reset NAME      wipe the state of resources (all, or --resource R ...)
    sparkload pipeline drop NAME       wipe the state of --resource R ... and, with --drop-tables, their tables

TARGET is `module:attribute` (or `path/to/file.py:attribute`) naming a source, a resource, or a function
returning one (called with the `--arg` values), or a pipeline YAML file:

    pipeline_name: github            # keys mirror the options
    dataset_name: github_raw
    source: my_sources.github:github_source
    args: {org: acme}
    resources: [issues]
    lakehouse: {home: /data/lake, table_format: iceberg}

Exit codes: 0 done, 1 a pipeline step failed, 2 bad arguments or configuration; failures print one line.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import yaml

from .errors import ConfigFieldMissing, IncrementalError, PipelineStepFailed, SparkloadError
from .lakehouse import LakehouseConfig, LakehouseConfigError
from .sources.registry import SourceConfigError, UnknownSource


class UsageError(Exception):
    """A bad target or argument: exit code 2."""


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 400 else text[:397] + "..."


def _guarded(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except PipelineStepFailed as e:
            print(f"sparkload: {_one_line(e)}", file=sys.stderr)
            return 1
        except (UsageError, ConfigFieldMissing, IncrementalError, LakehouseConfigError, SourceConfigError,
                UnknownSource, ValueError, TypeError) as e:
            print(f"sparkload: {_one_line(e)}", file=sys.stderr)
            return 2
        except SparkloadError as e:
            print(f"sparkload: {_one_line(e)}", file=sys.stderr)
            return 1
    return run


class Progress:
    """Rows and pages per table while extracting, tables landed per load, and a closing summary; one
    refreshed line on a terminal, a line every few seconds otherwise."""

    def __init__(self, stream=None, every: Optional[float] = None):
        self.stream = stream = stream or sys.stderr
        self.tty = stream.isatty()
        self.every = every if every is not None else (0.2 if self.tty else 5.0)
        self.started = time.monotonic()
        self._last = 0.0
        self._open = False
        self._first: Optional[float] = None

    def attach(self, hooks) -> None:
        hooks.register("progress", self.on_progress)
        hooks.register("table_landed", self.on_table)
        hooks.register("load_completed", self.on_load)

    def _show(self, text: str, force: bool = False, final: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.every:
            return
        self._last = now
        if self.tty:
            self.stream.write("\r\x1b[2K" + text + ("\n" if final else ""))
            self._open = not final
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def on_progress(self, resource: str, tables: Dict[str, int], rows: int, pages: int) -> None:
        if self._first is None:
            self._first = time.monotonic()
        elapsed = max(time.monotonic() - self._first, 1e-6)
        counts = ", ".join(f"{t} {n:,}" for t, n in tables.items()) or "0 rows"
        self._show(f"extract {resource}: {counts} rows | {pages:,} pages | {rows / elapsed:,.0f} rows/s")

    def on_table(self, package, table: str) -> None:
        tables = package.tables()
        done = sum(package.is_landed(t) for t in tables)
        bar = "#" * int(20 * done / max(len(tables), 1))
        self._show(f"load {package.load_id}: [{bar:<20}] {done}/{len(tables)} tables ({table})", force=True)

    def on_load(self, package) -> None:
        self._show(f"load {package.load_id}: complete", force=True, final=True)

    def close(self) -> None:
        if self.tty and self._open:
            self.stream.write("\n")


def _import_target(spec: str) -> Any:
    module_name, sep, attribute = spec.partition(":")
    if not sep or not attribute:
        raise UsageError(f"target {spec!r}: expected module:attribute, path/to/file.py:attribute or a .yaml file")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name).resolve()
            loaded = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(loaded)
            sys.modules[path.stem] = module
            loaded.loader.exec_module(module)
        else:
            sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_name)
        return getattr(module, attribute)
    except (ImportError, AttributeError, FileNotFoundError) as e:
        raise UsageError(f"target {spec!r}: {type(e).__name__}: {e}") from e


def _kv(text: str) -> Tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, yaml.safe_load(value)


def _run_settings(args: argparse.Namespace) -> Dict[str, Any]:
    """Options merged over the pipeline YAML (options win)."""
    settings: Dict[str, Any] = {}
    target = args.target
    if target.endswith((".yaml", ".yml")):
        path = Path(target)
        if not path.exists():
            raise UsageError(f"pipeline file {target} does not exist")
        settings = yaml.safe_load(path.read_text()) or {}
        if "source" not in settings:
            raise UsageError(f"pipeline file {target}: missing key 'source' (module:attribute, or a plugin {{type, config}})")
    else:
        settings["source"] = target
    settings.setdefault("args", {}).update(dict(args.arg))
    for key in ("pipeline_name", "dataset_name", "pipelines_dir", "table_name", "write_disposition"):
        if getattr(args, key, None):
            settings[key] = getattr(args, key)
    if args.resource:
        settings["resources"] = args.resource
    lakehouse = settings.setdefault("lakehouse", {})
    for key in ("home", "table_format", "jars_dir", "master"):
        if getattr(args, key, None):
            lakehouse[key] = getattr(args, key)
    return settings


def _data(settings: Dict[str, Any]) -> Any:
    from .extract import Resource, Source

    if isinstance(settings["source"], dict):  # a source plugin: {type, name, config}
        from .sources.registry import build_source

        return build_source(settings["source"])
    data = _import_target(settings["source"])
    if callable(data) and not isinstance(data, (Resource, Source)):
        data = data(**settings.get("args", {}))
    elif settings.get("args"):
        data = data(**settings["args"])
    if settings.get("resources"):
        if not isinstance(data, Source):
            raise UsageError("--resource selects resources of a source; the target is not a source")
        data = data.with_resources(*settings["resources"])
    return data


def _pipeline(name: str, dataset: Optional[str], lakehouse: Dict[str, Any], pipelines_dir: Optional[str] = None):
    from .pipeline import pipeline

    config = LakehouseConfig.from_env(**{k: v for k, v in lakehouse.items() if v is not None})
    return pipeline(pipeline_name=name, dataset_name=dataset, pipelines_dir=pipelines_dir, lakehouse=config)


@_guarded
def _cmd_run(args: argparse.Namespace) -> int:
    settings = _run_settings(args)
    data = _data(settings)
    name = settings.get("pipeline_name") or getattr(data, "name", None) or Path(settings["source"].split(":")[0]).stem
    pipe = _pipeline(name, settings.get("dataset_name"), settings["lakehouse"], settings.get("pipelines_dir"))
    progress = None
    if not args.no_progress:
        progress = Progress()
        progress.attach(pipe.hooks)
    started = time.monotonic()
    try:
        info = pipe.run(data, table_name=settings.get("table_name"), write_disposition=settings.get("write_disposition"))
    finally:
        if progress:
            progress.close()
    elapsed = time.monotonic() - started
    rows = sum(info.row_counts.values())
    tables = ", ".join(f"{t} {n:,}" for t, n in info.row_counts.items()) or "no rows"
    print(f"pipeline {pipe.pipeline_name}: {len(info.load_ids)} load(s) into {pipe.dataset_name} in {elapsed:.1f}s "
          f"({rows:,} rows: {tables})")
    for load_id in info.load_ids:
        print(f"  load {load_id} complete")
    return 0


def _named_pipeline(args: argparse.Namespace):
    lakehouse = {k: getattr(args, k, None) for k in ("home", "table_format", "jars_dir", "master")}
    return _pipeline(args.name, args.dataset_name, lakehouse, args.pipelines_dir)


@_guarded
def _cmd_info(args: argparse.Namespace) -> int:
    pipe = _named_pipeline(args)
    pipe.sync_destination()
    pending = pipe.packages.pending()
    print(f"pipeline {pipe.pipeline_name}: dataset {pipe.dataset_name}, working dir {pipe.working_dir}")
    print(f"pending packages: {', '.join(p.load_id for p in pending) or 'none'}")
    states = pipe.resource_states()
    print("resources:" if states else "resources: no state")
    for name, rstate in states.items():
        print(f"  {name}")
        for path, entry in rstate.get("incremental", {}).items():
            print(f"    cursor {path}: last_value {entry.get('last_value')!r} "
                  f"(initial {entry.get('initial_value')!r}, {len(entry.get('unique_hashes', []))} boundary keys)")
        for argument, saved in rstate.get("windows", {}).items():
            print(f"    windows {argument}: last completed window ends {saved.get('last_end')}")
        if not rstate:
            print("    (empty: reset)")
    recent = pipe.loads()[-5:]
    print("last loads:" if recent else "last loads: none")
    for load in recent:
        print(f"  {_load_line(load)}")
    return 0


def _load_line(load: Dict[str, Any]) -> str:
    counts = ", ".join(f"{t} {n:,}" for t, n in sorted(load["row_counts"].items())) or "state only"
    return f"{load['load_id']}  status {load['status']}  {load['inserted_at']:%Y-%m-%d %H:%M:%S}  {counts}"


@_guarded
def _cmd_loads(args: argparse.Namespace) -> int:
    pipe = _named_pipeline(args)
    pipe.sync_destination()
    found = pipe.loads()
    if not found:
        print(f"pipeline {pipe.pipeline_name}: no completed loads in {pipe.dataset_name}")
    for load in found:
        print(_load_line(load))
    return 0


@_guarded
def _cmd_reset(args: argparse.Namespace) -> int:
    pipe = _named_pipeline(args)
    if args.command_name == "drop" and not args.resource:
        raise UsageError("pipeline drop needs --resource NAME (use `pipeline reset` to wipe every resource)")
    info = pipe.reset(args.resource or None, drop_tables=getattr(args, "drop_tables", False))
    what = ", ".join(args.resource) if args.resource else "every resource"
    print(f"pipeline {pipe.pipeline_name}: state of {what} wiped in load {info.load_id}")
    for dropped in info.row_counts:
        print(f"  {dropped}")
    return 0


def _lakehouse_options(p: argparse.ArgumentParser, lakehouse_args: Callable[[argparse.ArgumentParser], None]) -> None:
    lakehouse_args(p)
    p.add_argument("--pipelines-dir", help="where load packages are kept (default <home>/pipelines)")


def add_pipeline_commands(sub, lakehouse_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add `run` and `pipeline {info,loads,reset,drop}` to the `sparkload` parser."""
    run = sub.add_parser("run", help="run a pipeline: extract, normalise and land a source",
                         description="Land pending packages, restore state from the lakehouse, then extract TARGET "
                                     "into load packages and land them. Shows progress and a closing summary.")
    run.add_argument("target", help="module:attribute, path/to/file.py:attribute, or a pipeline .yaml file")
    run.add_argument("--pipeline-name", help="pipeline name (default: the source's name)")
    run.add_argument("--dataset-name", help="staging dataset (default <pipeline_name>_dataset)")
    run.add_argument("--resource", action="append", metavar="NAME", help="run only this resource of the source (repeatable)")
    run.add_argument("--arg", type=_kv, action="append", default=[], metavar="KEY=VALUE",
                     help="argument of the source function, YAML-typed (repeatable), e.g. --arg org=acme")
    run.add_argument("--table-name", help="table name for a single resource or plain data")
    run.add_argument("--write-disposition", choices=["append", "replace", "merge"], help="override the resources' disposition")
    run.add_argument("--no-progress", action="store_true", help="no progress display, only the summary")
    _lakehouse_options(run, lakehouse_args)
    run.set_defaults(func=_cmd_run)

    pipe = sub.add_parser("pipeline", help="inspect and maintain a pipeline's state and loads").add_subparsers(
        dest="action", required=True, metavar="ACTION", help="info | loads | reset | drop")
    for name, fn, text in (("info", _cmd_info, "state, cursors, pending packages and the last loads"),
                           ("loads", _cmd_loads, "completed loads with status and row counts per table"),
                           ("reset", _cmd_reset, "wipe the state of resources (all, or --resource ...)"),
                           ("drop", _cmd_reset, "wipe the state of --resource ... and, with --drop-tables, their tables")):
        p = pipe.add_parser(name, help=text, description=text)
        p.add_argument("name", help="pipeline name")
        p.add_argument("--dataset-name", help="staging dataset (default: the last run's on this machine, else <name>_dataset)")
        if name in ("reset", "drop"):
            p.add_argument("--resource", action="append", metavar="NAME", help="resource to wipe (repeatable)")
        if name == "drop":
            p.add_argument("--drop-tables", action="store_true", help="also drop the resource's staging tables")
        _lakehouse_options(p, lakehouse_args)
        p.set_defaults(func=fn, command_name=name)
