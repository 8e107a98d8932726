"""Fast tier (no JVM): the one time module and the one `_dlt_id` generator.

The parsing cases (timeutil_cases.json) were recorded by running the seven parsers sparkload had before
`python_extract/timeutil.py` replaced them, so these tests prove the rules did not change.
"""
from __future__ import annotations

import datetime as dt
import json
import random
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from python_extract import timeutil
from python_extract.extract.incremental import cursor_key
from python_extract.normalize import coerce, ids

pytestmark = pytest.mark.fast

CASES = json.loads((Path(__file__).parent / "timeutil_cases.json").read_text())
PACKAGE = Path(timeutil.__file__).parent
RULES = {
    "cursor_instant": timeutil.cursor_instant,
    "to_instant": timeutil.to_instant,
    "parse_duration": timeutil.parse_duration,
    "parse_iso": timeutil.parse_iso,
    "parse_iso_datetime": timeutil.parse_iso_datetime,
    "parse_timestamp": timeutil.parse_timestamp,
    "parse_naive": lambda text: timeutil.parse(text, tz=None),  # how state.json dates are read back
    "parse": timeutil.parse,
    "coerce.to_timestamp": coerce.to_timestamp,
    "coerce.to_date": coerce.to_date,
    "coerce.detect_type": coerce.detect_type,
}


def _shown(rule, text: str) -> str:
    try:
        value = rule(text)
    except ValueError:
        return "!ValueError"
    if value is None:
        return "None"
    shown = value.isoformat() if hasattr(value, "isoformat") else repr(value) if not isinstance(value, str) else value
    return f"{type(value).__name__} {shown}"


@pytest.mark.parametrize("rule,text", [(r, t) for r in RULES for t in CASES[r]])
def test_timeutil__parses_as_the_parser_it_replaced(rule, text):
    assert _shown(RULES[rule], text) == CASES[rule][text]


def test_timeutil__every_rule_has_recorded_cases():
    assert set(CASES) - {"_about"} == set(RULES)
    assert all(len(CASES[r]) >= 30 for r in RULES)


def test_cursor_instant__naive_is_utc_and_instants_compare_across_offsets():
    assert cursor_key("2024-01-15T10:30:00") == cursor_key("2024-01-15T12:30:00+02:00")
    assert cursor_key(dt.date(2024, 1, 15)) == cursor_key("2024-01-15") == timeutil.EPOCH + dt.timedelta(days=19737)
    assert cursor_key("2024-01-15T10:30:00.123456789Z") < cursor_key("2024-01-15T10:30:00.1234570Z")


def test_to_instant__converts_aware_values_to_utc_and_naive_ones_are_utc():
    assert timeutil.to_instant("2024-01-15T10:30:00+02:00").isoformat() == "2024-01-15T08:30:00+00:00"
    assert timeutil.to_instant(dt.datetime(2024, 1, 15, 10)).isoformat() == "2024-01-15T10:00:00+00:00"
    assert timeutil.to_instant(dt.date(2024, 1, 15)).isoformat() == "2024-01-15T00:00:00+00:00"
    with pytest.raises(ValueError, match="not a datetime: 5"):
        timeutil.to_instant(5)
    with pytest.raises(ValueError, match="not a datetime: 'P1D'"):
        timeutil.to_instant("P1D")


def test_parse_duration__keeps_a_timedelta_and_rejects_an_instant():
    assert timeutil.parse_duration(dt.timedelta(hours=2)) == dt.timedelta(hours=2)
    assert timeutil.parse_duration("PT90M") == dt.timedelta(minutes=90)
    with pytest.raises(ValueError, match="not an ISO 8601 duration: '2024-01-15'"):
        timeutil.parse_duration("2024-01-15")


def test_timeutil__formats_utc_with_z_and_counts_epoch_microseconds():
    moment = dt.datetime(2024, 1, 15, 10, 30, 0, 5, tzinfo=timeutil.UTC)
    assert timeutil.iso_z(moment) == "2024-01-15T10:30:00.000005Z"
    assert timeutil.iso_z(moment.astimezone(dt.timezone(dt.timedelta(hours=2)))) == "2024-01-15T12:30:00.000005+02:00"
    assert timeutil.epoch_micros(moment) == 1705314600_000005
    assert timeutil.from_epoch(1705314600) == moment.replace(microsecond=0)
    assert type(timeutil.plain(timeutil.parse("2024-01-15T10:30:00"))) is dt.datetime
    assert timeutil.now().tzinfo is not None


# -- ids


def _roots_after_seeding(n: int):
    random.seed(7)
    np.random.seed(7)
    return [ids.uniq_id() for _ in range(n)] + ids.random_ids(n).to_pylist()


def test_root_ids__unique_even_when_numpy_and_random_are_seeded():
    first, second = _roots_after_seeding(2000), _roots_after_seeding(2000)
    assert len(set(first) | set(second)) == 8000
    assert all(re.fullmatch(r"[A-Za-z0-9+/]{14}", i) for i in first + second)


def test_child_ids__a_whole_column_equals_row_by_row():
    parents = [ids.uniq_id() for _ in range(50)] + ["user-given id", "x"]
    idx = np.arange(len(parents)) % 7
    column = ids.child_ids(pa.array(parents), "orders__items", idx).to_pylist()
    assert column == [ids.child_id(p, "orders__items", int(i)) for p, i in zip(parents, idx)]
    assert len(set(column)) == len(parents)


def test_child_id__same_inputs_same_id_and_each_input_changes_it():
    parent = ids.uniq_id()
    assert ids.child_id(parent, "t", 0) == ids.child_id(parent, "t", 0)
    assert len({ids.child_id(parent, "t", 0), ids.child_id(parent, "t", 1), ids.child_id(parent, "u", 0),
                ids.child_id(ids.uniq_id(), "t", 0)}) == 4


def _sources_calling(pattern: str):
    found = re.compile(pattern)
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if found.search(p.read_text()))


def test_ids__one_generator_in_the_package():
    assert _sources_calling(r"os\.urandom|secrets\.token|uuid\.uuid4|uuid4\(|np\.random|numpy\.random|getrandbits") == [
        "normalize/ids.py"]


# Still parsing on their own until their owners move them onto timeutil (issue 17): remove them from here then.
_NOT_YET_MIGRATED: set = set()


def test_timeutil__no_new_time_parser_outside_it():
    parsers = _sources_calling(r"strptime|fromisoformat|pendulum\.parse|pendulum\.parsing|dateutil")
    assert set(parsers) - _NOT_YET_MIGRATED == {"timeutil.py"}


@pytest.mark.parametrize("value, seconds", [
    (900, 900), ("90", 90), ("90s", 90), (" 1.5m ", 90), ("12h", 43200), ("7d", 604800), ("0s", 0),
    ("7 days", None), ("P1D", None), ("-5s", None), ("5w", None), (True, None), ("", None), (None, None),
])
def test_parse_span__a_number_with_an_optional_unit_or_none(value, seconds):
    span = timeutil.parse_span(value)
    assert (None if span is None else span.total_seconds()) == seconds


def test_parse_span__is_the_rule_of_expire_and_of_the_warm_idle_timeout():
    from python_extract.errors import ConfigError
    from python_extract.maintenance import parse_duration
    from python_extract.runtime.warm import WarmServerError, parse_idle_timeout

    assert parse_duration("7d") == dt.timedelta(days=7) and parse_idle_timeout("1.5m") == 90.0
    assert parse_idle_timeout("1d") == 86400.0
    with pytest.raises(ConfigError, match="--older-than '7 days' is not a duration"):
        parse_duration("7 days")
    with pytest.raises(WarmServerError, match="warm_idle_timeout: '0s' is not a duration"):
        parse_idle_timeout("0s")


def test_epoch_micros__of_a_pendulum_datetime_equals_the_stdlib_ones():
    """A cursor restored from state is a pendulum DateTime, whose difference is a pendulum Interval."""
    import pendulum

    stdlib = dt.datetime(2024, 1, 1, 12, 30, 15, 123456, tzinfo=dt.timezone.utc)
    assert timeutil.epoch_micros(pendulum.instance(stdlib)) == timeutil.epoch_micros(stdlib) == 1704112215123456


def test_load_ids__strictly_increase_when_the_clock_stands_still_or_steps_back(monkeypatch):
    from python_extract import packages
    clock = iter([1_704_261_600_000_000_000] * 3 + [1_704_261_599_000_000_000, 1_704_261_601_000_000_000])
    monkeypatch.setattr(packages.time, "time_ns", lambda: next(clock))
    monkeypatch.setattr(packages, "_LAST_LOAD_ID_US", 0)
    ids = [packages.new_load_id() for _ in range(5)]
    assert ids == ["1704261600.000000", "1704261600.000001", "1704261600.000002", "1704261600.000003",
                   "1704261601.000000"]
    assert sorted(ids, key=float) == ids and len(set(ids)) == 5
