"""Training the JVM class archive (`sparkload lakehouse setup`): a child session runs the kinds of statement
sparkload sends with `-XX:ArchiveClassesAtExit`, a second child checks a session maps the result, and the
newest `KEEP` archives are kept. Which archive a session is handed, and the archive's key, are the
session's business (python_extract/lakehouse/class_archive.py); this module only makes archives."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Tuple

from ..errors import SparkloadError
from ..lakehouse.class_archive import own_sharing, path
from ..lakehouse.config import LakehouseConfig
from .processes import DIE_WITH_PARENT

KEEP = 3


class ClassArchiveError(SparkloadError):
    """Training the class archive failed (its log is named)."""


# how a child session ends: its JVM writes the archive, and its last catalog and temporary files, as it exits,
# so the child waits for that before its scratch lakehouse is removed
ENDING = """
jvm = s.sparkContext._gateway.proc
s.stop()
jvm.stdin.close()
jvm.wait(timeout=300)
"""

# what the trained JVM runs: a session's start and the kinds of statement sparkload sends (DDL, insert, CTAS,
# merge, delete, reads, metadata, a DataFrame write), so that their classes are in the archive
TRAINING = """
import json, sys
from python_extract.lakehouse import LakehouseConfig, get_session, session_format
s = get_session(LakehouseConfig(**json.loads(sys.argv[1])))
f = session_format(s)
s.sql("create database if not exists d")
s.sql(f"create table d.t (id bigint, name string, at timestamp) using {f}")
s.sql("insert into d.t values (1, 'a', current_timestamp()), (2, 'b', current_timestamp())")
s.sql(f"create table d.s using {f} as select id, upper(name) as name, at from d.t")
s.sql("merge into d.t as t using (select * from d.s) as s on t.id = s.id "
      "when matched then update set * when not matched then insert *")
s.sql("delete from d.t where id = 2")
s.sql("select count(*), max(name) from d.t group by id").collect()
s.sql("describe extended d.t").collect()
s.sql("show tables in d").collect()
s.createDataFrame([(3, "c")], "id bigint, name string").writeTo("d.t2").using(f).create()
""" + ENDING


def ensure(config: LakehouseConfig) -> Optional[Tuple[Path, bool]]:
    """The archive of the driver `get_session(config)` starts, and whether it was trained now (under a
    file lock, so processes asking at once train it once); None when the driver's options choose their
    own class sharing. The training session runs over a scratch lakehouse, never `config`'s."""
    from ..lakehouse.session import choose_format, spark_conf

    choice = choose_format(config)
    conf = spark_conf(config, choice, pin=False)
    if own_sharing(conf):
        return None
    archive = path(config, conf)
    archive.parent.mkdir(parents=True, exist_ok=True)
    with open(archive.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if archive.is_file():
            return archive, False
        _train(config, archive, choice.table_format)
        for old in sorted(archive.parent.glob("spark-*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP:]:
            old.unlink()
    return archive, True


# a session started as `get_session` starts it, which must map the archive: under -Xshare:on a JVM that cannot
# map it does not start
CHECK = """
import json, sys
from python_extract.lakehouse import LakehouseConfig, get_session
s = get_session(LakehouseConfig(**json.loads(sys.argv[1])))
assert "-XX:SharedArchiveFile=" in s.sparkContext.getConf().get("spark.driver.extraJavaOptions", ""), "not handed the archive"
s.sql("select 1").collect()
""" + ENDING


def _train(config: LakehouseConfig, archive: Path, table_format: str) -> None:
    """Train the archive in one session over a scratch lakehouse, then check a session maps it."""
    scratch = Path(tempfile.mkdtemp(prefix="class-archive-training-", dir=archive.parent))
    partial = archive.with_suffix(f".{os.getpid()}.partial")
    log = archive.parent / "training.log"
    settings = json.dumps({"home": str(scratch / "lakehouse"), "table_format": table_format, "master": "local[2]",
                           "jars_dir": str(config.jars_dir) if config.jars_dir else None,
                           "jars_cache": str(config.jars_cache), "spark_conf": config.spark_conf})
    opts = f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} -Djava.io.tmpdir={scratch}".strip()
    started = time.monotonic()
    try:
        with open(log, "w") as out:
            trained = _child(TRAINING, settings, out, scratch, SPARK_SUBMIT_OPTS=f"{opts} -XX:ArchiveClassesAtExit="
                             f"{partial} -Xlog:cds=error -Xlog:cds+dynamic=error")
            if trained != 0 or not partial.is_file():
                raise ClassArchiveError(f"training the JVM class archive failed (exit {trained}, archive written: "
                                        f"{partial.is_file()}); its log: {log}")
            os.replace(partial, archive)
            checked = _child(CHECK, settings, out, scratch, SPARK_SUBMIT_OPTS=opts,
                             JAVA_TOOL_OPTIONS=f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} -Xshare:on".strip())
            if checked != 0:
                archive.unlink()
                raise ClassArchiveError(f"the JVM class archive just trained does not map into a session (exit {checked}); "
                                        f"removed; its log: {log}")
            out.write(f"trained {archive} and checked it maps, in {time.monotonic() - started:.1f} s\n")
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)


def _child(script: str, settings: str, out, cwd: Path, **env: str) -> int:
    """Run `script` in a Python child that ends when this process does (SIGTERM, even if this one is SIGKILLed): its
    session's JVM ends when the child's stdin closes, so a killed test run or setup leaves no training JVM behind."""
    return subprocess.run([sys.executable, "-c", script, settings], env={**os.environ, **env}, stdout=out,
                          stderr=subprocess.STDOUT, cwd=cwd, timeout=600, preexec_fn=DIE_WITH_PARENT).returncode
