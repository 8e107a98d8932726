"""Incremental cursors end to end: last_value_func (max, min, custom), cursor paths, missing cursor
values, row_order early stop, lag, time zones, Arrow tables (dlt's rules IN8-IN10, anchors F, G)."""
from __future__ import annotations

import datetime as dt

import pendulum
import pytest

import python_extract as sl

from ..support.staging import cursor, loads, staged


class TestLastValueFunc:
    def test_min__loads_rows_at_or_before_the_initial_value(self, pipe):
        now = pendulum.datetime(2024, 6, 1, tz="UTC")
        rows = [{"id": d, "ts": now.add(days=d)} for d in range(-10, 10)]

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=now, last_value_func=min)):
            yield from rows

        pipe.run(t)
        assert [r[0] for r in staged(pipe, "t", "id")] == list(range(-10, 1))
        assert cursor(pipe, "t", "ts") == now.add(days=-10)

    def test_min__a_second_run_continues_downward_only(self, pipe):
        data = [{"ts": 10}, {"ts": 8}]

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", last_value_func=min)):
            yield from data

        pipe.run(t)
        data[:] = [{"ts": 9}, {"ts": 8}, {"ts": 7}]
        pipe.run(t)
        assert staged(pipe, "t", "ts") == [(7,), (8,), (10,)]

    def test_custom_function__keeps_a_last_value_per_event_type(self, pipe):
        def by_event_type(event):
            item, last = event if len(event) == 2 else (event[0], None)
            last = dict(last or {})
            last[item["type"]] = max(item["created_at"], last.get(item["type"], "1970-01-01T00:00:00Z"))
            return last

        data = [{"id": 1, "type": "push", "created_at": "2024-01-02T00:00:00Z"},
                {"id": 2, "type": "star", "created_at": "2024-01-01T00:00:00Z"}]

        @sl.resource(name="events", primary_key="id")
        def events(last=sl.incremental("$", last_value_func=by_event_type)):
            yield from data

        pipe.run(events)
        assert cursor(pipe, "events", "$") == {"push": "2024-01-02T00:00:00Z", "star": "2024-01-01T00:00:00Z"}
        assert staged(pipe, "events", "id") == [(1,), (2,)]


class TestCursorPaths:
    @pytest.mark.parametrize("path", ["meta.updated_at", "$.meta.updated_at"])
    def test_nested_cursor_path__filters_and_advances_state(self, pipe, path):
        data = [{"id": n, "meta": {"updated_at": n}} for n in range(3)]

        @sl.resource(name="t")
        def t(ts=sl.incremental(path, initial_value=1)):
            yield from data

        pipe.run(t)
        data.append({"id": 3, "meta": {"updated_at": 3}})
        pipe.run(t)
        assert staged(pipe, "t", "id", "meta__updated_at") == [(1, 1), (2, 2), (3, 3)]
        assert cursor(pipe, "t", path) == 3

    def test_cursor_path_into_a_list__uses_the_indexed_element(self, pipe):
        @sl.resource(name="t")
        def t(ts=sl.incremental("versions[0].ts", initial_value=5)):
            yield {"id": 1, "versions": [{"ts": 4}, {"ts": 9}]}
            yield {"id": 2, "versions": [{"ts": 6}]}

        pipe.run(t)
        assert staged(pipe, "t", "id") == [(2,)]
        assert staged(pipe, "t__versions", "ts") == [(6,)]


class TestMissingCursor:
    DATA = [{"id": 1, "updated_at": 1}, {"id": 2}, {"id": 3, "updated_at": None}]

    def _resource(self, policy):
        data = self.DATA

        @sl.resource(name="t")
        def t(ts=sl.incremental("updated_at", on_cursor_value_missing=policy)):
            yield from data
        return t

    def test_raise__fails_naming_the_resource_table_and_load_and_lands_nothing(self, pipe):
        with pytest.raises(sl.PipelineStepFailed) as failed:
            pipe.run(self._resource("raise"))
        message = str(failed.value)
        assert "extract step failed load" in message and "table t" in message
        assert "cursor updated_at" in message and "'id': 2" in message
        assert loads(pipe) == []

    @pytest.mark.parametrize("policy, ids", [("include", [1, 2, 3]), ("exclude", [1])])
    def test_include_and_exclude__keep_or_drop_rows_without_moving_the_cursor(self, pipe, policy, ids):
        pipe.run(self._resource(policy))
        assert [r[0] for r in staged(pipe, "t", "id")] == ids
        assert cursor(pipe, "t", "updated_at") == 1


class TestRowOrder:
    def test_desc__stops_reading_at_the_first_row_before_the_start(self, pipe):
        pulled = []

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=10, row_order="desc")):
            for n in range(48, -1, -1):
                pulled.append(n)
                yield {"ts": n}

        pipe.run(t)
        assert len(staged(pipe, "t", "ts")) == 39 and pulled[-1] == 9

    def test_asc_with_end_value__stops_reading_at_the_end(self, pipe):
        pulled = []

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=22, end_value=45, row_order="asc")):
            n = 22
            while True:
                pulled.append(n)
                yield {"ts": n}
                n += 1

        pipe.run(t)
        assert len(staged(pipe, "t", "ts")) == 23 and pulled[-1] == 45

    def test_without_row_order__every_row_is_read_and_filtered(self, pipe):
        pulled = []

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=10)):
            for n in range(20, -1, -1):
                pulled.append(n)
                yield {"ts": n}

        pipe.run(t)
        assert len(staged(pipe, "t", "ts")) == 11 and len(pulled) == 21


class TestLag:
    def _runs(self, pipe, lag, runs):
        data = []

        @sl.resource(name="t", primary_key="id")
        def t(ts=sl.incremental("id", lag=lag)):
            yield from data

        for run in runs:
            data[:] = run
            pipe.run(t)

    def test_lag__rereads_the_last_units_and_never_moves_the_cursor_back(self, pipe):
        run1 = [{"id": n, "v": "0"} for n in (100, 200, 300)]
        run2 = [{"id": n, "v": "u1"} for n in (100, 200, 300, 400)]
        run3 = [{"id": n, "v": "u2"} for n in (100, 200, 300, 400, 500)]
        self._runs(pipe, 100, [run1, run2, run3])
        assert staged(pipe, "t", "id", "v") == [(100, "0"), (200, "0"), (200, "u1"), (300, "0"), (300, "u1"),
                                               (300, "u2"), (400, "u1"), (400, "u2"), (500, "u2")]
        assert cursor(pipe, "t", "id") == 500

    def test_lag_zero__behaves_like_no_lag(self, pipe):
        self._runs(pipe, 0, [[{"id": 1}], [{"id": 1}, {"id": 2}]])
        assert staged(pipe, "t", "id") == [(1,), (2,)]

    def test_lag_on_iso_datetimes__is_in_seconds_and_keeps_the_z_format(self, pipe):
        data = [{"id": 1, "at": "2024-01-01T10:00:00Z"}]

        @sl.resource(name="t")
        def t(at=sl.incremental("at", lag=3600)):
            data.append({"start": at.start_value})
            yield from [r for r in data if "id" in r]

        pipe.run(t)
        data[:] = [{"id": 2, "at": "2024-01-01T09:30:00Z"}, {"id": 3, "at": "2024-01-01T08:00:00Z"}]
        pipe.run(t)
        assert data[-1] == {"start": "2024-01-01T09:00:00Z"}
        assert staged(pipe, "t", "id") == [(1,), (2,)]
        assert cursor(pipe, "t", "at") == "2024-01-01T10:00:00Z"

    def test_lag_on_dates__is_in_days_and_never_crosses_the_initial_value(self, pipe):
        starts = []
        data = [{"d": dt.date(2024, 1, 3)}]

        @sl.resource(name="t")
        def t(d=sl.incremental("d", initial_value=dt.date(2024, 1, 2), lag=5)):
            starts.append(d.start_value)
            yield from data

        pipe.run(t)
        pipe.run(t)
        assert starts == [dt.date(2024, 1, 2), dt.date(2024, 1, 2)]
        assert staged(pipe, "t", "d") == [(dt.date(2024, 1, 3),), (dt.date(2024, 1, 3),)]


class TestTimeZones:
    def test_mixed_offsets__compare_as_instants(self, pipe):
        data = [{"id": 1, "at": "2024-01-01T12:00:00+07:00"}]   # 05:00 UTC

        @sl.resource(name="t", primary_key="id")
        def t(at=sl.incremental("at")):
            yield from data

        pipe.run(t)
        data[:] = [{"id": 2, "at": "2024-01-01T04:59:59Z"}, {"id": 3, "at": "2024-01-01T05:00:01Z"},
                   {"id": 1, "at": "2024-01-01T05:00:00.000000Z"}]
        pipe.run(t)
        assert staged(pipe, "t", "id") == [(1,), (3,)]

    def test_naive_datetimes__count_as_utc_against_an_aware_initial_value(self, pipe):
        @sl.resource(name="t")
        def t(at=sl.incremental("at", initial_value=pendulum.datetime(2024, 1, 1, 12, tz="Europe/Oslo"))):
            yield {"id": 1, "at": dt.datetime(2024, 1, 1, 10, 59)}   # before 11:00 UTC
            yield {"id": 2, "at": dt.datetime(2024, 1, 1, 11, 0)}

        pipe.run(t)
        assert staged(pipe, "t", "id") == [(2,)]


class TestArrowAndSources:
    def test_arrow_tables__are_filtered_by_the_cursor_and_land_with_dlt_columns(self, pipe):
        import pyarrow as pa

        data = pa.table({"Id": [1, 2, 3], "ts": [1, 2, 3]})

        @sl.resource(name="t")
        def t(ts=sl.incremental("ts", initial_value=2)):
            yield data

        pipe.run(t)
        assert staged(pipe, "t", "id", "ts") == [(2, 2), (3, 3)]
        ids = pipe.spark.sql(f"select _dlt_id, _dlt_load_id from {pipe.dataset_name}.t").collect()
        assert all(r["_dlt_id"] and r["_dlt_load_id"] for r in ids)

    def test_arrow_tables_with_a_timestamp_cursor__a_second_run_continues_from_the_stored_cursor(self, pipe):
        """The cursor comes back from the pipeline's state as a pendulum DateTime (as in dlt); the second run
        compared it with the Arrow column through stdlib arithmetic and failed (found by bench_extract)."""
        import pyarrow as pa

        t0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
        pages = [[1, 2, 3], [3, 4]]

        @sl.resource(name="ta", primary_key="id")
        def ta(ts=sl.incremental("ts", initial_value=t0)):
            ids = pages.pop(0)
            yield pa.table({"id": ids, "ts": pa.array([t0 + dt.timedelta(hours=i) for i in ids], pa.timestamp("us", tz="UTC"))})

        pipe.run(ta)
        pipe.run(ta)  # id 3 sits at the stored cursor, already loaded: dropped as a duplicate; id 4 is new
        assert staged(pipe, "ta", "id") == [(1,), (2,), (3,), (4,)]
        assert cursor(pipe, "ta", "ts") == t0 + dt.timedelta(hours=4)

    def test_resources_of_a_source__keep_separate_cursors_and_reset_touches_one(self, pipe):
        @sl.source
        def shop():
            @sl.resource
            def orders(ts=sl.incremental("ts")):
                yield from ({"ts": n} for n in range(3))

            @sl.resource
            def users(ts=sl.incremental("ts")):
                yield from ({"ts": n} for n in range(5))

            return [orders, users]

        pipe.run(shop())
        assert (cursor(pipe, "orders", "ts", "shop"), cursor(pipe, "users", "ts", "shop")) == (2, 4)
        pipe.reset(["orders"])
        pipe.sync_destination()
        assert pipe.state["sources"]["shop"]["resources"]["orders"] == {}
        assert cursor(pipe, "users", "ts", "shop") == 4
        info = pipe.run(shop())                                # orders reload from scratch, users have nothing new
        assert info.row_counts == {"orders": 3}


@pytest.mark.parametrize("a, b", [
    ("2024-01-01T10:00:00.123+0100", "2024-01-01T09:00:00.123Z"),      # pendulum-only form vs RFC 3339
    ("2024-01-01T09:00:19.000Z", "2024-01-01T09:00:19.000000+00:00"),  # precision spelled differently
    ("2024-01-02", dt.date(2024, 1, 2)),                              # a date string and a date
    (dt.datetime(2024, 1, 1, 9), "2024-01-01T09:00:00Z"),             # naive means UTC
])
def test_cursor_values__compare_as_instants_whatever_their_spelling(a, b):
    from python_extract.extract.incremental import cursor_key

    assert cursor_key(a) == cursor_key(b)
