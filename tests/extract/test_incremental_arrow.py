"""Arrow tables through an incremental cursor: the column-at-once filter (`Incremental.filter_arrow`)
keeps the same rows, sets the same flags and stores the same cursor as the row-by-row rules, over
seeded random tables and cursor options (pure Python; the row-by-row rules are checked against dlt in
tests/parity_extract)."""
from __future__ import annotations

import copy
import datetime as dt
import json
import random

import pyarrow as pa
import pytest

from python_extract.extract.incremental import Incremental
from python_extract.state import decode_value, encode_value

pytestmark = pytest.mark.fast

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
VALUES = {
    "int": lambda i: i, "float": lambda i: i / 2, "timestamp": lambda i: T0 + dt.timedelta(hours=i),
    "naive": lambda i: (T0 + dt.timedelta(hours=i)).replace(tzinfo=None), "date": lambda i: (T0 + dt.timedelta(days=i)).date(),
}


def _cases(seed: int, count: int):
    rnd = random.Random(seed)
    for _ in range(count):
        kind = rnd.choice(sorted(VALUES))
        val = VALUES[kind]
        opts = {}
        if rnd.random() < 0.5:
            opts["initial_value"] = val(rnd.randint(0, 6))
            if rnd.random() < 0.4:
                opts["end_value"] = val(rnd.randint(7, 12))
                opts["range_end"] = rnd.choice(["open", "closed"])
        if rnd.random() < 0.3 and "end_value" not in opts:
            opts["last_value_func"] = min
        opts["range_start"] = rnd.choice(["closed", "closed", "open"])
        opts["on_cursor_value_missing"] = rnd.choice(["include", "exclude"])
        if rnd.random() < 0.2:
            opts["primary_key"] = ()
        arrow_type = pa.array([val(0)]).type
        tables = [pa.Table.from_pylist(
            [{"id": rnd.randint(0, 5), "ts": None if rnd.random() < 0.1 else val(rnd.randint(0, 12))}
             for _ in range(rnd.randint(0, 8))], schema=pa.schema([("id", pa.int64()), ("ts", arrow_type)]))
            for _ in range(rnd.randint(1, 3))]
        yield kind, opts, tables


def _run(opts, tables, state, arrow: bool):
    cursor = Incremental("ts", **opts).bind(state, "r", ["id"])
    kept = []
    for table in tables:
        kept += cursor.filter_arrow(table).to_pylist() if arrow else [r for r in table.to_pylist() if cursor(r)]
    cursor.commit()
    return kept, (cursor.end_out_of_range, cursor.start_out_of_range), state


@pytest.mark.parametrize("seed", range(4))
def test_filter_arrow__equals_the_row_by_row_rules(seed):
    for kind, opts, tables in _cases(seed, 60):
        for earlier_runs in (0, 1):
            state = {}
            for _ in range(earlier_runs):
                _run(opts, tables, state, arrow=False)
            # as the next run finds it: committed with the load and read back (timestamps come back as
            # pendulum DateTimes, as in dlt)
            state = decode_value(json.loads(json.dumps(encode_value(state))))
            by_rows = _run(opts, tables, copy.deepcopy(state), arrow=False)
            by_columns = _run(opts, tables, copy.deepcopy(state), arrow=True)
            assert by_columns == by_rows, (kind, opts, earlier_runs)


@pytest.mark.parametrize("kind", sorted(VALUES))
def test_filter_arrow__compares_whole_columns_of_each_kind(kind):
    table = pa.table({"ts": pa.array([VALUES[kind](1), None])})
    cursor = Incremental("ts", initial_value=VALUES[kind](0)).bind({}, "r", [])
    assert cursor._arrow_keys(table) is not None  # not the row-by-row fallback
