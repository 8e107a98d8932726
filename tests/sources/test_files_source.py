"""The files source end to end into real staging tables: every format, a new file, a modified file,
and an unchanged rerun that loads nothing."""
from __future__ import annotations

import gzip
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from python_extract.sources.files.source import new_files, remember
from python_extract.sources.files.listing import FileItem
from python_extract.sources.registry import SourceConfigError, get_plugin, resolve_config

from ..support.staging import staged

ROWS = [{"id": 1, "name": "ann"}, {"id": 2, "name": "bob"}]


def write(path, fmt, rows, mtime=None):
    if fmt == "csv":
        path.write_text("id,name\n" + "".join(f"{r['id']},{r['name']}\n" for r in rows))
    elif fmt == "csv.gz":
        with gzip.open(path, "wt") as f:
            f.write("id,name\n" + "".join(f"{r['id']},{r['name']}\n" for r in rows))
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif fmt == "json":
        path.write_text(json.dumps(rows))
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def run(pipe, glob, **resource):
    plugin = get_plugin("files")
    config = resolve_config(plugin, {"resources": [{"name": "people", "glob": str(glob), **resource}]})
    return pipe.run(plugin.build(config, "files"))


@pytest.mark.parametrize("fmt", ["csv", "csv.gz", "jsonl", "json", "parquet"])
def test_files__each_format_lands_its_records(pipe, tmp_path, fmt):
    write(tmp_path / f"a.{fmt}", fmt, ROWS)
    run(pipe, tmp_path / f"*.{fmt}", chunk_size=1)
    expected = [("1", "ann"), ("2", "bob")] if fmt.startswith("csv") else [(1, "ann"), (2, "bob")]
    assert staged(pipe, "people", "id", "name") == expected


def test_files__new_and_modified_files_load_once_and_an_unchanged_rerun_loads_nothing(pipe, tmp_path):
    write(tmp_path / "a.jsonl", "jsonl", ROWS[:1], mtime=1_000)
    run(pipe, tmp_path / "*.jsonl", file_column="_file")
    assert staged(pipe, "people", "id") == [(1,)]

    # a new file (older name, newer time) and the unchanged a.jsonl
    write(tmp_path / "0.jsonl", "jsonl", ROWS[1:], mtime=2_000)
    info = run(pipe, tmp_path / "*.jsonl")
    assert staged(pipe, "people", "id") == [(1,), (2,)]

    # unchanged rerun: no load at all
    info = run(pipe, tmp_path / "*.jsonl")
    assert info.load_ids == []

    # a.jsonl modified: loaded again with its new content
    write(tmp_path / "a.jsonl", "jsonl", [{"id": 1, "name": "ann v2"}], mtime=3_000)
    run(pipe, tmp_path / "*.jsonl")
    assert staged(pipe, "people", "id", "name") == [(1, "ann"), (1, "ann v2"), (2, "bob")]


def test_files__state_stays_bounded_to_the_lookback_window():
    state, lookback = {}, 10.0
    for i in range(1000):
        remember(state, FileItem(float(i), f"/f{i:04d}"), lookback)
    assert state["last_modified"] == 999.0
    assert sorted(state["recent"]) == [f"/f{i:04d}" for i in range(989, 1000)]
    late = [FileItem(995.0, "/late"), FileItem(950.0, "/too-late"), FileItem(999.0, "/f0999")]
    assert [f.url for f in new_files(late, state, lookback)] == ["/late"]


def test_files__bad_config_names_the_yaml_path():
    with pytest.raises(SourceConfigError, match=r"source.config.resources\[0\].format: 'xml' is not one of"):
        resolve_config(get_plugin("files"), {"resources": [{"name": "x", "glob": "*.xml", "format": "xml"}]})
