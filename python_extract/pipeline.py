"""The pipeline orchestrates: it lands pending load packages first, restores state and schema from the
destination, then extract+normalize -> load.

`pipeline(pipeline_name=..., dataset_name=...)` mirrors `dlt.pipeline`; `Pipeline.run(data, ...)` takes a
resource, a source, a list of dicts or a generator, as dlt's does, and returns a `LoadInfo`.

One writer per pipeline: `run`, `extract`, `load` and `reset` hold the pipeline's lock (locks.py) and
fail at once when another process holds it, or wait up to `lock_wait` seconds. A pending package that
`check` finds damaged is moved to failed/ with every package sealed after it (their cursors count its
rows), rows it landed are deleted, and `CorruptPackage` is raised: the next run extracts them again.
After each load only the newest `keep_loaded_packages` loaded packages stay on disk.

Errors: `ConfigError` (a dataset name longer than a catalog takes, before any Spark work);
`PipelineStepFailed` naming the step, the load id and the table; `PipelineLocked`;
`CorruptPackage`; `LocalStateError` (a working directory or the lakehouse home is not writable).
"""
from __future__ import annotations

import datetime
import gc
import json
import logging
import os
import shutil
import sys
import threading
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional

from .errors import (
    ConfigError, CorruptPackage, HintError, LocalStateError, PipelineStepFailed, did_you_mean, from_os_error, shown_name,
)
from .extract.extractor import Extractor
from .contract import TABLE_HINTS, TableHints
from .extract import current
from .extract.resource import Resource
from .extract.source import Source
from .hooks import Hooks
from .lakehouse import LakehouseConfig, get_session
from .load import destination, load_package, threads, unland_package
from .locks import PipelineLock
from .normalize import Schema
from .normalize.naming import normalize_identifier
from .normalize.schema_contract import check_contract
from .packages import KEEP_LOADED, LoadPackage, PackageStorage
from . import refresh as refreshing
from .state import State, decode_value, new_state
from .timeutil import dev_mode_suffix
from .trace import LoadInfo, PipelineTrace, Tracer

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's from Python 3.11; the package supports 3.10

    from .dataset import Dataset, SqlClient

log = logging.getLogger("sparkload.pipeline")
PIPELINE_FILE = "pipeline.json"
# the longest schema name every lakehouse catalog takes: Delta's Hive metastore (Iceberg's JDBC catalog: 255)
MAX_DATASET_NAME = 128


_GC_LOCK = threading.Lock()
_GC_SAVED: List[Any] = []  # [thresholds before the first overlapping extraction, how many run]


@contextmanager
def _fewer_gc_passes() -> Iterator[None]:
    """Fewer collector passes while extracting: normalizing allocates millions of short-lived dicts, and
    default thresholds make the collector the hot spot. The thresholds are process-wide, so overlapping
    runs (threads) share one scope: the first saves them, the last one out restores them, and the call
    leaves them as it found them whatever the order the runs end in."""
    with _GC_LOCK:
        if not _GC_SAVED:
            _GC_SAVED[:] = [gc.get_threshold(), 0]
            gc.set_threshold(100_000, 50, 100)
        _GC_SAVED[1] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_SAVED[1] -= 1
            if not _GC_SAVED[1]:
                gc.set_threshold(*_GC_SAVED[0])
                _GC_SAVED.clear()


def _writable(path: Path, setting: str) -> None:
    """Raise `LocalStateError` unless `path` (or its nearest existing parent) can be written."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK):
        import errno

        code = errno.EROFS if _read_only_mount(existing) else errno.EACCES
        raise from_os_error(OSError(code, os.strerror(code), str(existing)), setting)


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


class Pipeline:
    def __init__(self, pipeline_name: str, dataset_name: str, lakehouse: LakehouseConfig, pipelines_dir: Path,
                 lock_wait: float = 0.0, keep_loaded_packages: int = KEEP_LOADED, refresh: Optional[str] = None):
        self.pipeline_name = pipeline_name
        self.refresh = refreshing.check_refresh(refresh, f"pipeline {pipeline_name}")  # dlt's: applied on every run
        self.dataset_name = normalize_identifier(dataset_name)
        if len(self.dataset_name) > MAX_DATASET_NAME:
            raise ConfigError(f"dataset_name {shown_name(self.dataset_name)}: longer than {MAX_DATASET_NAME} characters, "
                              "the most a lakehouse catalog takes; shorten it (--dataset-name, `dataset_name:`)")
        self.lakehouse = lakehouse
        self.working_dir = Path(pipelines_dir) / pipeline_name
        self.packages = PackageStorage(self.working_dir)
        self.lock = PipelineLock(self.working_dir, pipeline_name)
        self.lock_wait = lock_wait
        self.keep_loaded_packages = keep_loaded_packages
        self.hooks = Hooks()
        self.batch_rows: Optional[int] = None
        self.state: State = new_state(pipeline_name)
        self.default_schema = Schema(pipeline_name)
        self._spark = None
        self._last_trace: Optional[PipelineTrace] = None

    @property
    def spark(self):
        if self._spark is None and self.lakehouse.spark_remote:
            from .lakehouse.remote import remote_session  # a Spark Connect server's session: no JVM here

            self._spark = remote_session(self.lakehouse)
        if self._spark is None:
            _writable(self.lakehouse.home, "--home (SPARKLOAD_HOME)")
            try:
                self._spark = get_session(self.lakehouse)
            except OSError as e:
                jars = str(e.filename or "").startswith(str(self.lakehouse.jars_cache))
                raise from_os_error(e, "SPARKLOAD_JARS_CACHE (then run `sparkload lakehouse setup`)" if jars
                                    else "--home (SPARKLOAD_HOME)") from e
        return self._spark

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the pipeline's writer lock (re-entrant: `run` holds it across its `load`s)."""
        self.lock.acquire(self.lock_wait)
        try:
            yield
        finally:
            self.lock.release()

    def run(self, data: Any, schema_contract: Any = None, refresh: Optional[str] = None,
            **hints: Unpack[TableHints]) -> LoadInfo:
        """Land what earlier runs left pending, restore state, then extract, normalize and load `data`;
        `hints` (the contract's TableHints: table_name, write_disposition, primary_key, merge_key, columns,
        max_table_nesting) and dlt's `schema_contract` apply to every resource of it, as dlt's; dlt's `refresh`
        (refresh.py) resets the run's sources or resources first. The steps are traced into `last_trace`
        (trace.py), kept on disk however the run ends."""
        current.activate(self)
        refresh = refreshing.check_refresh(refresh, "run") or self.refresh
        resources = as_resources(data, hints, schema_contract)
        info = LoadInfo(self.pipeline_name, self.dataset_name, started_at=_utc_now(), first_run=not self.known())
        tracer = Tracer(self.pipeline_name, self.dataset_name, self.working_dir)
        self._last_trace = tracer.trace
        failed = True
        try:
            with self.writing():
                self._remember()
                if self.packages.pending():
                    self._traced_load(tracer, info)
                try:
                    with tracer.step("extract") as step:
                        packages = self._extract(resources, refresh)
                        step.step_info = tracer.info([p.load_id for p in packages], _row_counts(packages))
                    with tracer.step("normalize") as step:  # done while extracting: the same packages, as dlt reports them
                        step.step_info = tracer.info([p.load_id for p in packages], _row_counts(packages))
                except BaseException:
                    if self.packages.pending():  # what was sealed before the failure (date windows) still lands
                        self._traced_load(tracer, info)
                    raise
                self._traced_load(tracer, info)
            failed = False
        finally:
            info.finished_at = _utc_now()
            tracer.run_step(info.started_at, info.finished_at, info.load_ids, info.row_counts, sys.exc_info()[1])
            self._save_trace(tracer, failed)
        log.info("%s", info.summary())
        return info

    def _traced_load(self, tracer: Tracer, info: LoadInfo) -> None:
        before, counts = len(info.load_ids), dict(info.row_counts)
        with tracer.step("load") as step:
            self._load(info)
            step.step_info = tracer.info(info.load_ids[before:], {
                t: n - counts.get(t, 0) for t, n in info.row_counts.items() if n != counts.get(t, 0)})

    def _save_trace(self, tracer: Tracer, failed: bool, previous: Optional[PipelineTrace] = None) -> None:
        try:
            self._last_trace = tracer.finish(previous)
        except OSError as e:
            self._last_trace = tracer.trace
            if not failed:
                raise from_os_error(e, "--pipelines-dir") from e
            log.info("the trace of the failed run could not be written: %s", e)  # the run's own error is the one line

    @property
    def last_trace(self) -> Optional[PipelineTrace]:
        """dlt's: the trace of the last `run` of this pipeline, from this object or, after the process that ran it
        ended, from its working directory; None when it never ran here."""
        return self._last_trace or PipelineTrace.load(self.working_dir)

    def _remember(self) -> None:
        """Note the dataset in the working directory, so `sparkload pipeline NAME ...` finds it."""
        try:
            self.working_dir.mkdir(parents=True, exist_ok=True)
            (self.working_dir / PIPELINE_FILE).write_text(json.dumps({"dataset_name": self.dataset_name}))
        except OSError as e:
            raise from_os_error(e, "--pipelines-dir") from e

    def known(self) -> bool:
        """Whether this pipeline ran on this machine (its working directory has a dataset noted)."""
        return (self.working_dir / PIPELINE_FILE).is_file()

    def sync_destination(self) -> None:
        """Take state and schema from the destination: the newest complete load's (a new machine with
        an empty working directory continues from the right cursor)."""
        spark = self.spark  # once, here: two threads starting the session at once race on the lakehouse's format record
        read = threads.at_once({
            "state": lambda: destination.read_state(spark, self.dataset_name, self.pipeline_name),
            "schema": lambda: destination.read_schema(spark, self.dataset_name, self.pipeline_name)})
        stored, schema = read["state"], read["schema"]
        self.state = stored or new_state(self.pipeline_name)
        self.state.pop("_load_id", None)
        self.default_schema = schema or Schema(self.pipeline_name)

    def extract(self, data: Any, schema_contract: Any = None, refresh: Optional[str] = None,
                **hints: Unpack[TableHints]) -> List[LoadPackage]:
        """Extract and normalize `data` (what `run` takes: a resource, a source, a list of them, or items with
        `table_name`; the same hints) into sealed load packages; nothing lands until `load`. dlt's extract ->
        normalize -> load sequence works unchanged: `normalize` has nothing left to do. Traced as dlt's: a
        trace of one `extract` step. `refresh`: as `run`'s; the tables are dropped or emptied when `load` lands."""
        current.activate(self)
        refresh = refreshing.check_refresh(refresh, "extract") or self.refresh
        resources = as_resources(data, hints, schema_contract)
        return self._traced_alone("extract", lambda: self._extract(resources, refresh),
                                  lambda tracer, packages: tracer.info([p.load_id for p in packages], _row_counts(packages)))

    def _traced_alone(self, name: str, call: Callable[[], Any], describe: Callable[[Tracer, Any], Any]) -> Any:
        """`call()` traced as a trace of one step `name` (dlt traces extract, normalize and load called alone)."""
        previous = self.last_trace
        tracer = Tracer(self.pipeline_name, self.dataset_name, self.working_dir)
        failed = True
        try:
            with tracer.step(name) as step:
                result = call()
                step.step_info = describe(tracer, result)
            failed = False
            return result
        finally:
            self._save_trace(tracer, failed, previous)

    def _extract(self, resources: List[Resource], refresh: Optional[str] = None) -> List[LoadPackage]:
        with self.writing():
            self.packages.discard_unsealed()
            self.sync_destination()
            self._continue_from_pending()
            planned = refreshing.prepare(refresh, self.default_schema, self.state, resources, self.pipeline_name) if refresh else None
            extractor = Extractor(self.packages, self.dataset_name, self.default_schema, self.state, self.hooks,
                                  default_source=self.pipeline_name, batch_rows=self.batch_rows)
            with _fewer_gc_passes(), _local_state("--pipelines-dir"):
                packages = extractor.extract(resources)
                if not packages and (planned and planned.tables or any(res.write_disposition == "replace" for res in resources)):
                    extractor.seal_state()  # dlt: a replace that extracts nothing still loads, and empties its tables
                    packages = extractor.sealed
            if packages and planned is not None:
                refreshing.record(packages[0].root, planned)
            if packages:
                names = {r.name for r in resources}
                destination.record_coverage(packages[-1].root, [t for t, meta in self.default_schema.tables.items() if meta.resource in names])
            return packages

    def _continue_from_pending(self) -> None:
        """Packages extracted but not landed yet are newer than the destination: the next extract goes on
        from the newest one's schema and state, as dlt's does (extract twice, then load: the second extract
        continues each cursor, and the schema keeps the first one's tables). A package whose schema or state
        cannot be read is left to `load`, which quarantines it and every package sealed after it."""
        pending = self.packages.pending()
        if not pending:
            return
        newest = pending[-1]
        try:
            schema = newest.schema
            state = next((p.state for p in reversed(pending) if p.state is not None), None)
        except (OSError, ValueError) as e:
            log.warning("pending load package %s is unreadable (%s); extracting from the destination's state",
                        newest.load_id, e)
            return
        self.default_schema = schema
        if state is not None:
            self.state = decode_value(state)  # a package holds the state JSON-encoded (datetimes tagged)
            self.state.pop("_load_id", None)

    def normalize(self, workers: int = 1) -> List[str]:
        """dlt's normalize step, for its extract -> normalize -> load sequence: `extract` already normalized
        into load packages, so this only answers which loads wait for `load` (their ids, oldest first)."""
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ConfigError(f"normalize: workers={workers!r} is not a positive integer")
        pending = self.packages.pending()
        return self._traced_alone("normalize", lambda: [p.load_id for p in pending],
                                  lambda tracer, ids: tracer.info(ids, _row_counts(pending)))

    @property
    def has_pending_data(self) -> bool:
        """dlt's: whether load packages wait to be landed (`load` or the next `run` lands them)."""
        return bool(self.packages.pending())

    def drop_pending_packages(self) -> List[str]:
        """dlt's: delete the load packages waiting to be landed (their rows never landed, and the state they
        carry goes with them: the next run restores state from the lakehouse and extracts those rows again);
        their load ids. The CLI's `sparkload pipeline packages NAME --drop-pending`."""
        with self.writing():
            pending = self.packages.pending()
            for package in pending:
                self.packages.drop(package)
        return [p.load_id for p in pending]

    def extract_and_normalize(self, resource: Resource) -> Optional[LoadPackage]:
        """One load package of `resource`'s items (None if it yields nothing); nothing lands yet."""
        packages = self.extract([resource])
        return packages[-1] if packages else None

    def load(self, info: Optional[LoadInfo] = None) -> LoadInfo:
        """Land every pending package, oldest first; a damaged one is quarantined (module docstring). Traced as
        dlt's: a trace of one `load` step."""
        return self._traced_alone("load", lambda: self._load(info),
                                  lambda tracer, landed: tracer.info(landed.load_ids, landed.row_counts))

    def _load(self, info: Optional[LoadInfo] = None) -> LoadInfo:
        info = info or LoadInfo(self.pipeline_name, self.dataset_name, started_at=_utc_now())
        with self.writing(), _local_state("--pipelines-dir"):
            pending = self.packages.pending()
            for n, package in enumerate(pending):
                problem = package.check()
                if problem is None:
                    try:
                        refreshing.apply(self.spark, package)
                        package = load_package(self.spark, self.packages, package, self.hooks)
                    except PipelineStepFailed:
                        problem = package.check(deep=True)
                        if problem is None:
                            raise
                        unland_package(self.spark, package)
                if problem is not None:
                    self._quarantine(pending[n:], problem)
                info.load_ids.append(package.load_id)
                info.package_row_counts[package.load_id] = package.row_counts()
                for t, c in package.row_counts().items():
                    info.row_counts[t] = info.row_counts.get(t, 0) + c
            self.packages.prune_loaded(self.keep_loaded_packages)
        info.finished_at = _utc_now()
        return info

    def _quarantine(self, packages: List[LoadPackage], problem: str) -> None:
        damaged, later = packages[0], packages[1:]
        moved = self.packages.quarantine(damaged, problem)
        for package in later:
            self.packages.quarantine(package, f"sealed after damaged package {damaged.load_id}: its cursors count that package's rows")
        if later:
            problem += f"; {len(later)} later pending package(s) moved with it"
        raise CorruptPackage(moved.root, damaged.load_id, problem, self.pipeline_name)

    # -- reading the data back (dlt's dataset() and sql_client(): python_extract/dataset.py)
    def dataset(self, schema: Optional[str] = None, dataset_type: str = "auto") -> "Dataset":
        """dlt's: the staging dataset's tables as relations, read through Spark (`pipeline.dataset().issues.df()`).
        `schema` may only name this pipeline's (sparkload keeps one); `dataset_type` is dlt's and changes nothing."""
        from .dataset import Dataset

        if schema not in (None, self.pipeline_name) and getattr(schema, "name", None) != self.pipeline_name:
            raise ConfigError(f"pipeline {self.pipeline_name}: dataset(schema={schema!r}): sparkload keeps one schema per "
                              "pipeline, named as the pipeline; leave schema out")
        return Dataset(self)

    def sql_client(self) -> "SqlClient":
        """dlt's: `with pipeline.sql_client() as client: client.execute_sql("select ...")`, over Spark."""
        from .dataset import SqlClient

        return SqlClient(self)

    # -- inspection and maintenance (the CLI's `pipeline info|loads|drop|reset`)
    def resource_states(self) -> Dict[str, Dict[str, Any]]:
        """{"<source>.<resource>": its state} of the restored state."""
        out = {}
        for src, body in self.state.get("sources", {}).items():
            for res, rstate in body.get("resources", {}).items():
                out[f"{src}.{res}"] = rstate
        return out

    def loads(self) -> List[Dict[str, Any]]:
        """Completed loads of this pipeline's schema, with row counts per table."""
        loads = destination.list_loads(self.spark, self.dataset_name, self.pipeline_name)
        tables = list(self.default_schema.tables)
        counts = destination.count_rows_by_load(self.spark, self.dataset_name, tables)
        for load in loads:
            load["row_counts"] = counts.get(load["load_id"], {})
        return loads

    def reset(self, resources: Optional[List[str]] = None, drop_tables: bool = False) -> LoadInfo:
        """Wipe the state of `resources` (all when None) in a state-only load; with `drop_tables`, also
        drop their staging tables (root and child tables)."""
        with self.writing():
            return self._reset(resources, drop_tables)

    def _reset(self, resources: Optional[List[str]], drop_tables: bool) -> LoadInfo:
        info = self._load()
        self.sync_destination()
        dropped: List[str] = []
        for source in self.state.get("sources", {}).values():
            names = list(source.get("resources", {})) if resources is None else [r for r in resources if r in source.get("resources", {})]
            for name in names:
                source["resources"][name] = {}
        if drop_tables:
            owned = [t for t, meta in self.default_schema.tables.items() if resources is None or meta.resource in resources]
            dropped = destination.drop_tables(self.spark, self.dataset_name, owned)
            for table in owned:
                self.default_schema.tables.pop(table, None)
        extractor = Extractor(self.packages, self.dataset_name, self.default_schema, self.state, self.hooks,
                              default_source=self.pipeline_name)
        extractor.seal_state()
        self._load(info)
        info.row_counts = {f"dropped {t}": 0 for t in dropped}
        return info


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _row_counts(packages: List[LoadPackage]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for package in packages:
        for table, n in package.row_counts().items():
            counts[table] = counts.get(table, 0) + n
    return counts


@contextmanager
def _local_state(setting: str) -> Iterator[None]:
    """A failed file operation (read-only, full, name too long) as a one-line `LocalStateError`."""
    try:
        yield
    except LocalStateError:
        raise
    except OSError as e:
        if e.errno is None:
            raise
        raise from_os_error(e, setting) from e


def as_resources(data: Any, hints: Dict[str, Any], schema_contract: Any = None) -> List[Resource]:
    """What `run` accepts, as resources with the run's hints (TABLE_HINTS; another is a HintError) applied; a
    `schema_contract` becomes each resource's and its source's, as dlt's `run` sets it (it wins over theirs)."""
    unknown = sorted(set(hints) - set(TABLE_HINTS))
    if unknown:
        named = ", ".join(f"{key}{did_you_mean(key, TABLE_HINTS)}" for key in unknown)
        raise HintError(f"run: unknown hint {named}; expected {', '.join(TABLE_HINTS)}")
    hints = dict(hints)
    table_name = hints.pop("table_name", None)
    from .extract.stream import Stream, stream_resource

    if isinstance(data, Stream):
        data = stream_resource(data)
    if isinstance(data, (list, tuple)) and data and all(isinstance(d, Stream) for d in data):
        data = [stream_resource(d) for d in data]
    if isinstance(data, Source):
        resources = data.selected_resources
    elif isinstance(data, Resource):
        resources = [data]
    elif isinstance(data, (list, tuple)) and data and all(isinstance(d, Resource) for d in data):
        resources = list(data)
    else:
        if table_name is None:
            raise HintError("run: table_name is required when data is not a resource")
        resources = [Resource(data, table_name)]
    if table_name is not None or any(v is not None for v in hints.values()):
        if len(resources) > 1 and table_name is not None:
            raise HintError("run: table_name applies to one resource; this data has several")
        for res in resources:
            res.apply_hints(table_name=table_name, **hints)
    if schema_contract is not None:
        check_contract(schema_contract, "run")
        for res in resources:
            res.apply_hints(schema_contract=schema_contract)
            res.source_schema_contract = schema_contract
    return resources


DESTINATIONS = (None, "sparkload")  # a ported dlt pipeline's destination= may name only the lakehouse


def pipeline(
    pipeline_name: str = "sparkload",
    dataset_name: Optional[str] = None,
    pipelines_dir: Optional[str] = None,
    lakehouse: Optional[LakehouseConfig] = None,
    lock_wait: float = 0.0,
    keep_loaded_packages: int = KEEP_LOADED,
    destination: Any = None,  # dlt's argument; see DESTINATIONS
    dev_mode: bool = False,
    refresh: Optional[str] = None,
    **lakehouse_settings: Any,
) -> Pipeline:
    """A pipeline writing into `dataset_name` (default `<pipeline_name>_dataset`, as dlt).

    `lakehouse` (or keyword settings such as `home=` and `table_format=`) picks the lakehouse;
    load packages live under `pipelines_dir` (default `<lakehouse home>/pipelines`). Without
    `dataset_name`, the dataset of the pipeline's last run on this machine is used, if any.
    `lock_wait`: seconds to wait for another writer of the pipeline (default 0: fail at once);
    `keep_loaded_packages`: loaded packages kept on disk (default 10; 0 deletes each once loaded).
    `destination`: dlt's argument, taken so a ported dlt call stays as it was; sparkload lands only into
    its lakehouse, so it may be left out or be `"sparkload"`; another destination is an error, not ignored.
    `dev_mode`: dlt's: each pipeline object starts from scratch (the pipeline's local folder, its state and
    pending packages, is wiped) and writes into a new dataset, `dataset_name` suffixed with the local time
    (`_YYYYMMDDhhmmss`, a 12-hour clock as dlt's).
    `refresh`: dlt's, applied on every `run` and `extract` of this pipeline object (their own `refresh=` wins):
    `drop_sources`, `drop_resources` or `drop_data` (refresh.py).
    """
    if destination not in DESTINATIONS:
        raise ConfigError(f"pipeline {pipeline_name}: destination={destination!r} is not one sparkload loads into: "
                          "it lands into its Spark lakehouse (lakehouse=, home=, or the SPARKLOAD_* settings); "
                          "remove destination or set destination='sparkload'")
    known = {f.name for f in fields(LakehouseConfig)}
    unknown = sorted(set(lakehouse_settings) - known)
    if unknown:
        raise ConfigError(f"pipeline {pipeline_name}: {unknown[0]}= is neither an argument of sparkload's pipeline nor a "
                          f"lakehouse setting (those are: {', '.join(sorted(known))})")
    config = lakehouse or LakehouseConfig.from_env(**lakehouse_settings)
    base = Path(pipelines_dir) if pipelines_dir else config.home / "pipelines"
    if not isinstance(dev_mode, bool):
        raise ConfigError(f"pipeline {pipeline_name}: dev_mode={dev_mode!r}; expected True or False")
    if dev_mode:
        shutil.rmtree(base / pipeline_name, ignore_errors=True)
        name = dataset_name or f"{pipeline_name}_dataset"
        suffix = dev_mode_suffix()
        dataset_name = name + (suffix[1:] if name.endswith("_") else suffix)
    remembered = base / pipeline_name / PIPELINE_FILE
    if dataset_name is None and remembered.exists():
        dataset_name = json.loads(remembered.read_text())["dataset_name"]
    created = Pipeline(pipeline_name, dataset_name or f"{pipeline_name}_dataset", config, base,
                       lock_wait=lock_wait, keep_loaded_packages=keep_loaded_packages, refresh=refresh)
    current.activate(created)
    return created
