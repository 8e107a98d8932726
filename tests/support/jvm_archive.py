"""A class data sharing archive (CDS, JDK 17's dynamic archive) for the test run's JVMs.

The suite is CPU-bound on two cores, and a good part of its CPU is JVMs starting: every CLI command,
crash and kill test, thrift server and the sessions themselves load and verify some 20,000 classes of
Spark, Hadoop and Iceberg before their first statement. A JVM started with `-XX:SharedArchiveFile`
maps the classes a trained JVM had loaded instead (measured here: a session's start and first four
Iceberg statements, 8.1 -> 4.7 s of CPU; the CLI's test files, 83 -> 70 s).

`jvm_archive_opts` returns the options, training the archive first when the cache has none for this
JVM, pyspark, Iceberg jar and option set (about 15 s; kept in `~/.cache/sparkload/test-cds/`, one file
of about 140 MB). It only changes how classes get into a JVM, not which: a JVM whose class path differs
from the trained one (the launcher's, the standalone master's) runs without it, as the JVM decides.
Training that fails stops the run with its log: no silent fallback to a slower run."""
from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# what the trained JVM runs: a session's start and the statement kinds the suite sends (DDL, insert,
# merge, delete, reads, metadata), so their classes are in the archive
TRAINING = """
from python_extract.lakehouse import LakehouseConfig, get_session
s = get_session(LakehouseConfig.from_env())
s.sql("create database if not exists d")
s.sql("create table d.t (id bigint, name string, at timestamp) using iceberg")
s.sql("insert into d.t values (1, 'a', current_timestamp()), (2, 'b', current_timestamp())")
s.sql("create table d.s using iceberg as select id, upper(name) as name, at from d.t")
s.sql("merge into d.t as t using (select * from d.s) as s on t.id = s.id "
      "when matched then update set * when not matched then insert *")
s.sql("delete from d.t where id = 2")
s.sql("select count(*), max(name) from d.t group by id").collect()
s.sql("describe extended d.t").collect()
s.sql("show tables in d").collect()
s.createDataFrame([(3, "c")], "id bigint, name string").writeTo("d.t2").create()
jvm = s.sparkContext._gateway.proc  # the JVM writes the archive as it exits: end it, and wait for that
s.stop()
jvm.stdin.close()
jvm.wait(timeout=300)
"""


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else "java"


def _key(base_opts: str, jars_cache: Path) -> str:
    import pyspark

    version = subprocess.run([_java(), "-version"], capture_output=True, text=True, check=True).stderr
    spark_jars = sorted(os.listdir(Path(pyspark.__file__).parent / "jars"))
    cached = sorted(f"{p.name}:{p.stat().st_size}" for p in jars_cache.glob("*.jar")) if jars_cache.is_dir() else []
    return hashlib.sha256("\n".join([version, pyspark.__version__, *spark_jars, *cached, base_opts]).encode()).hexdigest()[:16]


def jvm_archive_opts(base_opts: str, scratch: Path) -> str:
    """The JVM options that use the archive for `base_opts` (trained now if missing; under a file lock, so
    runs started at once train it once). `scratch` holds the training run's lakehouse and log."""
    from python_extract.lakehouse import LakehouseConfig

    jars_cache = LakehouseConfig.from_env(home=scratch).jars_cache
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sparkload" / "test-cds"
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f"spark-{_key(base_opts, jars_cache)}.jsa"
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not archive.exists():
            _train(archive, base_opts, scratch)
            for old in folder.glob("spark-*.jsa"):
                if old != archive:
                    old.unlink()
    return f"-XX:SharedArchiveFile={archive} -Xlog:cds=off -Xlog:cds+dynamic=off"


def _train(archive: Path, base_opts: str, scratch: Path) -> None:
    home = Path(tempfile.mkdtemp(prefix="cds-training-", dir=scratch))
    partial = archive.with_suffix(f".{os.getpid()}.partial")
    log = home / "training.log"
    env = {**os.environ, "SPARKLOAD_HOME": str(home),
           "SPARK_SUBMIT_OPTS": f"{base_opts} -XX:ArchiveClassesAtExit={partial} -Djava.io.tmpdir={home}"}
    with open(log, "w") as out:
        done = subprocess.run([sys.executable, "-c", TRAINING], env=env, stdout=out, stderr=subprocess.STDOUT,
                              cwd=Path(__file__).resolve().parents[2], timeout=600)
    if done.returncode != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"training the JVM class archive failed (exit {done.returncode}, archive written: "
                           f"{partial.exists()}); its log: {log}")
    os.replace(partial, archive)
