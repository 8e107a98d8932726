"""A class data sharing archive for the session's JVM (JDK 17's dynamic CDS archive).

Before its first statement a Spark driver loads and verifies some 20,000 classes of Spark, Hadoop and the
table format; most of a short command's JVM start is that. A JVM started with `-XX:SharedArchiveFile`
maps the classes a trained JVM loaded instead (measured: a session's start and first four Iceberg
statements, 8.1 -> 4.7 s of JVM CPU). `sparkload lakehouse setup` trains the archive (python_extract/runtime/archive_training.py: 30-45 s, one
file of about 160 MB) and `get_session` starts the driver with it when one exists for this JVM: the same
Java build, pyspark install (where, which version, which jars), class path additions, driver memory and
`-X` options, which decide whether the JVM can map it. Anything else that differs gets another archive,
or none, so the JVM is not handed an archive it would reject. Jars added with `spark.jars` (the table
format's) are not on that list: their own class loader's classes are checked one by one as they load.

The archives live beside the jar cache (`jars_cache/../class-archive`, by default
`~/.cache/sparkload/class-archive`); the newest `KEEP` are kept. A JVM started with an archive or a
sharing option of its own (`-XX:SharedArchiveFile`, `-XX:ArchiveClassesAtExit`, `-Xshare`, in
`SPARK_SUBMIT_OPTS` or `spark.driver.extraJavaOptions`) is left as it is."""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
from pathlib import Path
from typing import Dict, List, Optional

from .config import LakehouseConfig

SHARING_OPTIONS = ("-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit", "-Xshare")
DRIVER_OPTIONS = "spark.driver.extraJavaOptions"


def folder(config: LakehouseConfig) -> Path:
    return config.jars_cache.parent / "class-archive"


def _java() -> Path:
    """The java pyspark's launcher runs: JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = Path(home) / "bin" / "java" if home else shutil.which("java")
    return Path(found or "java").resolve()


def _jvm_options(conf: Dict[str, str]) -> List[str]:
    """The driver's `-X` and module options, which decide whether an archive maps (heap size and so
    compressed pointers, the GC, modules); system properties and logging options do not."""
    words = shlex.split(os.environ.get("SPARK_SUBMIT_OPTS", "")) + shlex.split(conf.get(DRIVER_OPTIONS, ""))
    return [w for w in words if (w.startswith("-X") or w.startswith("--")) and not w.startswith(("-Xlog", *SHARING_OPTIONS))]


def own_sharing(conf: Dict[str, str]) -> bool:
    """Whether the driver's options already choose its class sharing."""
    words = os.environ.get("SPARK_SUBMIT_OPTS", "") + " " + conf.get(DRIVER_OPTIONS, "")
    return any(option in words for option in SHARING_OPTIONS)


def key(conf: Dict[str, str]) -> str:
    """What the archive of a driver started with `conf` depends on, as a short hash."""
    import pyspark

    java = _java()
    libjvm = java.parent.parent / "lib" / "server" / "libjvm.so"
    build = libjvm if libjvm.exists() else java
    stat = build.stat()
    # the JVM's class path is Spark's jars by absolute path: another install of the same pyspark (another
    # virtual environment) needs its own archive; the JVM would not map this one
    spark_home = Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent).resolve()
    jars = sorted(os.listdir(spark_home / "jars"))
    # the application class path must match the trained one; `spark.jars` are not on it
    class_path = [f"{entry}:{Path(entry).stat().st_size if Path(entry).is_file() else 0}"
                  for entry in conf.get("spark.driver.extraClassPath", "").split(":") if entry]
    parts = [f"{build}:{stat.st_size}:{stat.st_mtime_ns}", pyspark.__version__, str(spark_home), *jars, *class_path,
             f"memory={conf.get('spark.driver.memory', '')}", *_jvm_options(conf)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def path(config: LakehouseConfig, conf: Dict[str, str]) -> Path:
    return folder(config) / f"spark-{key(conf)}.jsa"


def handed(config: LakehouseConfig, conf: Dict[str, str]) -> Optional[Path]:
    """The archive a driver started with `conf` is handed, or None (no archive trained for it, or the
    options choose their own sharing)."""
    if own_sharing(conf):
        return None
    archive = path(config, conf)
    if not archive.is_file():
        return None
    try:
        os.utime(archive)  # the newest archives are the ones kept
    except OSError:
        pass  # a read-only cache: the archive is still usable
    return archive


def with_archive(conf: Dict[str, str], archive: Path) -> str:
    """`spark.driver.extraJavaOptions` of `conf` with `archive`."""
    return f"{conf.get(DRIVER_OPTIONS, '')} -XX:SharedArchiveFile={archive}".strip()


def confirm_mapped(archive: Path, pid: int) -> bool:
    """After the JVM `pid` started with `archive`: whether it mapped it (the JVM's memory maps name the
    file). A JVM that cannot map its archive (damaged, or not of this JVM) runs without it and says
    nothing, every start slower: that one is removed, so the next `sparkload lakehouse setup` trains
    another (the caller says so). True where the maps cannot be read (not Linux)."""
    import psutil

    try:
        maps = {m.path for m in psutil.Process(pid).memory_maps(grouped=True)}
    except (psutil.Error, NotImplementedError, AttributeError):  # AttributeError: no memory_maps on this OS
        return True
    if str(archive.resolve()) in maps:
        return True
    try:
        archive.unlink()
    except OSError:
        pass  # a read-only cache, or another process removed it first
    return False
