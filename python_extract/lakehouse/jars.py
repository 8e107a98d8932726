"""Where the lakehouse's jars come from: Maven Central, once, at setup; never during a run.

Every jar a session may need is pinned below by Maven coordinates and SHA-256. `sparkload lakehouse setup`
(`provision`) fetches the missing ones with Maven (`mvn dependency:copy`, one call for all of them), checks
each sum, and keeps them in `jars_cache`; a session (`jars_for`) only looks them up, so it starts offline
and never resolves a package. An explicit directory (`SPARKLOAD_JARS`, profile `jars_dir`) holding the same
file names wins over the cache, for machines that get their jars another way.

| set        | jars                                                              | why |
|------------|-------------------------------------------------------------------|-----|
| delta      | delta-spark_2.12 + delta-storage (the `delta-spark` Python package's version), H2 1.4.200 | the Hive metastore on H2 (`session.py`): DataNucleus 4.1, which Spark's Hive 2.3 client uses, cannot map its schema onto H2 2.x |
| iceberg    | iceberg-spark-runtime-3.5_2.12, H2 2.3.232                        | the Iceberg JdbcCatalog on H2 |
| s3         | hadoop-aws 3.3.4 (pyspark 3.5's Hadoop client) + the AWS SDK bundle it was built with | S3A, for a warehouse on `s3a://` |
| postgresql | the PostgreSQL JDBC driver                                        | a catalog database on PostgreSQL (`catalog_uri`) |
| connect    | spark-connect_2.12 3.5.7                                          | the Spark Connect server (`sparkload lakehouse serve --connect`); pyspark's patch release is not on Maven Central, 3.5.7 is the newest 3.5 that is, and runs in pyspark 3.5's JVM |

Errors: `LakehouseConfigError`, one line naming the missing jars and how to supply them.
"""
from __future__ import annotations

import hashlib
import logging
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence
from xml.sax.saxutils import escape

from .config import LakehouseConfig, LakehouseConfigError

log = logging.getLogger("sparkload.lakehouse")


@dataclass(frozen=True)
class Jar:
    coordinates: str  # group:artifact:version
    sha256: str
    jdbc_driver: bool = False  # a catalog database's driver: the Hive metastore loads it from the JVM's class path

    @property
    def file_name(self) -> str:
        _, artifact, version = self.coordinates.split(":")
        return f"{artifact}-{version}.jar"


# Maven Central serves spark-connect_2.12 at 3.5.0, .1, .4, .5 and .7 only (not pyspark's own 3.5.9): 3.5.7's
# server plugin runs in a 3.5.9 JVM and serves pyspark 3.5.9's client (tests/deploy/test_connect.py)
CONNECT_VERSION = "3.5.7"
DELTA_VERSION = "3.3.3"  # pyproject.toml pins the delta-spark Python package to the same version
JAR_SETS: Dict[str, Sequence[Jar]] = {
    "delta": (
        Jar(f"io.delta:delta-spark_2.12:{DELTA_VERSION}", "4912bf902a1c453aba3bd838ff212dedd357155212f9bb37a6b47d97f2827ebc"),
        Jar(f"io.delta:delta-storage:{DELTA_VERSION}", "45ad193053fd30cebe6d9ab1889873cde39b223a0f210e00ebee8b6642476901"),
        Jar("com.h2database:h2:1.4.200", "3ad9ac4b6aae9cd9d3ac1c447465e1ed06019b851b893dd6a8d76ddb6d85bca6", jdbc_driver=True),
    ),
    "iceberg": (
        Jar("org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2",
            "c562d482dcd16b666e808b755469fbc4b2604284b41622c9d87e2c02b7cc6c5f"),
        Jar("com.h2database:h2:2.3.232", "8dae62d22db8982c3dcb3826edb9c727c5d302063a67eef7d63d82de401f07d3", jdbc_driver=True),
    ),
    "s3": (
        Jar("org.apache.hadoop:hadoop-aws:3.3.4", "53f9ae03c681a30a50aa17524bd9790ab596b28481858e54efd989a826ed3a4a"),
        Jar("com.amazonaws:aws-java-sdk-bundle:1.12.262", "873fe7cf495126619997bec21c44de5d992544aea7e632fdc77adb1a0915bae5"),
    ),
    "postgresql": (
        Jar("org.postgresql:postgresql:42.7.4", "188976721ead8e8627eb6d8389d500dccc0c9bebd885268a3047180274a6031e",
            jdbc_driver=True),
    ),
    "connect": (
        Jar(f"org.apache.spark:spark-connect_2.12:{CONNECT_VERSION}",
            "15366e21273a874c760b51fa00743a2acb8fa78642cc35d7a076a3ade0c5eef6"),
    ),
}
MAVEN_DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:2.8"


def pyspark_jars_dir() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def sets_of(config: LakehouseConfig, table_format: str) -> List[str]:
    """The jar sets a session of `table_format` over `config`'s lakehouse needs."""
    sets = [table_format]
    if config.on_s3 and config.s3_jars != "none":
        sets.append("s3")
    if config.catalog_jdbc_uri(table_format).startswith("jdbc:postgresql:"):
        sets.append("postgresql")
    return sets


def jars_for(config: LakehouseConfig, sets: Iterable[str]) -> List[str]:
    """The paths of every jar of `sets`, from `jars_dir` when it holds one, else from the cache; raises
    `LakehouseConfigError` naming the missing ones (a session never downloads)."""
    found, missing = [], []
    for jar in (jar for name in sets for jar in JAR_SETS[name]):
        path = _located(config, jar)
        (found if path else missing).append(str(path) if path else jar.file_name)
    if missing:
        names = " ".join(sorted(set(sets)))
        where = f"{config.jars_dir} (SPARKLOAD_JARS) nor {config.jars_cache}" if config.jars_dir else str(config.jars_cache)
        raise LakehouseConfigError(
            f"missing jars: {', '.join(missing)} are not in {where}: run `sparkload lakehouse setup --jars {names}` "
            "(fetches them from Maven Central once), or put them in a directory and set SPARKLOAD_JARS to it")
    return found


def jdbc_drivers(paths: Iterable[str]) -> List[str]:
    """Those of `paths` (from `jars_for`) that are a catalog database's JDBC driver."""
    drivers = {jar.file_name for jars in JAR_SETS.values() for jar in jars if jar.jdbc_driver}
    return [p for p in paths if Path(p).name in drivers]


def _located(config: LakehouseConfig, jar: Jar) -> Optional[Path]:
    for folder in (config.jars_dir, config.jars_cache):
        if folder is not None and (folder / jar.file_name).is_file():
            return folder / jar.file_name
    return None


def _verified(config: LakehouseConfig, jar: Jar) -> bool:
    """Whether `jar` is at hand with its pinned sum; a cached file of the same name and other content (an
    older sparkload's build of it) is removed, to be fetched again."""
    path = _located(config, jar)
    if path is None:
        return False
    if sha256(path) == jar.sha256:
        return True
    if path.parent == config.jars_cache:
        log.warning("%s has SHA-256 %s, pinned %s: fetching it again", path, sha256(path), jar.sha256)
        path.unlink()
        return False
    raise LakehouseConfigError(f"{path} (SPARKLOAD_JARS) has SHA-256 {sha256(path)}, but sparkload pins {jar.coordinates} "
                               f"at {jar.sha256}: replace it with that artifact from Maven Central")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provision(config: LakehouseConfig, sets: Iterable[str]) -> List[str]:
    """What `sparkload lakehouse setup` does: fetch every jar of `sets` that neither `jars_dir` nor the cache
    holds, with one Maven call, into the cache, each checked against its pinned SHA-256; a no-op when all are
    there. Returns the paths of all of them."""
    sets = list(dict.fromkeys(sets))
    wanted = [jar for name in sets for jar in JAR_SETS[name]]
    missing = [jar for jar in dict.fromkeys(wanted) if not _verified(config, jar)]
    if missing:
        _fetch(missing, config.jars_cache)
    return jars_for(config, sets)


def _fetch(jars: Sequence[Jar], cache: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LakehouseConfigError(
            f"Maven (mvn) is needed to fetch {', '.join(j.file_name for j in jars)} from Maven Central: install it "
            "(apt-get install maven), or put the jars in a directory and set SPARKLOAD_JARS to it")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sparkload-jars-") as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(_pom(jars, Path(tmp) / "out"))
        log.info("fetching %s from Maven Central", ", ".join(j.coordinates for j in jars))
        done = subprocess.run([mvn, "-q", "-B", "-f", str(pom), f"{MAVEN_DEPENDENCY_PLUGIN}:copy"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            errors = [line for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line][:1]
            raise LakehouseConfigError(
                f"Maven could not fetch {', '.join(j.coordinates for j in jars)}: "
                f"{errors[0].strip() if errors else f'mvn exited {done.returncode}'}; "
                "put the jars in a directory and set SPARKLOAD_JARS to it instead")
        for jar in jars:
            part = Path(tmp) / "out" / jar.file_name
            actual = sha256(part)
            if actual != jar.sha256:
                raise LakehouseConfigError(f"{jar.coordinates} from Maven has SHA-256 {actual}, pinned {jar.sha256}: "
                                           "not installed")
            shutil.move(str(part), cache / jar.file_name)
    log.info("provisioned %s in %s", ", ".join(j.file_name for j in jars), cache)


def _pom(jars: Sequence[Jar], out: Path) -> str:
    items = "".join(
        "<artifactItem><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version></artifactItem>".format(
            *map(escape, jar.coordinates.split(":"))) for jar in jars)
    return ("<project><modelVersion>4.0.0</modelVersion><groupId>sparkload</groupId><artifactId>jars</artifactId>"
            "<version>1</version><packaging>pom</packaging><build><plugins><plugin>"
            "<groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId>"
            f"<version>{MAVEN_DEPENDENCY_PLUGIN.rsplit(':', 1)[1]}</version>"
            f"<configuration><outputDirectory>{escape(str(out))}</outputDirectory><artifactItems>{items}</artifactItems>"
            "</configuration></plugin></plugins></build></project>")
