"""Date windows (Airbyte's DatetimeBasedCursor): window bounds, per-window checkpoints and resume,
lookback. The bounds are pure Python; the checkpoint tests run end to end into staging tables."""
from __future__ import annotations

import pendulum
import pytest

import python_extract as sl
from python_extract.extract.windows import DateWindows

from ..support.staging import loads, staged

NOW = pendulum.datetime(2030, 1, 1, tz="UTC")


def _bounds(spec, saved=None, now=NOW):
    return [(w.start_str, w.end_str) for w in spec.windows(saved, now=now)]


def test_windows__cover_the_range_exactly_as_airbytes_example():
    spec = sl.date_windows("2022-01-01T00:00:00Z", "2022-01-05T12:00:00Z", step="P1D", cursor_granularity="PT1S")
    assert _bounds(spec) == [
        ("2022-01-01T00:00:00Z", "2022-01-01T23:59:59Z"), ("2022-01-02T00:00:00Z", "2022-01-02T23:59:59Z"),
        ("2022-01-03T00:00:00Z", "2022-01-03T23:59:59Z"), ("2022-01-04T00:00:00Z", "2022-01-04T23:59:59Z"),
        ("2022-01-05T00:00:00Z", "2022-01-05T12:00:00Z"),
    ]


def test_windows__end_defaults_to_now_and_never_passes_it():
    spec = sl.date_windows("2029-12-30T00:00:00Z", step="P1D", cursor_granularity="PT1S")
    assert _bounds(spec)[-1] == ("2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z")
    later = sl.date_windows("2029-12-31T00:00:00Z", "2031-01-01", step="P1D", cursor_granularity="PT1S")
    assert len(_bounds(later)) == 2


def test_windows__resume_after_the_saved_end_moved_back_by_the_lookback_but_never_before_start():
    spec = sl.date_windows("2024-01-10T00:00:00Z", "2024-01-12T00:00:00Z", step="P1D", cursor_granularity="PT1S",
                           lookback_window="P7D")
    saved = DateWindows.checkpoint(list(spec.windows(None, NOW))[0])
    assert _bounds(spec, saved)[0][0] == "2024-01-10T00:00:00Z"
    short = sl.date_windows("2024-01-10T00:00:00Z", "2024-01-12T00:00:00Z", step="P1D", cursor_granularity="PT1S",
                            lookback_window="PT1H")
    assert _bounds(short, saved)[0] == ("2024-01-10T23:00:00Z", "2024-01-11T22:59:59Z")


def test_windows__without_step_make_one_window_and_step_needs_granularity():
    assert len(_bounds(sl.date_windows("2024-01-01", "2024-02-01"))) == 1
    with pytest.raises(ValueError, match="step and cursor_granularity together"):
        sl.date_windows("2024-01-01", step="P1D")


def _daily(calls, fail_at=None, empty=()):
    @sl.resource(name="events", primary_key="id")
    def events(window=sl.date_windows("2024-03-01T00:00:00Z", "2024-03-05T23:59:59Z", step="P1D",
                                      cursor_granularity="PT1S", datetime_format="%Y-%m-%d")):
        calls.append(window.start_str)
        if window.start_str == fail_at:
            raise RuntimeError("API down")
        if window.start_str not in empty:
            yield {"id": window.start_str, "day": window.start.day}
    return events


def test_each_completed_window__lands_as_its_own_load(pipe):
    calls = []
    info = pipe.run(_daily(calls))
    assert calls == ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05"]
    assert len(info.load_ids) == 5 and len(loads(pipe)) == 5
    assert [r[0] for r in staged(pipe, "events", "day")] == [1, 2, 3, 4, 5]


def test_failure_in_window_3_of_5__keeps_windows_1_2_and_resumes_at_window_3(pipe, make_pipeline):
    calls = []
    with pytest.raises(sl.PipelineStepFailed, match="API down"):
        pipe.run(_daily(calls, fail_at="2024-03-03"))
    assert [r[0] for r in staged(pipe, "events", "day")] == [1, 2]          # windows 1-2 landed with their state
    resumed = []
    make_pipeline(fresh=True).run(_daily(resumed))                          # even on a new machine
    assert resumed == ["2024-03-03", "2024-03-04", "2024-03-05"]
    assert [r[0] for r in staged(pipe, "events", "day")] == [1, 2, 3, 4, 5]


def test_empty_windows__make_no_load_but_advance_the_checkpoint(pipe):
    calls = []
    info = pipe.run(_daily(calls, empty=("2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05")))
    assert len(info.load_ids) == 2                                           # window 1, then the final state
    again = []
    assert pipe.run(_daily(again)).load_ids == [] and again == []
