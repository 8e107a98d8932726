"""Where the table-format jars come from, and the provisioning step that caches them.

Delta: an explicit jar directory (`SPARKLOAD_JARS`), else Maven coordinates when Maven is reachable,
else the platform's classpath (a session that already exists, e.g. on Databricks).

Iceberg (offline-capable): the runtime jar ships in the PyPI wheel `snowpark-connect-deps-iceberg`
without the jackson classes it was built to shade; `provision_iceberg` relocates PySpark's own
jackson-core/databind/annotations into `org.apache.iceberg.shaded.com.fasterxml.jackson` with jarjar
(Debian's `libjarjar-java`) and copies an H2 JDBC driver for the catalog, all into `jars_cache`.

S3 (a warehouse at `s3a://...`): Hadoop's S3A connector, `hadoop-aws` plus the AWS SDK bundle it was
built with. `provision_s3` caches `hadoop-aws-3.3.1.jar` and `aws-java-sdk-bundle-1.11.901.jar` from
the PyPI sdist `sagemaker-pyspark` 1.4.5 (fetched with `pip download`, checked against pinned
SHA-256 sums); they work with pyspark 3.5's hadoop client 3.3.4 (tests/lakehouse/test_s3.py). With
Maven access the coordinates `S3_MAVEN` serve instead; platforms that ship hadoop-aws need neither.

Errors: `LakehouseConfigError` with a message that says how to provide what is missing.
"""
from __future__ import annotations

import glob
import hashlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

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
S3_SDIST = ("sagemaker-pyspark", "1.4.5")
S3_JARS = {  # file name in the sdist's deps/jars/ -> its SHA-256
    "hadoop-aws-3.3.1.jar": "6be50ad8a8b445d2802381b085b2a3ede5c29d353450a6a21f16b2fefa962b6e",
    "aws-java-sdk-bundle-1.11.901.jar": "b87175b32a16544cc1b37cf40390eb375833e62bed67f8ce6cde4b7ad6429ead",
}
S3_MAVEN = "org.apache.hadoop:hadoop-aws:3.3.4"  # pyspark 3.5's hadoop; pulls its aws-java-sdk-bundle


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


def s3_jars(cache: Path) -> Optional[List[str]]:
    """The cached S3A jars (hadoop-aws, AWS SDK bundle), or None when not provisioned."""
    jars = [cache / name for name in S3_JARS]
    return [str(j) for j in jars] if all(j.is_file() for j in jars) else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provision_s3(cache: Path) -> List[str]:
    """Cache the S3A jars from the PyPI sdist `sagemaker-pyspark`; a no-op when they are there."""
    cache.mkdir(parents=True, exist_ok=True)
    existing = s3_jars(cache)
    if existing:
        return existing
    name, version = S3_SDIST
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
             "--no-binary", ":all:", "-d", tmp, f"{name}=={version}"],
            capture_output=True, text=True,
        )
        sdists = sorted(Path(tmp).glob("*.tar.gz"))
        if done.returncode != 0 or not sdists:
            raise LakehouseConfigError(
                f"could not download the PyPI sdist {name}=={version}, which holds hadoop-aws for S3: "
                f"{(done.stderr or done.stdout).strip().splitlines()[-1:] or 'no file'}; "
                f"with Maven access, set spark_conf spark.jars.packages={S3_MAVEN} instead"
            )
        with tarfile.open(sdists[0]) as sdist:
            members = {Path(m.name).name: m for m in sdist.getmembers() if Path(m.name).name in S3_JARS}
            for jar, digest in S3_JARS.items():
                if jar not in members:
                    raise LakehouseConfigError(f"{sdists[0].name} holds no {jar}")
                part = Path(tmp) / jar
                with sdist.extractfile(members[jar]) as src, open(part, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                if _sha256(part) != digest:
                    raise LakehouseConfigError(f"{jar} from {sdists[0].name} has SHA-256 {_sha256(part)}, expected {digest}")
                shutil.move(str(part), cache / jar)
    log.info("provisioned S3A jars in %s", cache)
    jars = s3_jars(cache)
    assert jars, f"provisioning left {cache} incomplete"
    return jars


def storage_classpath(config: LakehouseConfig) -> Tuple[List[str], Optional[str]]:
    """(jars, Maven coordinates) of the warehouse's file system connector: none for a local warehouse
    or `s3_jars: none` (the platform's own), the cached S3A jars, else Maven when reachable."""
    if not config.on_s3 or config.s3_jars == "none":
        return [], None
    cached = s3_jars(config.jars_cache)
    if cached:
        return cached, None
    if maven_reachable():
        return [], S3_MAVEN
    raise LakehouseConfigError(
        f"the warehouse {config.warehouse_uri} is on S3 and hadoop-aws cannot be found: run "
        f"`sparkload lakehouse setup --s3` once (caches it in {config.jars_cache}), run where Maven "
        "Central is reachable, or set SPARKLOAD_S3_JARS=none where the platform provides hadoop-aws"
    )


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


def provision(config: LakehouseConfig, s3: bool = False) -> List[str]:
    """What `sparkload lakehouse setup` does: cache every jar the configured format needs offline, and
    the S3A jars too when `s3` is asked for or the warehouse is on S3."""
    storage = provision_s3(config.jars_cache) if s3 or config.on_s3 else []
    if config.table_format == "delta":
        found = delta_jars(config.jars_dir)
        if not found:
            raise LakehouseConfigError(_delta_missing_message(config))
        return found + storage
    return provision_iceberg(config.jars_cache) + storage


def _delta_missing_message(config: LakehouseConfig) -> str:
    where = f"SPARKLOAD_JARS={config.jars_dir}" if config.jars_dir else "SPARKLOAD_JARS is not set"
    return (
        "table_format 'delta' needs the Delta Lake jars, and none could be found: "
        f"{where}; Maven Central is unreachable; no running Spark platform provides them. "
        "Put delta-spark_2.12-3.3.x.jar and delta-storage-3.3.x.jar in a directory and set "
        "SPARKLOAD_JARS (or `jars_dir` in the profile), run where Maven Central is reachable, "
        "or choose table_format 'iceberg' (run `sparkload lakehouse setup` once to cache its jars)."
    )
