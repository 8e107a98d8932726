"""Fast tier (no JVM): the incremental cursor, date window and state rules as pure Python, run after run
on a resource state dict, as the extractor drives them (`bind` per run, the cursor per row, `commit`).
The same rules run end to end into staging tables in tests/extract/test_incremental_*.py and
test_windows.py, and against real dlt in tests/parity_extract/."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pendulum
import pytest

from python_extract.errors import IncrementalBoundaryOverflow, IncrementalCursorPathMissing, IncrementalError
from python_extract.extract.incremental import Incremental
from python_extract.extract.windows import DateWindows
from python_extract.state import compress, decompress, snapshot

pytestmark = pytest.mark.fast

UTC = dt.timezone.utc


def run(cursor: Incremental, rows, state: dict, primary_key=()):
    """One extract run of resource `t`: the rows the cursor keeps; `state` is updated in place."""
    bound = cursor.bind(state, "t", primary_key)
    kept = [r for r in rows if bound(r)]
    bound.commit()
    return kept


def stored(state: dict, path: str = "ts") -> dict:
    return state["incremental"][path]


def ids(rows):
    return [r["id"] for r in rows]


class TestBoundaryDeduplication:
    def test_rows_at_the_stored_last_value__are_reread_and_dropped_by_content_hash(self):
        state, ts = {}, Incremental("ts")
        run(ts, [{"id": 1, "ts": 1}, {"id": 2, "ts": 3}, {"id": 3, "ts": 3}], state)       # run 1: two rows at ts=3
        kept = run(ts, [{"id": 2, "ts": 3}, {"id": 3, "ts": 3}, {"id": 4, "ts": 3}, {"id": 5, "ts": 4}], state)
        assert ids(kept) == [4, 5]                                                            # run 2: only new rows
        assert stored(state)["last_value"] == 4 and len(stored(state)["unique_hashes"]) == 1

    def test_primary_key__dedups_by_key_even_when_the_row_changed(self):
        state, ts = {}, Incremental("ts")
        run(ts, [{"id": 1, "ts": 3}], state, primary_key=["id"])
        assert run(ts, [{"id": 1, "ts": 3, "v": "changed"}, {"id": 2, "ts": 3}], state, primary_key=["id"]) == [
            {"id": 2, "ts": 3}]

    def test_empty_primary_key__disables_dedup(self):
        state, ts = {}, Incremental("ts", primary_key=())
        run(ts, [{"id": 1, "ts": 3}], state)
        assert ids(run(ts, [{"id": 1, "ts": 3}], state)) == [1] and stored(state)["unique_hashes"] == []

    def test_more_rows_at_the_boundary_than_the_limit__fail_the_commit(self):
        with pytest.raises(IncrementalBoundaryOverflow, match="5 rows share the boundary cursor value 7"):
            run(Incremental("ts", boundary_limit=3), [{"id": n, "ts": 7} for n in range(5)], {})

    def test_boundary_keys__are_kept_only_for_the_last_value(self):
        state = {}
        run(Incremental("ts"), [{"id": n, "ts": n // 2} for n in range(10)], state, primary_key=["id"])
        assert stored(state)["last_value"] == 4 and len(stored(state)["unique_hashes"]) == 2


class TestRanges:
    @pytest.mark.parametrize("range_start, first", [("closed", 5), ("open", 6)])
    def test_range_start__decides_whether_the_initial_value_is_included(self, range_start, first):
        kept = run(Incremental("ts", initial_value=5, range_start=range_start), [{"ts": n} for n in range(1, 12)], {})
        assert [r["ts"] for r in kept] == list(range(first, 12))

    @pytest.mark.parametrize("range_end, last", [("open", 7), ("closed", 8)])
    def test_end_value__is_a_stateless_backfill_with_an_open_or_closed_end(self, range_end, last):
        state = {"incremental": {"ts": {"last_value": 100}}}
        kept = run(Incremental("ts", initial_value=2, end_value=8, range_end=range_end), [{"ts": n} for n in range(12)], state)
        assert [r["ts"] for r in kept] == list(range(2, last + 1))
        assert state == {"incremental": {"ts": {"last_value": 100}}}                          # no state read or written

    def test_end_value_before_the_initial_value__is_refused(self):
        with pytest.raises(IncrementalError, match="end_value 1 is before initial_value 5 for max"):
            Incremental("ts", initial_value=5, end_value=1)

    @pytest.mark.parametrize("key, value", [("range_start", "half"), ("on_cursor_value_missing", "skip"),
                                            ("row_order", "up")])
    def test_unknown_option_values__are_refused_naming_the_choices(self, key, value):
        with pytest.raises(IncrementalError, match=f"{key}='{value}'; expected one of"):
            Incremental("ts", **{key: value})

    def test_last_value__never_moves_backwards(self):
        state, ts = {}, Incremental("ts")
        run(ts, [{"ts": 9}], state)
        run(Incremental("ts", primary_key=()), [{"ts": 9}], state)
        assert stored(state)["last_value"] == 9


class TestValues:
    def test_iso_text_datetimes_and_dates__compare_as_instants_naive_meaning_utc(self):
        kept = run(Incremental("ts", initial_value="2024-01-01T02:00:00+02:00"),
                   [{"id": 1, "ts": "2023-12-31T23:59:59Z"}, {"id": 2, "ts": dt.datetime(2024, 1, 1)},
                    {"id": 3, "ts": dt.date(2024, 1, 2)}, {"id": 4, "ts": "2024-01-01T00:30:00"}], {})
        assert ids(kept) == [2, 3, 4]

    def test_min__keeps_rows_at_or_below_the_start_and_moves_down(self):
        state, ts = {}, Incremental("ts", initial_value=10, last_value_func=min)
        assert [r["ts"] for r in run(ts, [{"ts": 11}, {"ts": 10}, {"ts": 8}], state)] == [10, 8]
        assert [r["ts"] for r in run(ts, [{"ts": 9}, {"ts": 7}], state)] == [7] and stored(state)["last_value"] == 7

    @pytest.mark.parametrize("last, lag, rereads", [
        (10, 3, [7, 8, 9, 10]),
        ("2024-01-01T00:01:00Z", 30, ["2024-01-01T00:00:30Z", "2024-01-01T00:01:00Z"]),
        (dt.date(2024, 1, 10), 2, [dt.date(2024, 1, 8), dt.date(2024, 1, 10)]),
    ])
    def test_lag__rereads_the_last_units_seconds_or_days(self, last, lag, rereads):
        state = {"incremental": {"ts": {"last_value": last, "unique_hashes": []}}}
        candidates = [{"ts": v} for v in ([6, 7, 8, 9, 10] if isinstance(last, int) else
                                          ["2024-01-01T00:00:29Z", *rereads] if isinstance(last, str) else
                                          [dt.date(2024, 1, 7), *rereads])]
        assert [r["ts"] for r in run(Incremental("ts", lag=lag), candidates, state)] == rereads

    def test_custom_function__decides_on_its_own_values(self):
        state = {}
        run(Incremental("$", last_value_func=lambda vs: max(v["n"] if isinstance(v, dict) else v for v in vs)),
            [{"n": 2}, {"n": 5}], state)
        assert stored(state, "$")["last_value"] == 5


class TestCursorPaths:
    @pytest.mark.parametrize("path", ["meta.ts", "$.meta.ts", "items[0].ts", "items[-1].ts", "items[*].ts"])
    def test_nested_paths__take_the_first_match_as_dlt(self, path):
        row = {"meta": {"ts": 5}, "items": [{"x": 0}, {"ts": 5}]} if "meta" in path else {"items": [{"ts": 5}, {"ts": 5}]}
        state = {}
        assert run(Incremental(path, initial_value=4), [row], state) == [row]
        assert stored(state, path)["last_value"] == 5

    def test_a_quoted_field__may_hold_a_dot(self):
        assert Incremental('"a.b"', initial_value=1)._field == "a.b"

    def test_a_path_that_is_not_jsonpath__is_refused_naming_it(self):
        with pytest.raises(IncrementalError, match="cursor updated at: not a JSONPath: 'updated at'"):
            Incremental("updated at")

    def test_missing_value__raises_naming_resource_path_and_row(self):
        with pytest.raises(IncrementalCursorPathMissing, match=r"resource t cursor ts: a row has no value .*'id': 2"):
            run(Incremental("ts"), [{"id": 1, "ts": 1}, {"id": 2}], {})

    @pytest.mark.parametrize("policy, kept", [("include", [1, 2, 3]), ("exclude", [1])])
    def test_missing_value__include_or_exclude_without_moving_the_cursor(self, policy, kept):
        state = {}
        rows = [{"id": 1, "ts": 1}, {"id": 2}, {"id": 3, "ts": None}]
        assert ids(run(Incremental("ts", on_cursor_value_missing=policy), rows, state)) == kept
        assert stored(state)["last_value"] == 1


class TestRowOrder:
    @pytest.mark.parametrize("order, options, rows, closes_at", [
        ("asc", {"initial_value": 2, "end_value": 5}, range(0, 10), 5),
        ("desc", {"initial_value": 5}, range(9, -1, -1), 4),
    ])
    def test_row_order__lets_the_extractor_stop_at_the_first_row_out_of_range(self, order, options, rows, closes_at):
        bound = Incremental("ts", row_order=order, **options).bind({}, "t", ())
        for n in rows:
            bound({"ts": n})
            if bound.can_close():
                break
        assert n == closes_at


def test_external_scheduler__sets_the_range_from_the_environment(monkeypatch):
    monkeypatch.setenv("SPARKLOAD_INTERVAL_START", "3")
    monkeypatch.setenv("SPARKLOAD_INTERVAL_END", "6")
    assert Incremental("ts", allow_external_schedulers=True).initial_value == "3"
    assert (Incremental("ts", initial_value=1, allow_external_schedulers=False).initial_value,
            Incremental("ts", initial_value=1, allow_external_schedulers=False).end_value) == (1, None)


class TestWindows:
    NOW = pendulum.datetime(2030, 1, 1, tz="UTC")

    def bounds(self, spec, saved=None):
        return [(w.start_str, w.end_str) for w in spec.windows(saved, now=self.NOW)]

    def test_windows__end_one_granularity_before_the_next_start(self):
        spec = DateWindows("2024-01-01", "2024-01-03T12:00:00+02:00", step="P1D", cursor_granularity="PT1S")
        assert self.bounds(spec) == [("2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z"),
                                     ("2024-01-02T00:00:00Z", "2024-01-02T23:59:59Z"),
                                     ("2024-01-03T00:00:00Z", "2024-01-03T10:00:00Z")]

    def test_a_checkpoint__survives_the_state_round_trip_and_resumes_after_it(self):
        spec = DateWindows("2024-01-01", "2024-01-03", step="P1D", cursor_granularity="PT1S", datetime_format="%d")
        first = next(spec.windows(None, now=self.NOW))
        saved = decompress(compress(snapshot({"w": DateWindows.checkpoint(first)})))["w"]
        assert self.bounds(spec, saved) == [("02", "02"), ("03", "03")]

    @pytest.mark.parametrize("bad, message", [({"start": "P1D"}, "not a datetime: 'P1D'"),
                                              ({"start": "2024-01-01", "step": "2024-01-02", "cursor_granularity": "PT1S"},
                                               "not an ISO 8601 duration"),
                                              ({"start": "2024-01-01", "step": "P1D"}, "step and cursor_granularity together")])
    def test_bad_settings__are_refused(self, bad, message):
        with pytest.raises(ValueError, match=message):
            DateWindows(**bad)


def test_state__keeps_datetimes_dates_and_decimals_across_json_naive_staying_naive():
    values = {"aware": dt.datetime(2024, 1, 1, 10, tzinfo=UTC), "naive": dt.datetime(2024, 1, 1, 10),
              "day": dt.date(2024, 1, 1), "amount": Decimal("1.10"), "list": [dt.date(2024, 1, 2)]}
    back = decompress(compress(snapshot(values)))
    assert back == values
    assert back["naive"].tzinfo is None and back["aware"].tzinfo is not None
