"""Airbyte-CDK-style streams for source authors, on the same engine as `resource`.

    class Employees(Stream):
        primary_key = "id"
        cursor_field = "updated_at"
        state_checkpoint_interval = 100

        def stream_slices(self, stream_state=None):
            start = (stream_state or {}).get("updated_at", "2024-01-01")
            for day in days_since(start):
                yield {"day": day}

        def read_records(self, stream_slice=None, stream_state=None):
            yield from api.employees(changed_on=stream_slice["day"])

    pipeline.run(Employees())       # or stream_resource(Employees())

State: the `state` property (getter/setter, as Airbyte's IncrementalMixin). A stream that does not keep
state itself gets the default: `{cursor_field: <highest value read>}`. The state is restored from the
lakehouse before `stream_slices`, and checkpointed — committed with the rows read so far, as one load —
every `state_checkpoint_interval` records (only legal for ascending cursors: a record older than the
previous one in the same slice is an error) and after every slice, so a failure in slice N resumes at
slice N.

Substreams (the CDK's `HttpSubStream` and declarative `ParentStreamConfig`): a stream with a `parent`
stream is read per parent record, its default slices being `{"parent": <record>}`. With
`incremental_dependency = True` the parent is read incrementally on a state of its own kept inside this
stream's state (`parent_state: {<parent name>: <its state>}`), so only the parents changed since the last
sync are read; that parent state is saved with the final checkpoint only, after every slice of those
parents (a failure reads the same parents again). The stream keeps one state for every parent, which is
the CDK's `global_substream_cursor` without its added lookback of the last sync's duration.
"""
from __future__ import annotations

import copy
import re
from abc import ABC, abstractmethod
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Union

from ..contract import as_key_list
from ..errors import SparkloadError
from .checkpoint import CHECKPOINT
from .incremental import cursor_key
from .resource import Resource, ResourceState


class StreamOrderError(SparkloadError):
    pass


def _path(field: Union[str, List[str], None]) -> List[str]:
    return [] if not field else ([field] if isinstance(field, str) else list(field))


def _at(record: Mapping[str, Any], path: List[str]) -> Any:
    value: Any = record
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


class Stream(ABC):
    primary_key: Union[str, List[str], None] = None
    cursor_field: Union[str, List[str], None] = None
    state_checkpoint_interval: Optional[int] = None
    parent: Optional["Stream"] = None
    incremental_dependency: bool = False

    def __init__(self) -> None:
        self._state: Dict[str, Any] = {}

    @property
    def name(self) -> str:
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type(self).__name__).lower()

    @property
    def state(self) -> Dict[str, Any]:
        return self._state

    @state.setter
    def state(self, value: Dict[str, Any]) -> None:
        self._state = dict(value or {})

    def stream_slices(self, stream_state: Optional[Mapping[str, Any]] = None) -> Iterable[Optional[Mapping[str, Any]]]:
        if self.parent is None:
            return [None]
        return ({"parent": record} for record in self.parent_records())

    def parent_records(self) -> Iterator[Mapping[str, Any]]:
        """The parent's records: all of them, or with `incremental_dependency` those read from the parent
        state this stream keeps (the parent's new state is saved by `stream_resource` after the last slice)."""
        parent = self.parent
        if parent is None:
            raise ValueError(f"stream {self.name}: parent_records() needs a parent stream")
        if self.incremental_dependency:
            parent.state = copy.deepcopy((self.state.get("parent_state") or {}).get(parent.name) or {})
        start = copy.deepcopy(parent.state)
        path = _path(parent.cursor_field)
        tracks = self.incremental_dependency and path and type(parent).state is Stream.state
        for parent_slice in parent.stream_slices(stream_state=start):
            for record in parent.read_records(stream_slice=parent_slice, stream_state=start):
                if tracks:
                    parent._track(record, path)
                yield record

    @abstractmethod
    def read_records(self, stream_slice: Optional[Mapping[str, Any]] = None,
                     stream_state: Optional[Mapping[str, Any]] = None) -> Iterable[Mapping[str, Any]]:
        """The records of one slice."""

    def _track(self, record: Mapping[str, Any], path: List[str]) -> None:
        """The default state: the highest cursor value read (streams that set `state` themselves win)."""
        value = _at(record, path)
        if value is None:
            return
        key = path[-1]
        current = self._state.get(key)
        if current is None or cursor_key(value) > cursor_key(current):
            self._state[key] = value


def stream_resource(stream: Stream) -> Resource:
    """The resource that reads `stream` slice by slice, checkpointing as the stream's class says."""
    path = _path(stream.cursor_field)
    interval = stream.state_checkpoint_interval
    tracks = type(stream).state is Stream.state  # the stream does not manage its state itself

    def read(saved=ResourceState()) -> Iterator[Any]:
        if "stream_state" in saved:
            stream.state = copy.deepcopy(saved["stream_state"])
        for stream_slice in stream.stream_slices(stream_state=stream.state):
            count, previous = 0, None
            for record in stream.read_records(stream_slice=stream_slice, stream_state=stream.state):
                if interval and path:
                    value = _at(record, path)
                    if previous is not None and value is not None and cursor_key(value) < cursor_key(previous):
                        raise StreamOrderError(
                            f"stream {stream.name}: record with {'.'.join(path)}={value!r} came after {previous!r} in "
                            f"slice {stream_slice}; state_checkpoint_interval needs records in ascending cursor order "
                            f"(sort them, or checkpoint per slice only by leaving state_checkpoint_interval unset)")
                    previous = value if value is not None else previous
                if tracks and path:
                    stream._track(record, path)
                yield record
                count += 1
                if interval and count % interval == 0:
                    saved["stream_state"] = copy.deepcopy(stream.state)
                    yield CHECKPOINT
            saved["stream_state"] = copy.deepcopy(stream.state)
            yield CHECKPOINT
        if stream.parent is not None and stream.incremental_dependency:
            state = stream.state
            state["parent_state"] = {stream.parent.name: copy.deepcopy(stream.parent.state)}
            stream.state = state
            saved["stream_state"] = copy.deepcopy(stream.state)
            yield CHECKPOINT

    keys = stream.primary_key
    primary_key = as_key_list(keys) if not (isinstance(keys, list) and keys and isinstance(keys[0], list)) else [k[0] for k in keys]
    return Resource(read, stream.name, primary_key=primary_key or None,
                    write_disposition="merge" if primary_key else "append")
