"""The extractor's subcommands of `sparkload` (a leaf, like cli.py: parse, call the library, print).

    sparkload run TARGET [--pipeline-name N] [--dataset-name D] [--resource R ...] [--arg K=V ...] [--wait S]
    sparkload pipeline info NAME       state, cursors, pending and failed packages and the last loads
    sparkload pipeline loads NAME      completed loads with status, row counts per table and the models that
                                       skipped them (dbt --vars sparkload_skip_loads); --abort LOAD_ID marks a
                                       load aborted (status -1): every sparkload model skips it
    sparkload pipeline packages NAME   pending, failed and loaded packages; --drop-failed, --drop-pending
    sparkload pipeline reset NAME      wipe the state of resources (--resource R ..., or all after asking)
    sparkload pipeline drop NAME       wipe the state of --resource R ... and, with --drop-tables, their tables
    sparkload pipeline expire NAME --older-than 7d [--dry-run]   delete staging rows every consuming model applied

TARGET is `module:attribute` (or `path/to/file.py:attribute`) naming a source, a resource, or a function
returning one (called with the `--arg` values), or a pipeline YAML file (pipeline_file.py: its keys,
checked before anything runs).

Writers (`run`, `reset`, `drop`, `packages --drop-*`) take the pipeline's lock: a second writer fails
at once naming the holder, or waits `--wait SECONDS`. Errors print one line; exit codes in errors.py.
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import yaml

from .contract import LOAD_STATUS_ABORTED, WRITE_DISPOSITIONS
from .errors import ConfigError, PipelineFileError, UnknownPipeline, did_you_mean
from .lakehouse import LakehouseConfig
from .packages import KEEP_LOADED
from .sources.registry import SourceConfigError

log = logging.getLogger("sparkload.cli")


class Progress:
    """Rows and pages per resource while extracting, tables landed per load, and a closing summary, shown
    with rich: one live line on a terminal, refreshed at most every `every` seconds (a resource's last
    count always); on a stream that is not a terminal (the library's callers; `sparkload run` shows none
    there) a plain line at most every `every` seconds. The rate is the resource's rows over the time
    since its extraction started, shown once a second has passed (earlier it would be noise)."""

    def __init__(self, stream=None, every: Optional[float] = None, clock: Callable[[], float] = time.monotonic):
        from rich.console import Console

        self.console = Console(file=stream or sys.stderr, highlight=False, markup=False, emoji=False)
        self.tty = self.console.is_terminal
        self.every = every if every is not None else (0.2 if self.tty else 5.0)
        self.clock = clock
        self._last = float("-inf")
        self._live = None
        self._started: Dict[str, Tuple[float, Dict[str, int]]] = {}  # resource: (start, the load's tables then)

    def attach(self, hooks) -> None:
        hooks.register("progress", self.on_progress)
        hooks.register("table_landed", self.on_table)
        hooks.register("load_completed", self.on_load)

    def _show(self, text: str, force: bool = False, final: bool = False) -> None:
        from rich.live import Live
        from rich.text import Text

        now = self.clock()
        if not force and now - self._last < self.every:
            return
        self._last = now
        if not self.tty:
            self.console.print(text, soft_wrap=True)  # a log line is never cut at a console width
            return
        line = Text(text, no_wrap=True, overflow="ellipsis")  # one terminal line, cut at its width
        if self._live is None:
            self._live = Live(line, console=self.console, auto_refresh=False, redirect_stdout=False,
                              redirect_stderr=False)
            self._live.start(refresh=True)
        else:
            self._live.update(line, refresh=True)
        if final:
            self.close()

    def line(self, resource: str, tables: Dict[str, int], rows: int, pages: int, done: bool = False) -> str:
        now = self.clock()
        started, before = self._started.setdefault(resource, (now, dict(tables)))
        if done:
            del self._started[resource]  # a later pass (a date window) starts its own clock
        # `tables` counts the whole load: show what this pass added (none once a checkpoint started a new load)
        added = {t: n - before.get(t, 0) for t, n in tables.items() if n > before.get(t, 0)}
        if any(n < before.get(t, 0) for t, n in tables.items()) or set(before) - set(tables):
            added = {}
        per_table = f" ({', '.join(f'{t} {n:,}' for t, n in added.items())})" if len(added) > 1 else ""
        text = f"extract {resource}: {rows:,} row{'s' * (rows != 1)}{per_table} | {pages:,} page{'s' * (pages != 1)}"
        if now - started >= 1.0:
            text += f" | {rows / (now - started):,.0f} rows/s"
        return text

    def on_progress(self, resource: str, tables: Dict[str, int], rows: int, pages: int, done: bool = False) -> None:
        self._show(self.line(resource, tables, rows, pages, done), force=done)

    def on_table(self, package, table: str) -> None:
        tables = package.tables()
        done = sum(package.is_landed(t) for t in tables)
        bar = "#" * int(20 * done / max(len(tables), 1))
        self._show(f"load {package.load_id}: [{bar:<20}] {done}/{len(tables)} tables ({table})", force=True)

    def on_load(self, package) -> None:
        self._show(f"load {package.load_id}: complete", force=True, final=True)

    def close(self) -> None:
        """End the live line (it stays on the terminal, followed by a newline)."""
        if self._live is not None:
            self._live.stop()
            self._live = None


def _kv(text: str) -> Tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, yaml.safe_load(value)
    except yaml.YAMLError:
        return key, value


LAKEHOUSE_OPTIONS = ("home", "table_format", "jars_dir", "master")


def _run_settings(args: argparse.Namespace) -> Dict[str, Any]:
    """Options merged over the pipeline YAML (options win), checked."""
    from .pipeline_file import merge_options, read_pipeline_file

    target = args.target
    is_file = target.endswith((".yaml", ".yml"))
    settings = read_pipeline_file(target) if is_file else {"source": target}
    options = {key: getattr(args, key, None) for key in ("pipeline_name", "dataset_name", "pipelines_dir", "table_name",
                                                          "write_disposition", "lock_wait", "keep_loaded_packages")}
    options.update(args=dict(args.arg), resources=args.resource or [],
                   lakehouse={k: getattr(args, k) for k in LAKEHOUSE_OPTIONS if getattr(args, k, None)})
    return merge_options(settings, options)


def _pipeline(name: str, dataset: Optional[str], lakehouse: Dict[str, Any], pipelines_dir: Optional[str] = None,
              **kw: Any):
    from .pipeline import pipeline

    config = LakehouseConfig.from_env(**{k: v for k, v in lakehouse.items() if v is not None})
    return pipeline(pipeline_name=name, dataset_name=dataset, pipelines_dir=pipelines_dir, lakehouse=config,
                    **{k: v for k, v in kw.items() if v is not None})


def _cmd_run(args: argparse.Namespace) -> int:
    from .pipeline_file import build_data, pipeline_name_of

    settings = _run_settings(args)
    given = dict(args.arg)
    from_file = args.target.endswith((".yaml", ".yml"))
    try:
        data = build_data(settings, lambda key: f"--arg {key}".rstrip() if key in given or not from_file
                          else f"{args.target}: args.{key}".rstrip("."))
    except SourceConfigError as e:
        if not from_file:
            raise
        raise PipelineFileError(args.target, "", "; ".join(e.problems)) from e
    pipe = _pipeline(pipeline_name_of(settings, data), settings.get("dataset_name"), settings.get("lakehouse") or {},
                     settings.get("pipelines_dir"), lock_wait=settings.get("lock_wait"),
                     keep_loaded_packages=settings.get("keep_loaded_packages"))
    progress = None
    if not args.no_progress and sys.stderr.isatty():
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


def _named_pipeline(args: argparse.Namespace, read_only: Optional[bool] = None):
    """The pipeline `args.name` names. For a command that reads the lakehouse, its session now: when it
    only reads (`read_only`), the lakehouse's warm server if one runs (runtime/warm.py: no JVM starts
    here), else Spark started here, its start-up time logged (shown with --verbose) so that a slow small
    command says where its time went. None: the session starts when first used, if ever."""
    from .pipeline_file import check_pipeline_name

    lakehouse = {k: getattr(args, k, None) for k in LAKEHOUSE_OPTIONS}
    pipe = _pipeline(check_pipeline_name(args.name, "NAME"), args.dataset_name, lakehouse, args.pipelines_dir,
                     lock_wait=getattr(args, "lock_wait", None))
    if read_only is None:
        return pipe
    warm = warm_session(pipe.lakehouse) if read_only and not pipe.lakehouse.spark_remote else None  # remote: its server
    if warm is not None:
        pipe._spark = warm  # the pipeline's lazily started session, answered by the warm server instead
        return pipe
    started = time.monotonic()
    pipe.spark  # noqa: B018 - started here to time it
    log.info("started Spark in %.1f s (%s)", time.monotonic() - started,
             "a command that writes runs its own session" if not read_only else
             f"no warm server runs for lakehouse {pipe.lakehouse.home}; a dbt run with `warm: true` starts one")
    return pipe


def warm_session(config: LakehouseConfig):
    """A session on the lakehouse's running warm server, or None (none runs, or it does not answer)."""
    from .runtime.warm import WarmServerError, WarmSession, running_server

    endpoint = running_server(config.home)
    if endpoint is None:
        return None
    started = time.monotonic()
    try:
        session = WarmSession.connect(endpoint, config.home)
    except (WarmServerError, OSError, EOFError, ImportError) as e:
        log.info("the warm server pid %d on %s:%d did not answer (%s); starting Spark here", endpoint.pid,
                 endpoint.host, endpoint.port, str(e).splitlines()[0] if str(e) else type(e).__name__)
        return None
    except Exception as e:  # noqa: BLE001 - thrift's transport errors have no common base; the cold path still answers
        log.info("the warm server pid %d on %s:%d did not answer (%s: %s); starting Spark here", endpoint.pid,
                 endpoint.host, endpoint.port, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return None
    log.info("answered by the warm server pid %d on %s:%d (connected in %.2f s; no JVM started)", endpoint.pid,
             endpoint.host, endpoint.port, time.monotonic() - started)
    return session


def _cmd_info(args: argparse.Namespace) -> int:
    pipe = _named_pipeline(args, read_only=True)
    _known_pipeline(pipe)
    pipe.sync_destination()
    pending, failed = pipe.packages.pending(), pipe.packages.failed()
    print(f"pipeline {pipe.pipeline_name}: dataset {pipe.dataset_name}, working dir {pipe.working_dir}")
    print(f"pending packages: {', '.join(p.load_id for p in pending) or 'none'}")
    if failed:
        print(f"failed packages: {', '.join(p.load_id for p in failed)} (see `sparkload pipeline packages {pipe.pipeline_name}`)")
    states = pipe.resource_states()
    print("resources:" if states else "resources: no state")
    for name, rstate in states.items():
        print(f"  {name}")
        for path, entry in rstate.get("incremental", {}).items():
            print(f"    cursor {path}: last_value {entry.get('last_value')!r} "
                  f"(initial {entry.get('initial_value')!r}, {len(entry.get('unique_hashes', []))} boundary keys)")
        for argument, saved in rstate.get("windows", {}).items():
            print(f"    windows {argument}: last completed window ends {saved.get('last_end')}")
        if not rstate:  # a resource without cursors has none, and a reset one has none left
            print("    (no cursor state)")
    recent = pipe.loads()[-5:]
    print("last loads:" if recent else "last loads: none")
    for load in recent:
        print(f"  {_load_line(load)}")
    return 0


def _load_line(load: Dict[str, Any], skipped_by: Optional[List[str]] = None) -> str:
    counts = ", ".join(f"{t} {n:,}" for t, n in sorted(load["row_counts"].items())) or "state only"
    status = f"{load['status']} (aborted)" if load["status"] == LOAD_STATUS_ABORTED else load["status"]
    skips = f"  skipped by {', '.join(skipped_by)} (sparkload_skip_loads)" if skipped_by else ""
    return f"{load['load_id']}  status {status}  {load['inserted_at']:%Y-%m-%d %H:%M:%S}  {counts}{skips}"


def _cmd_loads(args: argparse.Namespace) -> int:
    from .load import destination

    pipe = _named_pipeline(args, read_only=not getattr(args, "abort", None))
    _known_pipeline(pipe)
    for load_id in getattr(args, "abort", None) or []:
        before = destination.abort_load(pipe.spark, pipe.dataset_name, load_id)
        if before is None:
            raise ConfigError(f"no completed load {load_id} in dataset {pipe.dataset_name}; `sparkload pipeline loads "
                             f"{pipe.pipeline_name}` lists them")
        print(f"load {load_id}: aborted (status {before} -> {LOAD_STATUS_ABORTED}); sparkload models skip it")
    from .maintenance.catalog import skipped_loads

    pipe.sync_destination()
    found = pipe.loads()
    if not found:
        print(f"pipeline {pipe.pipeline_name}: no completed loads in {pipe.dataset_name}")
    skipped = skipped_loads(pipe.spark, [load["load_id"] for load in found])
    for load in found:
        print(_load_line(load, skipped.get(load["load_id"])))
    return 0


def _cmd_trace(args: argparse.Namespace) -> int:
    pipe = _named_pipeline(args)
    trace = pipe.last_trace
    if trace is None:
        raise UnknownPipeline(f"no trace of pipeline {pipe.pipeline_name!r}: it never ran with pipelines dir "
                              f"{pipe.working_dir.parent} (traces are kept where it ran; check the name or --pipelines-dir)")
    print(trace)
    return 0


def _confirm(question: str, yes: bool, flag: str = "--yes") -> None:
    """Ask on the terminal; without one, refuse unless `yes`."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise ConfigError(f"{question.rstrip('?')}: not confirmed; pass {flag} to do it without asking")
    answer = input(f"{question} [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        raise ConfigError("cancelled: nothing changed")


def _known_pipeline(pipe) -> None:
    """Refuse a pipeline that never ran here and has no state in its dataset (a mistyped name)."""
    if pipe.known():
        return
    pipe.sync_destination()
    if pipe.resource_states() or pipe.default_schema.tables:
        return
    base = pipe.working_dir.parent
    here = sorted(p.name for p in base.iterdir() if (p / "pipeline.json").is_file()) if base.is_dir() else []
    raise UnknownPipeline(f"no pipeline {pipe.pipeline_name!r}{did_you_mean(pipe.pipeline_name, here)}: it never ran "
                          f"with pipelines dir {base} and dataset {pipe.dataset_name} holds no state of it; pipelines "
                          f"here: {', '.join(here) or 'none'} (check the name, --dataset-name or --pipelines-dir)")


def _cmd_reset(args: argparse.Namespace) -> int:
    if args.command_name == "drop" and not args.resource:
        raise ConfigError("pipeline drop needs --resource NAME (use `pipeline reset` to wipe every resource)")
    pipe = _named_pipeline(args)
    _known_pipeline(pipe)  # before the lock, whose file would create a mistyped pipeline's directory
    with pipe.writing():
        pipe.sync_destination()
        resources = {name.split(".", 1)[1] for name in pipe.resource_states()}
        unknown = [r for r in args.resource or [] if r not in resources]
        if unknown:
            raise ConfigError(f"pipeline {pipe.pipeline_name} has no state for resource {', '.join(unknown)}; "
                              f"its resources: {', '.join(sorted(resources)) or 'none'}")
        if not args.resource:
            _confirm(f"wipe the state of every resource of pipeline {pipe.pipeline_name} (cursors restart from "
                     "their initial values)?", args.yes)
        info = pipe.reset(args.resource or None, drop_tables=getattr(args, "drop_tables", False))
    what = ", ".join(args.resource) if args.resource else "every resource"
    print(f"pipeline {pipe.pipeline_name}: state of {what} wiped in load {info.load_id}")
    for dropped in info.row_counts:
        print(f"  {dropped}")
    return 0


def _cmd_packages(args: argparse.Namespace) -> int:
    pipe = _named_pipeline(args)
    storage = pipe.packages
    if args.drop_failed or args.drop_pending:
        with pipe.writing():
            if args.drop_pending and storage.pending():
                _confirm(f"delete {len(storage.pending())} pending package(s) of pipeline {pipe.pipeline_name} "
                         "(their rows were never loaded; an incremental run extracts them again)?", args.yes)
            dropped = (storage.failed() if args.drop_failed else []) + (storage.pending() if args.drop_pending else [])
            for package in dropped:
                storage.drop(package)
                print(f"dropped {package.root}")
    print(f"pipeline {pipe.pipeline_name}: packages in {storage.base}")
    for title, packages in (("pending", storage.pending()), ("failed", storage.failed())):
        print(f"{title}: {len(packages) or 'none'}")
        for package in packages:
            reason = f"  {storage.failure(package)}" if title == "failed" else ""
            print(f"  {package.load_id}{reason}")
    loaded = storage.loaded()
    print(f"loaded: {len(loaded)} (after each load only the newest keep_loaded_packages stay; default {KEEP_LOADED})")
    return 0


def _cmd_expire(args: argparse.Namespace) -> int:
    from .maintenance import expire_loads, parse_duration

    older_than = parse_duration(args.older_than)
    pipe = _named_pipeline(args, read_only=args.dry_run)
    _known_pipeline(pipe)  # before the lock, whose file would create a mistyped pipeline's directory
    with pipe.writing():
        report = expire_loads(pipe.spark, pipe.dataset_name, older_than, dry_run=args.dry_run)
    for line in report.lines():
        print(line)
    return 0


def _lakehouse_options(p: argparse.ArgumentParser, lakehouse_args: Callable[[argparse.ArgumentParser], None]) -> None:
    lakehouse_args(p)
    p.add_argument("--pipelines-dir", help="where load packages are kept (default <home>/pipelines)")


def _wait_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", dest="lock_wait", type=float, metavar="SECONDS",
                   help="wait up to SECONDS for another writer of the pipeline to finish (default: fail at once)")


def add_pipeline_commands(sub, lakehouse_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add `run` and `pipeline {info,loads,trace,packages,reset,drop,expire}` to the `sparkload` parser."""
    run = sub.add_parser("run", help="run a pipeline: extract, normalize and land a source",
                         description="Land pending packages, restore state from the lakehouse, then extract TARGET "
                                     "into load packages and land them. Shows progress on a terminal and a closing summary.")
    run.add_argument("target", help="module:attribute, path/to/file.py:attribute, or a pipeline .yaml file")
    run.add_argument("--pipeline-name", help="pipeline name (default: the source's name)")
    run.add_argument("--dataset-name", help="staging dataset (default <pipeline_name>_dataset)")
    run.add_argument("--resource", action="append", metavar="NAME", help="run only this resource of the source (repeatable)")
    run.add_argument("--arg", type=_kv, action="append", default=[], metavar="KEY=VALUE",
                     help="argument of the source function, YAML-typed (repeatable), e.g. --arg org=acme")
    run.add_argument("--table-name", help="table name for a single resource or plain data")
    run.add_argument("--write-disposition", choices=WRITE_DISPOSITIONS, help="override the resources' disposition")
    run.add_argument("--no-progress", action="store_true", help="no progress display, only the summary (none either when stderr is no terminal)")
    run.add_argument("--keep-loaded-packages", type=int, metavar="N",
                     help="loaded packages kept on disk, the newest first (default 10; 0 keeps none)")
    _wait_option(run)
    _lakehouse_options(run, lakehouse_args)
    run.set_defaults(func=_cmd_run)

    pipe = sub.add_parser("pipeline", help="inspect and maintain a pipeline's state and loads").add_subparsers(
        dest="action", required=True, metavar="ACTION", help="info | loads | trace | packages | reset | drop | expire")
    for name, fn, text in (("info", _cmd_info, "state, cursors, pending packages and the last loads"),
                           ("loads", _cmd_loads, "completed loads with status and row counts per table"),
                           ("trace", _cmd_trace, "the last run's steps: timings, row counts per table, the failed step's error"),
                           ("packages", _cmd_packages, "pending, failed and loaded load packages; drop failed or pending ones"),
                           ("reset", _cmd_reset, "wipe the state of resources (--resource ..., or every resource after asking)"),
                           ("drop", _cmd_reset, "wipe the state of --resource ... and, with --drop-tables, their tables")):
        p = pipe.add_parser(name, help=text, description=text)
        p.add_argument("name", help="pipeline name")
        p.add_argument("--dataset-name", help="staging dataset (default: the last run's on this machine, else <name>_dataset)")
        if name in ("reset", "drop"):
            p.add_argument("--resource", action="append", metavar="NAME", help="resource to wipe (repeatable)")
        if name == "drop":
            p.add_argument("--drop-tables", action="store_true", help="also drop the resource's staging tables")
        if name == "packages":
            p.add_argument("--drop-failed", action="store_true", help="delete the packages in failed/")
            p.add_argument("--drop-pending", action="store_true", help="delete packages waiting to land (asks first)")
        if name in ("reset", "drop", "packages"):
            p.add_argument("--yes", action="store_true", help="do not ask before wiping every resource's state or pending packages")
            _wait_option(p)
        if name == "loads":
            p.add_argument("--abort", action="append", metavar="LOAD_ID",
                           help="mark a completed load aborted: every sparkload model skips it (repeatable)")
        _lakehouse_options(p, lakehouse_args)
        p.set_defaults(func=fn, command_name=name)
    text = "delete the staging rows of loads older than --older-than that every consuming model applied"
    expire = pipe.add_parser("expire", help=text, description=text + " (python_extract/maintenance/retention.py)")
    expire.add_argument("name", help="pipeline name")
    expire.add_argument("--dataset-name", help="staging dataset (default: the last run's on this machine, else <name>_dataset)")
    expire.add_argument("--older-than", required=True, metavar="DURATION", help="minimum load age: <n>s, <n>m, <n>h or <n>d, e.g. 7d")
    expire.add_argument("--dry-run", action="store_true", help="report what would be deleted, delete nothing")
    _wait_option(expire)
    _lakehouse_options(expire, lakehouse_args)
    expire.set_defaults(func=_cmd_expire)


__all__: List[str] = ["Progress", "add_pipeline_commands"]
