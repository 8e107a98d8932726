"""Where the table-format jars come from, and the provisioning step that caches them.

Delta: an explicit jar directory (`SPARKLOAD_JARS`), else Maven coordinates when Maven is reachable,
else the platform's classpath (a session that already exists, e.g. on Databricks).

Iceberg (offline-capable): the runtime jar ships in the PyPI wheel `snowpark-connect-deps-iceberg`
without the jackson classes it was built to shade; `provision_iceberg` relocates PySpark's own
jackson-core/databind/annotations into `org.apache.iceberg.shaded.com.fasterxml.jackson` with jarjar
(Debian's `libjarjar-java`) and copies an H2 JDBC driver for the catalog, all into `jars_cache`.

Errors: `LakehouseConfigError` with a message that says how to provide what is missing.
"""
from __future__ import annotations

import glob
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import List, Optional, Sequence

from .config import LakehouseConfig, LakehouseConfigError

log = logging.getLogger("sparkload.lakehouse")

ICEBERG_RUNTIME = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
SHADED_JACKSON = "iceberg-shaded-jackson-2.15.2.jar"
JACKSON_JARS = ("jackson-core-2.15.2.jar", "jackson-databind-2.15.2.jar", "jackson-annotations-2.15.2.jar")
JARJAR_CANDIDATES = ("/usr/share/java/jarjar.jar",)
H2_CANDIDATES = (
    "~/.m2/repository/com/h2database/h2/*/h2-*.jar",
    "/usr/share/java/h2.jar",
    "/usr/share/java/h2-*.jar",
)
POSTGRES_CANDIDATES = (
    "~/.m2/repository/org/postgresql/postgresql/*/postgresql-*[0-9].jar",
    "/usr/share/java/postgresql.jar",
)
MAVEN_HOST = ("repo1.maven.org", 443)


def pyspark_jars_dir() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def iceberg_jars(cache: Path) -> Optional[List[str]]:
    """The cached Iceberg jars (runtime, shaded jackson, H2 driver), or None when not provisioned."""
    runtime, jackson = cache / ICEBERG_RUNTIME, cache / SHADED_JACKSON
    h2 = sorted(cache.glob("h2*.jar"))
    if runtime.is_file() and jackson.is_file() and h2:
        return [str(runtime), str(jackson), str(h2[-1])]
    return None


def _wheel_iceberg_runtime() -> Path:
    try:
        import snowpark_connect_deps_iceberg  # type: ignore
    except ImportError:
        raise LakehouseConfigError(
            "the Iceberg runtime jar comes from the PyPI package 'snowpark-connect-deps-iceberg': "
            "pip install snowpark-connect-deps-iceberg"
        )
    base = Path(next(iter(snowpark_connect_deps_iceberg.__path__)))
    jar = base / "jars" / ICEBERG_RUNTIME
    if not jar.is_file():
        raise LakehouseConfigError(f"{jar} is missing from snowpark-connect-deps-iceberg")
    return jar


def _first_existing(patterns: Sequence[str]) -> Optional[Path]:
    for pattern in patterns:
        hits = sorted(glob.glob(os.path.expanduser(pattern)))
        if hits:
            return Path(hits[-1])
    return None


def _without_multi_release(src: Path, dst: Path) -> None:
    """Copy a jar without META-INF/versions: jarjar maps those classes onto the base ones and aborts."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            if not item.filename.startswith("META-INF/versions/"):
                zout.writestr(item, zin.read(item.filename))


def _relocate_jackson(jarjar: Path, target: Path) -> None:
    """One jar holding PySpark's jackson classes renamed to Iceberg's shaded package."""
    src_dir = pyspark_jars_dir()
    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp) / "rules.txt"
        rules.write_text("rule com.fasterxml.jackson.** org.apache.iceberg.shaded.com.fasterxml.jackson.@1\n")
        merged = Path(tmp) / "merged"
        merged.mkdir()
        for name in JACKSON_JARS:
            flat, out = Path(tmp) / f"flat-{name}", Path(tmp) / name
            _without_multi_release(src_dir / name, flat)
            done = subprocess.run(
                ["java", "-jar", str(jarjar), "process", str(rules), str(flat), str(out)],
                capture_output=True, text=True,
            )
            if done.returncode != 0 or not out.is_file():
                raise LakehouseConfigError(f"jarjar failed on {name}: {done.stdout}{done.stderr}")
            shutil.unpack_archive(str(out), str(merged), format="zip")
        shutil.rmtree(merged / "META-INF", ignore_errors=True)
        archive = shutil.make_archive(str(Path(tmp) / "shaded"), "zip", str(merged))
        shutil.move(archive, target)


def provision_iceberg(cache: Path) -> List[str]:
    """Build and cache the Iceberg jars; a no-op when they are already there."""
    cache.mkdir(parents=True, exist_ok=True)
    existing = iceberg_jars(cache)
    if existing:
        return existing
    runtime = _wheel_iceberg_runtime()
    shutil.copyfile(runtime, cache / ICEBERG_RUNTIME)
    if not (cache / SHADED_JACKSON).is_file():
        jarjar = _first_existing(JARJAR_CANDIDATES)
        if jarjar is None:
            raise LakehouseConfigError(
                "jarjar is needed to relocate jackson for Iceberg: apt-get install libjarjar-java"
            )
        _relocate_jackson(jarjar, cache / SHADED_JACKSON)
    h2 = _first_existing(H2_CANDIDATES)
    if h2 is None:
        raise LakehouseConfigError(
            "an H2 JDBC driver is needed for the Iceberg catalog: apt-get install libh2-java"
        )
    shutil.copyfile(h2, cache / h2.name)
    log.info("provisioned Iceberg jars in %s", cache)
    jars = iceberg_jars(cache)
    assert jars, f"provisioning left {cache} incomplete"
    return jars


def catalog_driver_jars(catalog_uri: str) -> List[str]:
    """The JDBC driver of the Iceberg catalog's database when it is not H2 (provisioned with Iceberg)."""
    if not catalog_uri.startswith("jdbc:postgresql:"):
        return []
    driver = _first_existing(POSTGRES_CANDIDATES)
    if driver is None:
        raise LakehouseConfigError(
            "catalog_uri is a PostgreSQL database and no PostgreSQL JDBC driver was found: "
            "apt-get install libpostgresql-jdbc-java"
        )
    return [str(driver)]


def delta_jars(jars_dir: Optional[Path]) -> Optional[List[str]]:
    """Delta jars (delta-spark + delta-storage) in an explicit directory, or None."""
    if jars_dir is None or not jars_dir.is_dir():
        return None
    spark = sorted(jars_dir.glob("delta-spark_2.12-*.jar")) or sorted(jars_dir.glob("delta-core_2.12-*.jar"))
    storage = sorted(jars_dir.glob("delta-storage-*.jar"))
    if spark and storage:
        return [str(spark[-1]), str(storage[-1])]
    return None


def maven_reachable(timeout: float = 3.0) -> bool:
    """True when Maven Central answers a TCP connect within `timeout` seconds (DNS included)."""
    result = {"ok": False}

    def probe() -> None:
        try:
            with socket.create_connection(MAVEN_HOST, timeout=timeout):
                result["ok"] = True
        except OSError:
            pass

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout + 0.5)
    return result["ok"]


def provision(config: LakehouseConfig) -> List[str]:
    """What `sparkload lakehouse setup` does: cache every jar the configured format needs offline."""
    if config.table_format == "delta":
        found = delta_jars(config.jars_dir)
        if not found:
            raise LakehouseConfigError(_delta_missing_message(config))
        return found
    return provision_iceberg(config.jars_cache)


def _delta_missing_message(config: LakehouseConfig) -> str:
    where = f"SPARKLOAD_JARS={config.jars_dir}" if config.jars_dir else "SPARKLOAD_JARS is not set"
    return (
        "table_format 'delta' needs the Delta Lake jars, and none could be found: "
        f"{where}; Maven Central is unreachable; no running Spark platform provides them. "
        "Put delta-spark_2.12-3.3.x.jar and delta-storage-3.3.x.jar in a directory and set "
        "SPARKLOAD_JARS (or `jars_dir` in the profile), run where Maven Central is reachable, "
        "or choose table_format 'iceberg' (run `sparkload lakehouse setup` once to cache its jars)."
    )
