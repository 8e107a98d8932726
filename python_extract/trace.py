"""dlt's run trace: what the last `run` (or `extract`, `load`) of a pipeline did, step by step, kept in the
pipeline's working directory so `sparkload pipeline trace NAME` shows it after the process ended.

    trace = pipeline.last_trace
    [s.step for s in trace.steps]           # ['extract', 'normalize', 'load', 'run']
    trace.last_normalize_info.row_counts    # {'issues': 120, 'issues__labels': 310}
    trace.steps[-1].step_exception          # None, or the one line the failed step raised
    print(trace)                            # "Run started at ... and COMPLETED in 2.31 seconds with 4 steps." ...

A step is `extract` (extract and normalize: sparkload does both while it reads), `normalize` (nothing left
to do: the same packages and row counts, as dlt reports them), `load` (landing, also of packages an earlier
run left pending) and `run` (the whole call). `LoadInfo` is what `run` returns: dlt's, printed and as a dict. Reads and writes `<working dir>/trace.json`; raises
`LocalStateError` when it cannot be written, `ConfigError` when there is no trace.
"""
from __future__ import annotations

import datetime as dt
import json
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from . import timeutil
from .normalize.ids import uniq_id

TRACE_FILE = "trace.json"
MAX_STEPS = 100  # steps a trace keeps as single calls join it (dlt's)
ENGINE_VERSION = 1


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@dataclass
class StepInfo:
    """What a step did (dlt's ExtractInfo / NormalizeInfo / LoadInfo, the parts sparkload has)."""
    pipeline_name: str
    dataset_name: str
    loads_ids: List[str] = field(default_factory=list)
    row_counts: Dict[str, int] = field(default_factory=dict)

    def asdict(self) -> Dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"- {t}: {n} row(s)" for t, n in self.row_counts.items()]
        return "\n".join(["Row counts of the following tables:", *lines] if lines else ["No rows."])


@dataclass
class StepTrace:
    step: str
    started_at: dt.datetime
    finished_at: Optional[dt.datetime] = None
    step_info: Optional[StepInfo] = None
    step_exception: Optional[str] = None

    @property
    def seconds(self) -> float:
        return ((self.finished_at or self.started_at) - self.started_at).total_seconds()

    def asdict(self) -> Dict[str, Any]:
        return {"step": self.step, "started_at": self.started_at, "finished_at": self.finished_at,
                "step_info": self.step_info.asdict() if self.step_info else None, "step_exception": self.step_exception}

    def __str__(self) -> str:
        if self.step_exception is not None:
            return f"Step {self.step} FAILED in {self.seconds:.2f} seconds.\n{self.step_exception}"
        info = f"\n{self.step_info}" if self.step_info is not None and self.step_info.row_counts else ""
        return f"Step {self.step} COMPLETED in {self.seconds:.2f} seconds.{info}"


@dataclass
class PipelineTrace:
    """dlt's PipelineTrace: a run's steps with their timings, row counts and the exception of a failed one."""
    transaction_id: str
    pipeline_name: str
    started_at: dt.datetime
    finished_at: Optional[dt.datetime] = None
    steps: List[StepTrace] = field(default_factory=list)
    engine_version: int = ENGINE_VERSION

    def _last(self, step: str) -> Optional[StepInfo]:
        return next((s.step_info for s in reversed(self.steps) if s.step == step), None)

    @property
    def last_extract_info(self) -> Optional[StepInfo]:
        return self._last("extract")

    @property
    def last_normalize_info(self) -> Optional[StepInfo]:
        return self._last("normalize")

    @property
    def last_load_info(self) -> Optional[StepInfo]:
        return self._last("load")

    @property
    def failed(self) -> bool:
        return any(s.step_exception is not None for s in self.steps)

    def asdict(self) -> Dict[str, Any]:
        return {"transaction_id": self.transaction_id, "pipeline_name": self.pipeline_name,
                "started_at": self.started_at, "finished_at": self.finished_at, "engine_version": self.engine_version,
                "steps": [s.asdict() for s in self.steps]}

    def __str__(self) -> str:
        seconds = ((self.finished_at or self.started_at) - self.started_at).total_seconds()
        status = "FAILED" if self.failed else "COMPLETED"
        head = f"Run started at {self.started_at} and {status} in {seconds:.2f} seconds with {len(self.steps)} steps."
        return "\n".join([head, *(str(s) for s in self.steps)])

    # -- kept on disk
    def save(self, working_dir: Path) -> None:
        working_dir.mkdir(parents=True, exist_ok=True)
        path = working_dir / TRACE_FILE
        temporary = path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(self.asdict(), default=_encode, indent=1))
        temporary.replace(path)  # a reader never sees half a trace

    @classmethod
    def load(cls, working_dir: Path) -> Optional["PipelineTrace"]:
        path = working_dir / TRACE_FILE
        if not path.is_file():
            return None
        data = json.loads(path.read_text())
        steps = [StepTrace(s["step"], _time(s["started_at"]), _time(s["finished_at"]),
                           StepInfo(**s["step_info"]) if s["step_info"] else None, s["step_exception"]) for s in data["steps"]]
        return cls(data["transaction_id"], data["pipeline_name"], _time(data["started_at"]), _time(data["finished_at"]),
                   steps, data.get("engine_version", ENGINE_VERSION))


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _time(value: Optional[str]) -> Optional[dt.datetime]:
    return timeutil.parse_iso(value).astimezone(dt.timezone.utc) if value else None


@dataclass
class LoadInfo:
    """What `run` (or `load`) landed, as dlt's LoadInfo: printed as dlt prints it, `asdict()` (and JSON through
    `json.dumps(info.asdict(), default=str)`) with dlt's keys that sparkload has."""
    pipeline_name: str
    dataset_name: str
    load_ids: List[str] = field(default_factory=list)
    row_counts: Dict[str, int] = field(default_factory=dict)
    started_at: Optional[dt.datetime] = None
    finished_at: Optional[dt.datetime] = None
    first_run: bool = False
    package_row_counts: Dict[str, Dict[str, int]] = field(default_factory=dict)

    @property
    def load_id(self) -> Optional[str]:
        return self.load_ids[-1] if self.load_ids else None

    @property
    def loads_ids(self) -> List[str]:
        """dlt's spelling."""
        return self.load_ids

    @property
    def has_failed_jobs(self) -> bool:
        """dlt's: always False here. A load lands whole or raises `PipelineStepFailed` (its tables as they
        were), so a returned LoadInfo never holds a failed job."""
        return False

    def raise_on_failed_jobs(self) -> None:
        """dlt's: nothing to raise (see `has_failed_jobs`); kept so a ported `load_info.raise_on_failed_jobs()`
        stays as it was."""

    def asdict(self) -> Dict[str, Any]:
        """dlt's `LoadInfo.asdict()`: the keys sparkload has (destination `sparkload`, no credentials)."""
        return {
            "pipeline": {"pipeline_name": self.pipeline_name}, "destination_name": "sparkload",
            "destination_type": "sparkload", "dataset_name": self.dataset_name, "loads_ids": list(self.load_ids),
            "load_packages": [{"load_id": load_id, "state": "loaded", "schema_name": self.pipeline_name,
                               "tables": self.package_row_counts.get(load_id, {}), "jobs": []} for load_id in self.load_ids],
            "row_counts": dict(self.row_counts), "started_at": self.started_at, "finished_at": self.finished_at,
            "first_run": self.first_run,
        }

    def summary(self) -> str:
        """One line: the log's."""
        tables = ", ".join(f"{t}: {n}" for t, n in self.row_counts.items()) or "no rows"
        return f"pipeline {self.pipeline_name} loaded {', '.join(self.load_ids) or 'nothing'} into {self.dataset_name} ({tables})"

    def __str__(self) -> str:
        """As dlt prints a LoadInfo."""
        seconds = (self.finished_at - self.started_at).total_seconds() if self.started_at and self.finished_at else 0.0
        lines = [f"Pipeline {self.pipeline_name} load step finished in {seconds:.2f} seconds",
                 f"{len(self.load_ids)} load package(s) were loaded to destination sparkload and into dataset {self.dataset_name}"]
        lines += [f"Load package {load_id} is LOADED and contains no failed jobs" for load_id in self.load_ids]
        return "\n".join(lines)


class Tracer:
    """Records one call's steps into a new trace, saved when the call ends however it ends."""

    def __init__(self, pipeline_name: str, dataset_name: str, working_dir: Path):
        self.pipeline_name, self.dataset_name, self.working_dir = pipeline_name, dataset_name, working_dir
        self.trace = PipelineTrace(uniq_id(), pipeline_name, _now())

    @contextmanager
    def step(self, name: str) -> Iterator[StepTrace]:
        """A step: its trace is yielded for the caller to fill `step_info`; an exception is recorded and raised."""
        step = StepTrace(name, _now(), step_info=StepInfo(self.pipeline_name, self.dataset_name))
        self.trace.steps.append(step)
        try:
            yield step
        except BaseException as e:
            step.step_exception = f"{type(e).__name__}: {e}"
            raise
        finally:
            step.finished_at = _now()

    def info(self, load_ids: List[str], row_counts: Dict[str, int]) -> StepInfo:
        return StepInfo(self.pipeline_name, self.dataset_name, list(load_ids), dict(row_counts))

    def run_step(self, started_at: dt.datetime, finished_at: dt.datetime, load_ids: List[str],
                 row_counts: Dict[str, int], error: Optional[BaseException]) -> None:
        """The `run` step, last as in dlt: the whole call, what it landed and the error it ended with."""
        self.trace.steps.append(StepTrace("run", started_at, finished_at, self.info(load_ids, row_counts),
                                          None if error is None else f"{type(error).__name__}: {error}"))

    def finish(self, previous: Optional[PipelineTrace] = None) -> PipelineTrace:
        """End the trace and keep it. A trace of one step (extract, normalize or load called alone) joins
        `previous`, keeping its last MAX_STEPS steps, as dlt's `merge_traces`; a run's replaces it."""
        self.trace.finished_at = _now()
        if previous is not None and len(self.trace.steps) == 1:
            previous.steps = (previous.steps + self.trace.steps)[-MAX_STEPS:]
            previous.finished_at = self.trace.finished_at
            self.trace = previous
        self.trace.save(self.working_dir)
        return self.trace
