"""The files source for dated snapshots: each file its own load (`load_per_file`), the date in its name a
column (`date_column`, `date_pattern`), landed into real staging tables; a name without a date, or a
pattern that is no regular expression, is refused naming it."""
from __future__ import annotations

import datetime as dt
import os

import pytest

from python_extract.errors import ConfigError
from python_extract.sources.files.source import DATE_PATTERN, date_in_name
from python_extract.sources.registry import get_plugin, resolve_config

from ..support.staging import staged


def snapshot(path, rows, mtime):
    path.write_text("id,name\n" + "".join(f"{k},{v}\n" for k, v in rows))
    os.utime(path, (mtime, mtime))


def build(glob, **resource):
    plugin = get_plugin("files")
    config = resolve_config(plugin, {"resources": [{"name": "customers", "glob": str(glob), **resource}]})
    return plugin.build(config, "files")


def test_files__each_dated_snapshot_is_its_own_load_with_its_date(pipe, tmp_path):
    # modified times out of date order: loads land in that order, each with the date of its name
    snapshot(tmp_path / "customers_2024-01-02.csv", [(1, "ann v2")], mtime=1_000)
    snapshot(tmp_path / "customers_2024-01-01.csv", [(1, "ann"), (2, "bob")], mtime=2_000)
    snapshot(tmp_path / "customers_2024-01-03.csv", [(1, "ann v2"), (2, "bob")], mtime=3_000)
    info = pipe.run(build(tmp_path / "*.csv", load_per_file=True, date_column="snapshot_date"))
    assert len(info.load_ids) == 3
    rows = pipe.spark.sql(f"select _dlt_load_id, snapshot_date, id from `{pipe.dataset_name}`.`customers`").collect()
    by_load = {}
    for r in rows:
        by_load.setdefault(r[0], set()).add((r[1], r[2]))
    assert [by_load[load] for load in info.load_ids] == [
        {(dt.date(2024, 1, 2), "1")}, {(dt.date(2024, 1, 1), "1"), (dt.date(2024, 1, 1), "2")},
        {(dt.date(2024, 1, 3), "1"), (dt.date(2024, 1, 3), "2")}]
    # each file is marked loaded with its own load: a rerun lands nothing, a new day lands one load
    assert pipe.run(build(tmp_path / "*.csv", load_per_file=True, date_column="snapshot_date")).load_ids == []
    snapshot(tmp_path / "customers_2024-01-04.csv", [(2, "bob")], mtime=4_000)
    assert len(pipe.run(build(tmp_path / "*.csv", load_per_file=True, date_column="snapshot_date")).load_ids) == 1
    assert staged(pipe, "customers", "snapshot_date")[-1] == (dt.date(2024, 1, 4),)


def test_files__without_load_per_file_one_run_is_one_load(pipe, tmp_path):
    snapshot(tmp_path / "c_20240101.csv", [(1, "ann")], mtime=1_000)
    snapshot(tmp_path / "c_20240102.csv", [(1, "ann")], mtime=2_000)
    info = pipe.run(build(tmp_path / "*.csv", date_column="day"))
    assert len(info.load_ids) == 1
    assert staged(pipe, "customers", "day") == [(dt.date(2024, 1, 1),), (dt.date(2024, 1, 2),)]


def test_files__a_file_name_without_a_date_is_refused_naming_it(pipe, tmp_path):
    snapshot(tmp_path / "customers_latest.csv", [(1, "ann")], mtime=1_000)
    with pytest.raises(Exception, match=r"customers_latest.csv: its name has no date matching date_pattern"):
        pipe.run(build(tmp_path / "*.csv", date_column="snapshot_date"))


@pytest.mark.parametrize("url, pattern, expected", [
    ("/data/customers_2024-01-02.csv", DATE_PATTERN, dt.date(2024, 1, 2)),
    ("s3://bucket/2023-12-31/customers_20240102.csv", DATE_PATTERN, dt.date(2024, 1, 2)),  # the name, not the folder
    ("/data/v2_snap-20240102-1.csv", r"snap-(\d{8})", dt.date(2024, 1, 2)),
])
def test_files__the_date_comes_from_the_file_name(url, pattern, expected):
    assert date_in_name(url, pattern) == expected


@pytest.mark.parametrize("url, pattern, message", [
    ("/data/c_2024-13-01.csv", DATE_PATTERN, r"'2024-13-01' \(date_pattern .*\) is not a date"),
    ("/data/c.csv", r"(\d+)", "its name has no date"),
])
def test_files__a_name_that_holds_no_date_is_an_error(url, pattern, message):
    with pytest.raises(ValueError, match=message):
        date_in_name(url, pattern)


@pytest.mark.parametrize("resource, message", [
    ({"date_column": "d", "date_pattern": "(unclosed"}, r"date_pattern '\(unclosed' is not a regular expression"),
    ({"date_pattern": r"(\d{8})"}, "date_pattern needs date_column"),
])
def test_files__a_bad_date_config_is_refused(tmp_path, resource, message):
    with pytest.raises(ConfigError, match=message):
        build(tmp_path / "*.csv", **resource)
