"""Broken local state gives one line naming the path and the remedy, a non-zero exit, and changes nothing
else: a damaged load package (moved to failed/, listed and dropped with `sparkload pipeline packages`),
read-only and full directories (real mounts, in a private mount namespace of the command: `unshare -m`),
a jar cache that cannot be created, a catalog database another process holds."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import python_extract as sl
from python_extract.errors import CorruptPackage
from python_extract.lakehouse import LakehouseConfig
from python_extract.lakehouse.jars import JAR_SETS, jars_for
from python_extract.packages import FAILED
from python_extract.pipeline_file import import_target

from ..support.sparkload_process import BIN, column, env, one_line, sparkload, write_source

MOUNTS = shutil.which("unshare") is not None and subprocess.run(
    ["unshare", "-m", "true"], capture_output=True).returncode == 0
needs_mounts = pytest.mark.skipif(not MOUNTS, reason="needs `unshare -m` (root or user namespaces) for real read-only and full mounts")


def _pipeline(lakehouse, names, tmp_path) -> sl.Pipeline:
    return sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse,
                       pipelines_dir=str(tmp_path / "pipelines"))


def _events(rows):
    @sl.resource(name="events", primary_key="id")
    def events(cursor=sl.incremental("id")):
        yield [{"id": n, "tags": [f"t{n}", f"u{n}"]} for n in rows]
    return events


def test_truncated_manifest__package_quarantined_before_spark_and_rows_extracted_again(lakehouse, spark, names, tmp_path):
    source = write_source(tmp_path)
    pipe = _pipeline(lakehouse, names, tmp_path)
    common = ["--pipeline-name", names.staging, "--dataset-name", names.staging, "--pipelines-dir", str(tmp_path / "pipelines")]
    # load 1 is extracted but never lands: its manifest is then cut short (a disk that filled, a bad copy)
    package, = pipe.extract(import_target(f"{source}:shop")().selected_resources)
    manifest = package.root / "package.json"
    manifest.write_text(manifest.read_text()[:40])

    failed = sparkload("run", f"{source}:shop", *common, "--no-progress", home=lakehouse.home)

    assert failed.returncode == 3
    line = one_line(failed.stderr)
    quarantined = tmp_path / "pipelines" / names.staging / "packages" / FAILED / package.load_id
    assert line.startswith(f"sparkload: {quarantined}: load package {package.load_id} is damaged (package.json is not valid JSON")
    assert "the next run extracts its rows again" in line and f"sparkload pipeline packages {names.staging}" in line
    assert quarantined.is_dir() and not spark.catalog.tableExists(f"{names.staging}.events")

    listed = sparkload("pipeline", "packages", *common[1:], home=lakehouse.home)
    assert listed.returncode == 0 and f"{package.load_id}  package.json is not valid JSON" in listed.stdout

    _pipeline(lakehouse, names, tmp_path).run(import_target(f"{source}:shop")())  # the next run (in-process)
    assert column(spark, f"select id from `{names.staging}`.events order by id") == [0, 1, 2, 3, 4]
    dropped = sparkload("pipeline", "packages", *common[1:], "--drop-failed", home=lakehouse.home)
    assert dropped.returncode == 0 and "failed: none" in dropped.stdout and not quarantined.exists()


def _damage_middle(part: Path) -> None:
    """Overwrite the data pages, keep the footer: cheap checks pass, reading the rows fails."""
    data = bytearray(part.read_bytes())
    data[8:len(data) // 2] = b"\xff" * (len(data) // 2 - 8)
    part.write_bytes(bytes(data))


def test_damaged_parquet__rows_landed_so_far_removed_and_later_packages_quarantined_too(lakehouse, spark, names, tmp_path):
    pipe = _pipeline(lakehouse, names, tmp_path)
    pipe.run(_events(range(0, 5)))                                  # load 1: lands
    second, = pipe.extract([_events(range(0, 10))])                 # load 2: ids 5-9, pending
    third, = pipe.extract([_events(range(0, 15))])                  # load 3: ids 10-14, pending, counts on load 2
    _damage_middle(next((second.table_dir("events__tags")).glob("*.parquet")))  # the root table lands first, then this fails

    with pytest.raises(CorruptPackage, match=rf"load package {second.load_id} is damaged \(table events__tags: "
                                             r"part-\d+.parquet is not readable Parquet .*1 later pending package"):
        pipe.load()

    assert column(spark, f"select id from `{names.staging}`.events order by id") == [0, 1, 2, 3, 4]  # its rows removed
    assert column(spark, f"select count(*) from `{names.staging}`.events__tags") == [10]
    assert [p.load_id for p in pipe.packages.failed()] == [second.load_id, third.load_id]
    assert "sealed after damaged package" in pipe.packages.failure(pipe.packages.failed()[1])
    assert pipe.packages.pending() == []

    pipe.run(_events(range(0, 15)))                                 # the cursor is still at load 1's: 5-14 again
    assert column(spark, f"select id from `{names.staging}`.events order by id") == list(range(15))
    assert column(spark, f"select count(*) from `{names.staging}`.events__tags") == [30]


def _in_namespace(setup: str, *args: str, home: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    """`sparkload ARGS` in a private mount namespace after the shell commands `setup` (mounts there are
    gone when the command ends)."""
    script = f"set -e; {setup}; exec \"$@\""
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(BIN / "sparkload"), *args],
                          env=env(home, **extra), cwd=cwd, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


@needs_mounts
def test_read_only_directories__one_line_naming_the_path_and_the_option(lakehouse, names, tmp_path):
    source = write_source(tmp_path)
    read_only = tmp_path / "ro"
    (read_only / "home").mkdir(parents=True)
    mount = f"mount --bind {read_only} {read_only}; mount -o remount,bind,ro {read_only}"
    run = ["run", f"{source}:shop", "--pipeline-name", names.staging, "--no-progress"]

    pipelines = _in_namespace(mount, *run, "--pipelines-dir", str(read_only / "pipelines"), home=lakehouse.home, cwd=tmp_path)
    assert pipelines.returncode == 3
    assert one_line(pipelines.stderr) == (f"sparkload: {read_only / 'pipelines'}: the file system is read-only; point --pipelines-dir "
                                          "at a writable directory")

    home = _in_namespace(mount, *run, "--pipelines-dir", str(tmp_path / "pipelines"), "--home", str(read_only / "home"),
                         home=lakehouse.home, cwd=tmp_path)
    assert home.returncode == 3
    assert one_line(home.stderr) == (f"sparkload: {read_only / 'home'}: the file system is read-only; point --home "
                                     "(SPARKLOAD_HOME) at a writable directory")

    jars = read_only / "jars"
    cache = _in_namespace(mount, *run, "--pipelines-dir", str(tmp_path / "pipelines"), "--home", str(tmp_path / "home"),
                          home=lakehouse.home, cwd=tmp_path, SPARKLOAD_JARS_CACHE=str(jars))
    # a session never writes the jar cache (`sparkload lakehouse setup` fills it): an empty one, read-only or not, is
    # missing jars
    fmt = os.environ["SPARKLOAD_TABLE_FORMAT"]
    assert cache.returncode == 2
    assert one_line(cache.stderr).startswith(f"sparkload: missing jars: {JAR_SETS[fmt][0].file_name}, ")
    assert one_line(cache.stderr).endswith(f" are not in {jars}: run `sparkload lakehouse setup --jars {fmt}` (fetches them from "
                                           "Maven Central once), or put them in a directory and set SPARKLOAD_JARS to it")
    assert not (tmp_path / "home" / "catalog").exists()  # nothing else was touched


BIG_ROWS = '''
import os
import python_extract as sl

@sl.resource(primary_key="id")
def blobs():
    yield [{"id": n, "blob": os.urandom(64 * 1024).hex()} for n in range(64)]   # ~8 MB, incompressible
'''


@needs_mounts
def test_full_directory__extraction_stops_with_one_line_and_lands_nothing(lakehouse, spark, names, tmp_path):
    source = write_source(tmp_path, BIG_ROWS, "big_rows.py")
    pipelines = tmp_path / "small"
    pipelines.mkdir()
    mount = f"mount -t tmpfs -o size=1m tmpfs {pipelines}"
    done = _in_namespace(mount, "run", f"{source}:blobs", "--pipeline-name", names.staging, "--dataset-name",
                         names.staging, "--pipelines-dir", str(pipelines), "--no-progress", home=lakehouse.home, cwd=tmp_path)

    assert done.returncode == 3
    line = one_line(done.stderr)
    assert line.startswith(f"sparkload: {pipelines}/{names.staging}/packages/new/")
    assert line.endswith(": no space left on the device; free space there (old load packages: `sparkload pipeline "
                         "packages NAME`) or point --pipelines-dir elsewhere")
    assert not spark.catalog.tableExists(f"{names.staging}.blobs")


@pytest.mark.each_format  # the metastore's database (delta) or the Iceberg catalog's
def test_catalog_held_by_another_process__busy_exit_naming_the_database(names, tmp_path):
    home = tmp_path / "home"
    (home / "catalog").mkdir(parents=True)
    config = LakehouseConfig.from_env(home=home)
    fmt = os.environ["SPARKLOAD_TABLE_FORMAT"]  # the run's format: the metastore's database (delta) or Iceberg's
    h2 = next(jar for jar in jars_for(config, [fmt]) if Path(jar).name.startswith("h2-"))
    url = config.catalog_jdbc_uri(fmt).replace(";AUTO_SERVER=TRUE", "")  # an SQL console opening it on its own
    database = home / "catalog" / ("metastore.mv.db" if fmt == "delta" else "iceberg.mv.db")
    console = subprocess.Popen(["java", "-cp", str(h2), "org.h2.tools.Shell", "-url", url, "-user", "", "-password", ""],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not database.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        source = write_source(tmp_path)
        done = sparkload("run", f"{source}:shop", "--pipeline-name", names.staging, "--home", str(home),
                         "--no-progress", home=home)
    finally:
        console.kill()
        console.wait(30)

    assert done.returncode == 4
    assert one_line(done.stderr) == (
        f"sparkload: {database}: the lakehouse catalog database is opened by another process that "
        "does not share it; close that process (an SQL console, a Spark with other catalog settings) or wait for it, "
        "then run again")
