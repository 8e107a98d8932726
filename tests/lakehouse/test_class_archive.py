"""The JVM class archive on a real JVM (python_extract/lakehouse/class_archive.py): `sparkload lakehouse
setup` reports the archive (this run trained it before its first session, as setup does), and a session
started by `get_session` maps it and writes, MERGEs and reads an Iceberg table as without it: under
`-Xshare:on` a JVM that cannot map the archive it was handed does not start, which the damaged-archive
case shows. The rules of which archive a driver gets: tests/lakehouse/test_class_archive_rules.py."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from python_extract.cli import main
from python_extract.lakehouse import LakehouseConfig, class_archive
from python_extract.lakehouse.session import choose_format, spark_conf

pytestmark = pytest.mark.dbt_targets("embedded")

SESSION = """
import sys
from python_extract.lakehouse import LakehouseConfig, get_session
s = get_session(LakehouseConfig.from_env(home=sys.argv[1]))
s.sql("create database if not exists d")
s.sql("create table d.t (id bigint, name string) using iceberg")
s.sql("insert into d.t values (1, 'a'), (2, 'b')")
s.sql("merge into d.t as t using (select 2 as id, 'B' as name union all select 3, 'c') as s on t.id = s.id "
      "when matched then update set * when not matched then insert *")
print(sorted(tuple(r) for r in s.sql("select id, name from d.t").collect()))
print(s.sparkContext.getConf().get("spark.driver.extraJavaOptions", ""))
"""


def session_in_child(home: Path, share: str = "", **env: str) -> subprocess.CompletedProcess:
    """A session started by `get_session` in a new process, with the JVM's class sharing mode `share`."""
    tool = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} {share}".strip()
    return subprocess.run([sys.executable, "-c", SESSION, str(home)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAVA_TOOL_OPTIONS": tool, **env}, cwd=home.parent)


def test_setup_reports_the_archive_and_a_session_started_with_it_maps_it(tmp_path, capsys, lakehouse):
    home = tmp_path / "lake"
    assert main(["lakehouse", "setup", "--home", str(home)]) == 0
    config = LakehouseConfig.from_env(home=home)
    archive = class_archive.path(config, spark_conf(config, choose_format(config), pin=False))
    assert capsys.readouterr().out.splitlines()[-1] == f"class archive: {archive} (present)"
    assert archive.is_file() and archive.stat().st_size > 50_000_000
    started = session_in_child(home, "-Xshare:on")
    assert started.returncode == 0, started.stderr[-3000:]
    table, options = started.stdout.splitlines()[-2:]
    assert table == "[(1, 'a'), (2, 'B'), (3, 'c')]" and f"-XX:SharedArchiveFile={archive}" in options.split()
    assert "did not map its class archive" not in started.stderr and archive.is_file()


# the archive's failure path; every session of the run starts with the archive the test above checks
@pytest.mark.extended
def test_a_damaged_archive_keeps_a_jvm_under_xshare_on_from_starting(tmp_path, lakehouse):
    """The check above can fail: the same session handed a damaged archive (another jar cache, the same
    jars, so the same key) does not start under -Xshare:on; without it the JVM runs without the archive,
    and `get_session` says so and removes the archive (its memory maps do not name it)."""
    jars = tmp_path / "cache" / "jars"
    jars.mkdir(parents=True)
    for jar in Path(lakehouse.jars_cache).glob("*.jar"):
        (jars / jar.name).symlink_to(jar)
    home = tmp_path / "lake"
    config = LakehouseConfig.from_env(home=home, jars_cache=jars)
    archive = class_archive.path(config, spark_conf(config, choose_format(config), pin=False))
    archive.parent.mkdir()
    archive.write_bytes(os.urandom(1 << 20))
    refused = session_in_child(home, "-Xshare:on", SPARKLOAD_JARS_CACHE=str(jars))
    assert refused.returncode != 0 and "JAVA_GATEWAY_EXITED" in refused.stderr, refused.stdout[-2000:]
    ran = session_in_child(home, SPARKLOAD_JARS_CACHE=str(jars))
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.splitlines()[-2] == "[(1, 'a'), (2, 'B'), (3, 'c')]" and f"-XX:SharedArchiveFile={archive}" in ran.stdout.splitlines()[-1]
    assert f"the JVM did not map its class archive {archive} (damaged" in ran.stderr and not archive.exists()
