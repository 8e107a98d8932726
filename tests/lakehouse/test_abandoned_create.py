"""A killed process's Delta table creation (a folder without a committed version) is cleared, and only
that: a committed table, a creation still writing, another error or object storage are left alone."""
from __future__ import annotations

import os
import time

import pytest

from python_extract.lakehouse.abandoned import clear_abandoned_create

pytestmark = pytest.mark.fast


NOT_REGISTERED = lambda: False  # noqa: E731


def aging(folder, waits):
    """A `sleep` that lets `s` seconds pass for the folder without waiting: it notes `s` in `waits` and moves the
    modification time of every path under `folder` `s` seconds back (the age the function reads)."""
    def sleep(s):
        waits.append(s)
        for path in (folder, *folder.rglob("*")):
            stat = path.stat()
            os.utime(path, (stat.st_atime - s, stat.st_mtime - s))
    return sleep


def _error(folder) -> str:
    return ("[DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION] Cannot create table ('`s`.`t`'). The associated location "
            f"('file:{folder}') is not empty and also not a Delta table.")


def test_an_empty_delta_log_without_a_version__is_removed_after_a_few_seconds(tmp_path):
    folder = tmp_path / "t"
    (folder / "_delta_log").mkdir(parents=True)
    (folder / "_delta_log" / ".00000000000000000000.json.1b2c.tmp").write_text("{")
    waits = []
    assert clear_abandoned_create(_error(folder), NOT_REGISTERED, sleep=aging(folder, waits))
    assert not folder.exists() and 4 < sum(waits) < 7  # a creation that only started: 5 s, not the whole grace


def test_data_files_without_a_version__are_removed_once_they_are_older_than_the_grace(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    part = folder / "part-00000.parquet"
    part.write_bytes(b"PAR1")
    waits = []
    assert clear_abandoned_create(_error(folder), NOT_REGISTERED, grace=0.3, sleep=aging(folder, waits))
    assert not folder.exists() and waits  # it waited for the file to age first
    old = tmp_path / "u"
    old.mkdir()
    (old / "part-00000.parquet").write_bytes(b"PAR1")
    for path in (old / "part-00000.parquet", old):
        os.utime(path, (time.time() - 120, time.time() - 120))
    assert clear_abandoned_create(_error(old), NOT_REGISTERED, sleep=lambda s: (_ for _ in ()).throw(AssertionError("no wait")))


def test_a_committed_version_the_catalog_never_named__is_removed_once_old_and_a_registered_table_stays(tmp_path):
    folder = tmp_path / "t"
    (folder / "_delta_log").mkdir(parents=True)
    commit = folder / "_delta_log" / "00000000000000000000.json"
    commit.write_text("{}\n")
    assert clear_abandoned_create(_error(folder), lambda: True, grace=0.0)  # the catalog names it now: run again
    assert commit.exists()
    for path in (commit, commit.parent, folder):
        os.utime(path, (time.time() - 120, time.time() - 120))
    assert clear_abandoned_create(_error(folder), NOT_REGISTERED)
    assert not folder.exists()


def test_other_errors_and_object_storage__are_left_alone(tmp_path):
    folder = tmp_path / "t"
    (folder / "_delta_log").mkdir(parents=True)
    assert not clear_abandoned_create("[TABLE_OR_VIEW_NOT_FOUND] t", NOT_REGISTERED)
    assert not clear_abandoned_create(_error(folder).replace("file:", "s3a://bucket"), NOT_REGISTERED)
    assert folder.exists()
