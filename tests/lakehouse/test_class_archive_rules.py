"""Fast tier (no JVM): which class archive a session's driver is handed (python_extract/lakehouse/
class_archive.py). The archive must match what decides whether a JVM can map it (the Java build, pyspark's
jars, the application class path, the heap and the `-X` options) and nothing else; a driver whose options
choose their own class sharing is left alone; training keeps the newest `KEEP` archives and removes one
that does not map. Whether the JVM really maps it: tests/lakehouse/test_class_archive.py."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pyspark
import pytest

from python_extract.lakehouse import LakehouseConfig, class_archive, session
from python_extract.runtime import archive_training

pytestmark = pytest.mark.fast


@pytest.fixture
def java(tmp_path, monkeypatch):
    binary = tmp_path / "jdk" / "bin" / "java"
    binary.parent.mkdir(parents=True)
    binary.write_text("a java")
    monkeypatch.setattr(class_archive, "_java", lambda: binary)
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=/tmp/a")
    return binary


@pytest.fixture
def config(tmp_path):
    return LakehouseConfig(home=tmp_path / "lake", jars_cache=tmp_path / "cache" / "jars")


BASE = {"spark.jars": "/cache/jars/iceberg.jar", "spark.master": "local[2]"}


def test_the_key_follows_what_decides_whether_an_archive_maps(java, monkeypatch, tmp_path):
    key = class_archive.key(BASE)
    for changed in ({"spark.driver.memory": "40g"}, {"spark.driver.extraJavaOptions": "-XX:+UseSerialGC"},
                    {"spark.driver.extraClassPath": str(tmp_path / "extra.jar")}):
        assert class_archive.key({**BASE, **changed}) != key, changed
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -Xmx40g -Djava.io.tmpdir=/tmp/a")
    assert class_archive.key(BASE) != key
    other_spark = tmp_path / "other-venv" / "pyspark"  # the same pyspark installed elsewhere: other jar paths
    (other_spark / "jars").mkdir(parents=True)
    for jar in (Path(pyspark.__file__).parent / "jars").iterdir():
        (other_spark / "jars" / jar.name).touch()
    monkeypatch.setenv("SPARK_HOME", str(other_spark))
    assert class_archive.key(BASE) != key
    monkeypatch.delenv("SPARK_HOME")
    java.write_text("another java build")
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=/tmp/a")
    assert class_archive.key(BASE) != key


def test_the_key_ignores_what_does_not(java, monkeypatch):
    key = class_archive.key(BASE)
    assert class_archive.key({**BASE, "spark.jars": "/other/iceberg.jar,/other/hadoop-aws.jar",
                              "spark.master": "spark://h:7077", "spark.sql.shuffle.partitions": "8",
                              "spark.driver.extraJavaOptions": "-Dderby.system.home=/x -Xlog:gc"}) == key
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -Djava.io.tmpdir=/tmp/b -Dlog4j2.configurationFile=q")
    assert class_archive.key(BASE) == key


def test_the_driver_gets_the_archive_only_when_one_is_trained_for_it(java, config, monkeypatch):
    conf = {**BASE, "spark.driver.extraJavaOptions": "-Dderby.system.home=/x"}
    assert class_archive.handed(config, conf) is None
    archive = class_archive.path(config, conf)
    assert archive.parent == config.jars_cache.parent / "class-archive"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"trained")
    assert class_archive.handed(config, conf) == archive
    assert class_archive.with_archive(conf, archive) == f"-Dderby.system.home=/x -XX:SharedArchiveFile={archive}"
    for own in ("-Xshare:off", "-XX:SharedArchiveFile=/mine.jsa", "-XX:ArchiveClassesAtExit=/new.jsa"):
        monkeypatch.setenv("SPARK_SUBMIT_OPTS", f"-XX:TieredStopAtLevel=1 {own}")
        assert class_archive.handed(config, conf) is None, own
        assert class_archive.handed(config, {**conf, "spark.driver.extraJavaOptions": own}) is None, own


@pytest.fixture
def no_jvm_training(config, monkeypatch):
    """`ensure` with the sessions' settings stubbed and each child JVM replaced by `results` (exit codes)."""
    choice = session.FormatChoice("iceberg", "test")
    monkeypatch.setattr(session, "choose_format", lambda c: choice)
    monkeypatch.setattr(session, "spark_conf", lambda c, ch, pin=True: {**BASE, "spark.driver.memory": c.spark_conf["m"]})
    results, scripts = [], []

    def child(script, settings, out, cwd, **env):
        scripts.append(script)
        if "ArchiveClassesAtExit" in env.get("SPARK_SUBMIT_OPTS", ""):
            partial = env["SPARK_SUBMIT_OPTS"].split("-XX:ArchiveClassesAtExit=")[1].split()[0]
            Path(partial).write_bytes(b"trained")
        return results.pop(0)

    monkeypatch.setattr(archive_training, "_child", child)
    return results, scripts


def test_training_keeps_the_newest_archives(java, config, no_jvm_training):
    results, scripts = no_jvm_training
    trained = []
    for memory in ("1g", "2g", "3g", "4g"):
        results += [0, 0]
        archive, new = archive_training.ensure(config.with_(spark_conf={"m": memory}))
        assert new and archive.read_bytes() == b"trained"
        trained.append(archive)
    assert scripts == [archive_training.TRAINING, archive_training.CHECK] * 4
    assert sorted(config.jars_cache.parent.joinpath("class-archive").glob("*.jsa")) == sorted(trained[-archive_training.KEEP:])
    assert archive_training.ensure(config.with_(spark_conf={"m": "4g"})) == (trained[-1], False)  # no child ran
    assert not list(config.jars_cache.parent.joinpath("class-archive").glob("*.partial"))


def test_an_archive_that_does_not_map_is_removed_with_an_error_naming_the_log(java, config, no_jvm_training):
    results, _ = no_jvm_training
    results += [0, 1]
    with pytest.raises(archive_training.ClassArchiveError, match=r"does not map into a session \(exit 1\); removed; its log: .*training.log"):
        archive_training.ensure(config.with_(spark_conf={"m": "1g"}))
    results += [1]
    with pytest.raises(archive_training.ClassArchiveError, match=r"training the JVM class archive failed \(exit 1"):
        archive_training.ensure(config.with_(spark_conf={"m": "1g"}))
    assert not list(config.jars_cache.parent.joinpath("class-archive").glob("spark-*"))


def test_a_started_jvm_that_did_not_map_its_archive_loses_it(tmp_path):
    """confirm_mapped reads the process's memory maps: this Python process maps one file (mmap) and not
    the other, standing in for a JVM that mapped its archive and one that ran without it (get_session then
    warns: tests/lakehouse/test_class_archive.py)."""
    import mmap
    import os

    mapped, unmapped = tmp_path / "spark-mapped.jsa", tmp_path / "spark-unmapped.jsa"
    for archive in (mapped, unmapped):
        archive.write_bytes(b"\0" * 4096)
    with open(mapped, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ):
        assert class_archive.confirm_mapped(mapped, os.getpid()) and mapped.is_file()
        assert not class_archive.confirm_mapped(unmapped, os.getpid()) and not unmapped.exists()


def test_a_training_child_ends_with_the_process_that_started_it(tmp_path):
    """A test run or setup killed while it trains (SIGKILL, as a CI timeout does) leaves no training child (its
    session's JVM ends with the child's stdin)."""
    starter = subprocess.Popen([sys.executable, "-c", (
        "import sys; from pathlib import Path; from python_extract.runtime import archive_training\n"
        "archive_training._child('import time; time.sleep(120)', '{}', sys.stdout, Path('.'))")],
        cwd=Path(__file__).resolve().parents[2], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (children := psutil.Process(starter.pid).children()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert children, "the starter started no training child"
        os.kill(starter.pid, signal.SIGKILL)
        gone, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, f"training children left after their starter was killed: {[p.pid for p in alive]}"
    finally:
        starter.kill()
        starter.wait()
