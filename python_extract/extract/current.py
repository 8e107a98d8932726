"""dlt's `dlt.current`, for code inside a resource while a pipeline extracts it: `resource_state()` is the
resource's state dict and `source_state()` its source's, both committed with the load as cursors are
(`sources.<source>.resources.<resource>` in the pipeline state, dlt's layout); `resource_name()` and
`source_name()` say which. Outside an extraction each raises `SparkloadError`. `pipeline()` is the pipeline
created or run last in this process (dlt's active pipeline), anywhere."""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, NamedTuple, Optional

from ..errors import SparkloadError


class _Extracting(NamedTuple):
    source: str
    resource: str
    source_state: Dict[str, Any]
    resource_state: Dict[str, Any]


_CURRENT: contextvars.ContextVar[Optional[_Extracting]] = contextvars.ContextVar("sparkload_current", default=None)


@contextmanager
def extracting(source: str, resource: str, source_state: Dict[str, Any], resource_state: Dict[str, Any]) -> Iterator[None]:
    """What `current` answers while the extractor runs `resource` (python_extract/extract/extractor.py)."""
    token = _CURRENT.set(_Extracting(source, resource, source_state, resource_state))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def stepped_as(iterator: Iterator[Any], source: str, resource: str, source_state: Dict[str, Any],
               resource_state: Dict[str, Any]) -> Iterator[Any]:
    """`iterator` with each of its steps run as `resource` being extracted: a parent resource run inside its
    transformer's pass sees its own state, as in dlt."""
    steps = iter(iterator)
    try:
        while True:
            with extracting(source, resource, source_state, resource_state):
                try:
                    item = next(steps)
                except StopIteration:
                    return
            yield item
    finally:
        with extracting(source, resource, source_state, resource_state):
            getattr(steps, "close", lambda: None)()


def _now(what: str) -> _Extracting:
    found = _CURRENT.get()
    if found is None:
        raise SparkloadError(f"current.{what}() is asked outside a resource being extracted; call it inside the "
                             "resource function, while a pipeline extracts it")
    return found


def resource_state() -> Dict[str, Any]:
    return _now("resource_state").resource_state


def source_state() -> Dict[str, Any]:
    return _now("source_state").source_state


def resource_name() -> str:
    return _now("resource_name").resource


def source_name() -> str:
    return _now("source_name").source


_ACTIVE: List[Any] = []  # the pipeline created or run last in this process


def activate(pipeline_: Any) -> None:
    """Make `pipeline_` the one `pipeline()` answers (python_extract/pipeline.py calls it)."""
    _ACTIVE[:] = [pipeline_]


def pipeline() -> Any:
    if not _ACTIVE:
        raise SparkloadError("current.pipeline(): no pipeline was created in this process yet; create one with "
                             "pipeline(pipeline_name=...)")
    return _ACTIVE[0]
