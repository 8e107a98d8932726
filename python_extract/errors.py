"""Errors of the extractor. Each names the step, and where known the load id, the resource and the table;
each class carries the exit code the `sparkload` command returns for it (documented in docs/extractor.md).

    SparkloadError                       exit 1 unless a subclass says otherwise
    ├── PipelineStepFailed               1  a step (extract, normalize, load) failed; wraps the cause
    ├── ConfigError                      2  bad arguments, pipeline file, settings or source config
    │   ├── ConfigFieldMissing               a config/secret value was found in no provider
    │   ├── PipelineFileError                the pipeline YAML: unreadable, unknown key, wrong type
    │   ├── HintError                        a resource's hint (write_disposition, columns, keys, ...) is wrong
    │   ├── UnknownPipeline                  `pipeline info|loads|reset|drop|expire NAME` of a pipeline never run here
    │   └── LakehouseConfigError             a lakehouse setting is invalid, or its jars or catalog are missing
    │       └── LakehouseMismatch            `get_session` asked for another lakehouse than the running session's
    ├── IncrementalError                 2  an incremental cursor was misconfigured or met bad data
    │   ├── IncrementalCursorPathMissing     a row has no value at the cursor path (raise policy)
    │   └── IncrementalBoundaryOverflow      more rows share the boundary cursor value than the bound
    ├── LocalStateError                  3  a file or directory cannot be used: read-only, full, missing
    │   └── CorruptPackage                   a load package cannot be read; it was moved to failed/
    └── Busy                             4  another process holds what this one needs; try again later
        ├── PipelineLocked                   another writer runs the same pipeline (its lock file)
        └── CatalogBusy                      the lakehouse catalog database is opened by another process

Other modules subclass these where their errors live (normalize/exceptions.py, sources/registry.py,
runtime/processes.py, runtime/warm.py, maintenance/operation.py). Anything else is a bug and exits 70
(`cli.py` prints one line asking to report it, and the traceback with `-v`). `from_os_error` turns a
failed file operation into a `LocalStateError` naming the path and what to do.
"""
from __future__ import annotations

import difflib
import errno
from typing import Any, Iterable, List, Optional

EXIT_INTERNAL = 70  # sysexits EX_SOFTWARE: an exception nobody raised on purpose
EXIT_INTERRUPTED = 130


class SparkloadError(Exception):
    """Base of every error the extractor raises on purpose."""
    exit_code = 1


class PipelineStepFailed(SparkloadError):
    def __init__(self, step: str, message: str, load_id: Optional[str] = None, table: Optional[str] = None):
        self.step, self.load_id, self.table = step, load_id, table
        where = "".join([f" load {load_id}" if load_id else "", f" table {table}" if table else ""])
        super().__init__(f"{step} step failed{where}: {message}")

    @property
    def exception(self) -> Optional[BaseException]:
        """dlt's attribute: the error the step failed with (e.g. a schema contract's `DataValidationError`)."""
        return self.__cause__


class ConfigError(SparkloadError):
    """Bad arguments or configuration: nothing ran."""
    exit_code = 2


class ConfigFieldMissing(ConfigError):
    def __init__(self, name: str, looked_up: List[str]):
        self.name, self.looked_up = name, looked_up
        super().__init__(f"config value {name!r} not found; looked up: {', '.join(looked_up)}")


class PipelineFileError(ConfigError):
    def __init__(self, path: Any, where: str, message: str):
        self.path, self.where = path, where
        super().__init__(f"{path}: {where + ': ' if where else ''}{message}")


class HintError(ConfigError, ValueError, TypeError):
    """A resource's hint is misspelt or of the wrong kind; the message names the resource, the hint and
    the valid choices (with the closest one). Also a ValueError and a TypeError, which these mistakes used
    to raise: code that caught those keeps working."""


class UnknownPipeline(ConfigError):
    pass


def did_you_mean(given: Any, choices: Iterable[Any]) -> str:
    """`" (did you mean 'merge'?)"` when one of `choices` is close to `given` (difflib), else `""`.

    >>> did_you_mean("mrege", ["append", "replace", "merge"])
    " (did you mean 'merge'?)"
    """
    if not isinstance(given, str):
        return ""
    close = difflib.get_close_matches(given, [str(c) for c in choices], 1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class LakehouseConfigError(ConfigError):
    """A lakehouse setting is invalid or a required part (jars, catalog) cannot be found."""


class LakehouseMismatch(LakehouseConfigError):
    """This process runs a SparkSession of one lakehouse and was asked for another: one JVM holds one."""


class IncrementalError(SparkloadError):
    exit_code = 2

    def __init__(self, resource: str, cursor_path: str, message: str):
        self.resource, self.cursor_path = resource, cursor_path
        super().__init__(f"resource {resource} cursor {cursor_path}: {message}")


class IncrementalCursorPathMissing(IncrementalError):
    def __init__(self, resource: str, cursor_path: str, row: Any):
        self.row = row
        super().__init__(resource, cursor_path, f"a row has no value at the cursor path (on_cursor_value_missing='raise'): {str(row)[:200]}")


class IncrementalBoundaryOverflow(IncrementalError):
    def __init__(self, resource: str, cursor_path: str, value: Any, count: int, limit: int):
        self.value, self.count, self.limit = value, count, limit
        super().__init__(
            resource, cursor_path,
            f"{count} rows share the boundary cursor value {value!r}, more than boundary_limit={limit}; nothing was "
            "loaded. Use a finer cursor, range_start='open' (the cursor is unique), primary_key=() to re-load "
            "boundary rows (pair with merge), or raise boundary_limit",
        )


class LocalStateError(SparkloadError):
    """A path cannot be used; the message names it, the problem and the remedy."""
    exit_code = 3

    def __init__(self, path: Any, problem: str, remedy: str):
        self.path, self.problem, self.remedy = path, problem, remedy
        super().__init__(f"{path}: {problem}; {remedy}")


class CorruptPackage(LocalStateError):
    def __init__(self, path: Any, load_id: str, problem: str, pipeline_name: str):
        self.load_id = load_id
        super().__init__(path, f"load package {load_id} is damaged ({problem}); it was moved here and nothing of it was loaded",
                         f"the next run extracts its rows again from the last committed cursor; "
                         f"`sparkload pipeline packages {pipeline_name}` lists such packages, --drop-failed deletes them")


class Busy(SparkloadError):
    exit_code = 4


class PipelineLocked(Busy):
    def __init__(self, pipeline_name: str, path: Any, holder: str):
        self.pipeline_name, self.path, self.holder = pipeline_name, path, holder
        super().__init__(f"pipeline {pipeline_name} is being written by {holder} (lock {path}); "
                         f"wait for it to finish or pass --wait SECONDS")


class CatalogBusy(Busy):
    pass


_REMEDIES = {
    errno.EROFS: ("the file system is read-only", "point {setting} at a writable directory"),
    errno.EACCES: ("permission denied", "make it writable for this user or point {setting} elsewhere"),
    errno.EPERM: ("operation not permitted", "make it writable for this user or point {setting} elsewhere"),
    errno.ENOSPC: ("no space left on the device", "free space there (old load packages: `sparkload pipeline packages NAME`) or point {setting} elsewhere"),
    errno.EDQUOT: ("disk quota exceeded", "free space there or point {setting} elsewhere"),
    errno.ENAMETOOLONG: ("the name is too long for the file system", "shorten the table or resource name (the `table_name` hint)"),
    errno.ENOENT: ("does not exist", "create it or point {setting} at an existing directory"),
    errno.ENOTDIR: ("a part of the path is not a directory", "point {setting} at a directory"),
}


def shown_name(name: str) -> str:
    """A name as an error shows it: a long one cut in the middle, with its length."""
    return name if len(name) <= 60 else f"{name[:20]}...{name[-10:]} ({len(name)} characters)"


def from_os_error(error: OSError, setting: str = "the setting that names it") -> LocalStateError:
    """`error` as a one-line `LocalStateError`: the path, the problem, the remedy (`setting` names the
    option or variable that chose the path, e.g. `--pipelines-dir`)."""
    problem, remedy = _REMEDIES.get(error.errno, (error.strerror or str(error), "check the path and {setting}"))
    path = error.filename if error.filename is not None else "(path unknown)"
    if error.errno == errno.ENAMETOOLONG and isinstance(path, str):
        path = "/".join(map(shown_name, path.split("/")))
    return LocalStateError(path, problem, remedy.format(setting=setting))
