"""Incremental cursors end to end into staging tables: boundary deduplication, range_start/range_end,
end_value backfills, initial/start/last values. Each test narrates its loads (dlt's rules IN1-IN7)."""
from __future__ import annotations

import pytest

import python_extract as sl

from ..support.staging import cursor, loads, staged

# `--suite ci` leaves this file out (make test-all runs it): the same cursor rules run against dlt in
# tests/parity_extract/test_incremental_parity.py, end to end into staging, and in the fast tier
# (test_cursor_rules.py)
pytestmark = pytest.mark.extended


def _rows(*pairs):
    return [{"id": i, "val": v, "ts": ts} for i, v, ts in pairs]


class TestBoundaryDeduplication:
    RUN_1 = [(1, "a", 1), (2, "b", 2), (3, "c", 3), (3, "d", 3), (3, "e", 3)]
    RUN_2 = [(4, "g", 4), (3, "c", 3), (3, "d", 3), (3, "e", 3), (3, "f", 3)]

    def _resource(self, data, **hints):
        @sl.resource(name="t", **hints)
        def t(ts=sl.incremental("ts")):
            yield from data
        return t

    def test_equal_cursor_at_boundary__is_reread_and_deduplicated_by_content(self, pipe):
        data = _rows(*self.RUN_1)
        pipe.run(self._resource(data))                        # load 1: c, d, e share the boundary ts=3
        data[:] = _rows(*self.RUN_2)
        pipe.run(self._resource(data))                        # load 2: boundary rows come again, f is new
        assert staged(pipe, "t", "id", "val") == [(1, "a"), (2, "b"), (3, "c"), (3, "d"), (3, "e"), (3, "f"), (4, "g")]
        assert cursor(pipe, "t", "ts") == 4

    def test_equal_cursor_at_boundary__is_deduplicated_by_primary_key(self, pipe):
        data = [{"id": n, "ts": 3 if n > 2 else n} for n in (1, 2, 3, 4)]
        pipe.run(self._resource(data, primary_key="id"))      # load 1: ids 3 and 4 at the boundary
        data[:] = [{"id": 3, "ts": 3, "changed": True}, {"id": 4, "ts": 3}, {"id": 5, "ts": 3}]
        pipe.run(self._resource(data, primary_key="id"))      # load 2: same keys are skipped although changed
        assert staged(pipe, "t", "id") == [(1,), (2,), (3,), (4,), (5,)]

    def test_empty_incremental_primary_key__disables_dedup_and_reloads_boundary_rows(self, pipe):
        data = [{"id": 1, "ts": 1}, {"id": 2, "ts": 2}]

        @sl.resource(name="t", primary_key="id")
        def t(ts=sl.incremental("ts", primary_key=())):
            yield from data

        pipe.run(t)
        pipe.run(t)                                           # the boundary row (ts=2) is re-read and kept
        assert staged(pipe, "t", "id") == [(1,), (2,), (2,)]

    def test_incremental_primary_key__dedups_without_becoming_a_table_hint(self, pipe):
        data = [{"id": 1, "ts": 1, "v": "x"}, {"id": 2, "ts": 1, "v": "y"}]

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", primary_key="id")):
            yield from data

        pipe.run(t)
        data.append({"id": 1, "ts": 1, "v": "changed"})
        pipe.run(t)
        assert staged(pipe, "t", "id", "v") == [(1, "x"), (2, "y")]
        assert pipe.default_schema.tables["t"].primary_key == []

    def test_back_to_back_runs_without_new_data__make_no_load(self, pipe):
        data = [{"id": 1, "ts": 1}]
        pipe.run(self._resource(data))
        before = loads(pipe)
        info = pipe.run(self._resource(data))
        assert info.load_ids == [] and loads(pipe) == before
        assert staged(pipe, "t", "id") == [(1,)]

    def test_random_column__defeats_content_hash_dedup_as_in_dlt(self, pipe):
        import uuid

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts")):
            yield {"ts": 1, "nonce": uuid.uuid4().hex}

        pipe.run(t)
        pipe.run(t)                                           # a different hash: the boundary row loads again
        assert len(staged(pipe, "t", "ts")) == 2

    def test_boundary_state__is_bounded_and_an_overflow_fails_before_anything_lands(self, pipe):
        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", boundary_limit=3)):
            yield from ({"id": n, "ts": 7} for n in range(5))

        with pytest.raises(sl.PipelineStepFailed) as failed:
            pipe.run(t)
        message = str(failed.value)
        assert "extract step failed" in message and "table t" in message and "boundary_limit=3" in message
        assert "5 rows share the boundary cursor value 7" in message
        assert loads(pipe) == [] and not pipe.spark.catalog.tableExists(f"{pipe.dataset_name}.t")

    def test_boundary_state__stores_only_the_keys_of_the_last_value(self, pipe):
        data = [{"id": n, "ts": n // 2} for n in range(10)]
        pipe.run(self._resource(data, primary_key="id"))
        pipe.sync_destination()
        entry = pipe.state["sources"][pipe.pipeline_name]["resources"]["t"]["incremental"]["ts"]
        assert entry["last_value"] == 4 and len(entry["unique_hashes"]) == 2


class TestRanges:
    def _run(self, pipe, data, **incremental):
        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", **incremental)):
            yield from data
        return pipe.run(t)

    @pytest.mark.parametrize("range_start, expected", [("closed", list(range(5, 12))), ("open", list(range(6, 12)))])
    def test_range_start__decides_whether_the_initial_value_is_included(self, pipe, range_start, expected):
        self._run(pipe, [{"ts": n} for n in range(1, 12)], initial_value=5, range_start=range_start)
        assert [r[0] for r in staged(pipe, "t", "ts")] == expected

    def test_range_start_open__with_all_values_equal_to_the_start_loads_nothing(self, pipe):
        info = self._run(pipe, [{"ts": 1}] * 4, initial_value=1, range_start="open")
        assert info.row_counts == {}

    def test_range_start_open__second_run_skips_the_boundary_without_dedup_state(self, pipe):
        data = [{"ts": 1}, {"ts": 2}]
        self._run(pipe, data, range_start="open")
        data.append({"ts": 3})
        self._run(pipe, data, range_start="open")
        assert staged(pipe, "t", "ts") == [(1,), (2,), (3,)]
        pipe.sync_destination()
        assert pipe.state["sources"][pipe.pipeline_name]["resources"]["t"]["incremental"]["ts"]["unique_hashes"] == []

    @pytest.mark.parametrize("range_end, last", [("open", 9), ("closed", 10)])
    def test_range_end__decides_whether_the_end_value_is_included(self, pipe, range_end, last):
        self._run(pipe, [{"ts": n} for n in range(1, 20)], initial_value=5, end_value=10, range_end=range_end)
        assert [r[0] for r in staged(pipe, "t", "ts")] == list(range(5, last + 1))

    def test_chained_half_open_backfills__load_the_union_without_overlap_or_gap(self, pipe):
        endless = [{"ts": n} for n in range(0, 80)]
        for start, end in ((40, 50), (50, 60), (60, 61), (62, 70), (20, 30)):
            self._run(pipe, endless, initial_value=start, end_value=end)
        expected = list(range(40, 61)) + list(range(62, 70)) + list(range(20, 30))
        assert sorted(r[0] for r in staged(pipe, "t", "ts")) == sorted(expected)

    def test_end_value_backfill__leaves_saved_state_alone(self, pipe):
        data = [{"ts": n} for n in range(10, 20)]
        self._run(pipe, data, initial_value=10)                           # load 1: incremental, cursor 19
        self._run(pipe, [{"ts": n} for n in range(0, 10)], initial_value=0, end_value=10)   # backfill [0, 10)
        assert cursor(pipe, "t", "ts") == 19
        data.append({"ts": 20})
        self._run(pipe, data, initial_value=10)                           # load 3 continues from 19
        assert [r[0] for r in staged(pipe, "t", "ts")] == list(range(0, 21))

    def test_end_value_without_initial_value__is_rejected(self):
        with pytest.raises(sl.IncrementalError, match="end_value needs an initial_value"):
            sl.incremental("ts", end_value=5)

    @pytest.mark.parametrize("func, initial, end", [(max, 10, 5), (min, 5, 10)])
    def test_end_value_on_the_wrong_side_of_initial_value__is_rejected(self, func, initial, end):
        with pytest.raises(sl.IncrementalError, match="is before initial_value"):
            sl.incremental("ts", initial_value=initial, end_value=end, last_value_func=func)


class TestValues:
    def test_initial_value__filters_the_first_run(self, pipe):
        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=3)):
            yield from ({"ts": n} for n in range(6))

        pipe.run(t)
        assert staged(pipe, "t", "ts") == [(3,), (4,), (5,)]

    def test_first_run_without_initial_value__loads_everything_and_stores_the_max(self, pipe):
        @sl.resource(name="t")
        def t(ts=sl.incremental("ts")):
            yield from ({"ts": n} for n in (5, 1, 3))

        pipe.run(t)
        assert len(staged(pipe, "t", "ts")) == 3 and cursor(pipe, "t", "ts") == 5

    def test_start_value__is_the_last_value_of_the_previous_run_and_last_value_follows_rows(self, pipe):
        seen = []
        data = [{"ts": 1}, {"ts": 4}, {"ts": 2}]

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=0)):
            seen.append(("start", ts.start_value))
            for row in data:
                yield row
                seen.append(("last", ts.last_value))

        pipe.run(t)
        data[:] = [{"ts": 6}]
        pipe.run(t)
        assert seen == [("start", 0), ("last", 1), ("last", 4), ("last", 4), ("start", 4), ("last", 6)]

    def test_incremental_given_at_call_time__overrides_the_default(self, pipe):
        @sl.resource(name="t")
        def t(ts=sl.incremental("ts")):
            yield from ({"ts": n} for n in range(10))

        pipe.run(t(ts=sl.incremental("ts", initial_value=3, end_value=6)))
        assert staged(pipe, "t", "ts") == [(3,), (4,), (5,)]

    def test_incremental_hint__filters_a_resource_without_a_cursor_argument(self, pipe):
        data = [{"ts": n} for n in range(5)]
        res = sl.resource(data, name="t", incremental=sl.incremental("ts", initial_value=2))
        pipe.run(res)
        data.append({"ts": 5})
        pipe.run(res)
        assert staged(pipe, "t", "ts") == [(2,), (3,), (4,), (5,)]

    def test_replace_disposition__resets_the_cursor_every_run(self, pipe):
        data = [{"ts": 1}, {"ts": 2}]

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts")):
            yield from data

        pipe.run(t)
        assert pipe.run(t).load_ids == []                     # nothing new: no package
        info = pipe.run(t, write_disposition="replace")       # replace: state reset, full data again
        assert info.row_counts == {"t": 2}
