"""The Airbyte-CDK-style Stream API end to end into staging tables: checkpoint interval, slices with
resume at the failed slice, out-of-order records rejected with a checkpoint interval, and the state
getter/setter round trip through the lakehouse."""
from __future__ import annotations

import pytest

from python_extract.errors import PipelineStepFailed
from python_extract.extract.stream import Stream

from ..support.staging import staged

DAYS = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"]


class Events(Stream):
    primary_key = "id"
    cursor_field = "ts"

    def __init__(self, fail_on=None, interval=None, rows_per_day=2, shuffle=False):
        super().__init__()
        self.fail_on, self.state_checkpoint_interval = fail_on, interval
        self.rows_per_day, self.shuffle, self.slices_read = rows_per_day, shuffle, []

    def stream_slices(self, stream_state=None):
        start = (stream_state or {}).get("ts")
        return [{"day": d} for d in DAYS if start is None or d > start[:10]]

    def read_records(self, stream_slice=None, stream_state=None):
        day = stream_slice["day"]
        self.slices_read.append(day)
        hours = list(range(self.rows_per_day))
        if self.shuffle:
            hours.reverse()
        for n, h in enumerate(hours):
            if self.fail_on == (day, n):
                raise RuntimeError(f"API down on {day}")
            yield {"id": f"{day}-{h}", "ts": f"{day}T{h:02d}:00:00Z"}


def _stored(pipe):
    pipe.sync_destination()
    return pipe.state["sources"][pipe.pipeline_name]["resources"]["events"]["custom"]["stream_state"]


def test_stream__slices_checkpoint_and_a_failure_in_slice_3_resumes_at_slice_3(pipe):
    with pytest.raises(PipelineStepFailed, match="API down on 2026-01-03"):
        pipe.run(Events(fail_on=("2026-01-03", 1)))
    # slices 1 and 2 landed with their checkpoints; slice 3's row read before the failure did not
    assert _stored(pipe) == {"ts": "2026-01-02T01:00:00Z"}
    assert [r[0] for r in staged(pipe, "events", "id")] == ["2026-01-01-0", "2026-01-01-1", "2026-01-02-0", "2026-01-02-1"]

    again = Events()
    pipe.run(again)
    assert again.slices_read == ["2026-01-03", "2026-01-04", "2026-01-05"]
    assert _stored(pipe) == {"ts": "2026-01-05T01:00:00Z"}
    assert {r[0] for r in staged(pipe, "events", "id")} == {f"{d}-{h}" for d in DAYS for h in (0, 1)}


def test_stream__checkpoint_interval_commits_inside_a_slice(pipe):
    with pytest.raises(PipelineStepFailed):
        pipe.run(Events(interval=2, rows_per_day=5, fail_on=("2026-01-01", 4)))
    assert _stored(pipe) == {"ts": "2026-01-01T03:00:00Z"}  # 4 rows = 2 checkpoints of 2
    loads = pipe.spark.sql(f"select count(*) c from `{pipe.dataset_name}`._dlt_loads").first().c
    assert loads == 2


def test_stream__out_of_order_records_with_a_checkpoint_interval_are_rejected(pipe):
    with pytest.raises(PipelineStepFailed, match="needs records in ascending cursor order"):
        pipe.run(Events(interval=1, shuffle=True))


class Tickets(Stream):
    """Keeps its own state through the getter/setter (IncrementalMixin style)."""
    primary_key = "id"
    cursor_field = "n"

    def __init__(self, upto):
        super().__init__()
        self.upto, self._cursor, self.started_from = upto, 0, None

    @property
    def state(self):
        return {"n": self._cursor, "note": "own state"}

    @state.setter
    def state(self, value):
        self._cursor = value.get("n", 0)
        self.started_from = self._cursor

    def read_records(self, stream_slice=None, stream_state=None):
        for n in range(self._cursor + 1, self.upto + 1):
            self._cursor = n
            yield {"id": n, "n": n}


def test_stream__state_getter_and_setter_round_trip_through_the_lakehouse(pipe):
    pipe.run(Tickets(upto=3))
    second = Tickets(upto=5)
    pipe.run(second)
    assert second.started_from == 3
    pipe.sync_destination()
    assert pipe.state["sources"][pipe.pipeline_name]["resources"]["tickets"]["custom"]["stream_state"] == {"n": 5, "note": "own state"}
    assert staged(pipe, "tickets", "id") == [(1,), (2,), (3,), (4,), (5,)]
