"""The files source's modified time from a filesystem's listing (fsspec info): a number as it is, an ISO 8601
string through timeutil (a naive one is UTC, not the machine's local time), anything else refused naming it."""
import datetime as dt
import time

import pytest

from python_extract.sources.files.listing import _mtime

pytestmark = pytest.mark.fast

EPOCH_2024 = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc).timestamp()


@pytest.mark.parametrize("info", [
    {"mtime": EPOCH_2024},
    {"LastModified": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)},
    {"last_modified": "2024-01-02T03:04:05Z"},
    {"updated": "2024-01-02T04:04:05+01:00"},
    {"created": "2024-01-02T03:04:05"},  # naive: UTC (was local time before timeutil)
])
def test_mtime__each_listing_form_gives_the_same_instant(info, monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")  # a machine off UTC: a naive time must still read as UTC
    time.tzset()
    try:
        assert _mtime(info) == EPOCH_2024
    finally:
        monkeypatch.undo()
        time.tzset()


def test_mtime__a_string_that_is_no_timestamp_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"updated='yesterday'"):
        _mtime({"updated": "yesterday"})


def test_mtime__no_time_in_the_listing_is_zero():
    assert _mtime({"name": "a.csv"}) == 0.0
