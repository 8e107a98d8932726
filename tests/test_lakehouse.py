"""The lakehouse factory: format choice, offline failure modes, and what the session really is."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from python_extract.lakehouse import LakehouseConfig, LakehouseConfigError, choose_format, session_format
from python_extract.lakehouse.jars import JAR_SETS

pytestmark = pytest.mark.each_format  # the format changes what this tests (docs/testing.md)

REPO = Path(__file__).resolve().parents[1]


def _env_without_jars(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SPARKLOAD_JARS", "SPARKLOAD_TABLE_FORMAT")}
    env.update(SPARKLOAD_HOME=str(tmp_path / "lake"), SPARKLOAD_JARS_CACHE=str(tmp_path / "no-jars"))
    return env


def test_missing_jars__a_session_fails_within_seconds_naming_them_and_how_to_supply_them(tmp_path):
    code = "from python_extract.lakehouse import LakehouseConfig, get_session\nget_session(LakehouseConfig.from_env())\n"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], env=_env_without_jars(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    assert time.monotonic() - started < 10
    last = done.stderr.strip().splitlines()[-1]
    assert last == (f"python_extract.errors.LakehouseConfigError: missing jars: delta-spark_2.12-3.3.3.jar, "
                    f"delta-storage-3.3.3.jar, h2-1.4.200.jar are not in {tmp_path / 'no-jars'}: run `sparkload lakehouse "
                    "setup --jars delta` (fetches them from Maven Central once), or put them in a directory and set "
                    "SPARKLOAD_JARS to it")
    assert not (tmp_path / "lake" / "lakehouse.json").exists()  # nothing pinned by a start that did not happen


@pytest.mark.extended("iceberg")  # a new lakehouse is Delta in either run
def test_cli_check__a_new_lakehouse_is_delta_whatever_the_network_and_missing_jars_exit_2(tmp_path):
    cli = [sys.executable, "-m", "python_extract.cli", "lakehouse", "check"]
    missing = subprocess.run(cli, env=_env_without_jars(tmp_path), capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    assert missing.stderr.startswith("sparkload: missing jars: delta-spark_2.12-3.3.3.jar")
    env = {**_env_without_jars(tmp_path), "SPARKLOAD_JARS_CACHE": str(LakehouseConfig().jars_cache)}
    found = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("table format delta: a new lakehouse with no table_format set: delta, the default")


def test_config__rejects_an_unknown_table_format_and_auto():
    with pytest.raises(LakehouseConfigError, match="table_format='hudi' is not one of delta, iceberg$"):
        LakehouseConfig(table_format="hudi")
    with pytest.raises(LakehouseConfigError, match=r"table_format='auto' is not one of delta, iceberg \(auto was removed"):
        LakehouseConfig(table_format="auto")
    assert LakehouseConfig.from_env({"SPARKLOAD_TABLE_FORMAT": ""}).table_format is None


def test_jars__a_supplied_jar_of_other_content_is_refused_naming_the_pinned_artifact(tmp_path):
    from python_extract.lakehouse.jars import provision

    supplied = tmp_path / "jars"
    supplied.mkdir()
    for jar in JAR_SETS["delta"]:
        (supplied / jar.file_name).write_bytes(b"not the artifact")
    config = LakehouseConfig(home=tmp_path / "lake", jars_dir=supplied, jars_cache=tmp_path / "cache")
    with pytest.raises(LakehouseConfigError, match=r"delta-spark_2.12-3.3.3.jar \(SPARKLOAD_JARS\) has SHA-256 [0-9a-f]{64}, "
                                                   r"but sparkload pins io.delta:delta-spark_2.12:3.3.3 at 4912bf90"):
        provision(config, ["delta"])
    assert not (tmp_path / "cache").exists()


def test_config__reads_sparkload_environment_variables(tmp_path):
    config = LakehouseConfig.from_env(
        {"SPARKLOAD_HOME": str(tmp_path), "SPARKLOAD_TABLE_FORMAT": "iceberg", "SPARKLOAD_JARS": "/opt/jars"}
    )
    assert (config.home, config.table_format, config.jars_dir) == (tmp_path.resolve(), "iceberg", Path("/opt/jars"))


def test_session__tables_are_of_the_chosen_format(spark):
    fmt = session_format(spark)
    spark.sql("create schema if not exists fmt_check")
    spark.sql(f"create or replace table fmt_check.t (id bigint) using {fmt}")
    spark.sql("insert into fmt_check.t values (1), (2)")
    spark.sql("merge into fmt_check.t t using (select 2 as id) s on t.id = s.id when matched then delete")
    assert [r.id for r in spark.table("fmt_check.t").collect()] == [1]
    provider = [r for r in spark.sql("describe extended fmt_check.t").collect() if r.col_name == "Provider"]
    assert provider and provider[0].data_type.lower() == fmt


@pytest.mark.extended  # the demo runs on Delta in either run; the README's quickstart (tests/reliability) runs the main job in its own processes
def test_demo__runs_on_delta_the_default_in_its_own_process(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SPARKLOAD_TABLE_FORMAT"}
    env["SPARKLOAD_HOME"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "python_extract.cli", "demo"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "table format delta" in done.stderr
    assert "grace.hopper@example.com" in done.stdout and "Edsger Dijkstra" in done.stdout


def test_wheel__ships_the_package_macros_inside_the_adapter(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("dbt_sparkload-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for macro in (REPO / "macros").rglob("*.sql"):
        assert f"dbt/include/sparkload/macros/{macro.relative_to(REPO / 'macros')}" in names
    assert "dbt/include/sparkload/dbt_project.yml" in names
    assert "python_extract/demo/dbt_project/models/customers.sql" in names
    assert not any(n.startswith("dbt/adapters/__init__") or n == "dbt/__init__.py" for n in names)


def test_format_pin__the_first_start_records_the_format_and_later_starts_keep_it(tmp_path, spark, lakehouse):
    from python_extract.lakehouse.session import FORMAT_RECORD, spark_conf

    # the run's session pinned its lakehouse at its start
    assert json.loads((lakehouse.home / FORMAT_RECORD).read_text())["table_format"] == session_format(spark)
    config = LakehouseConfig(home=tmp_path / "lake", table_format="iceberg")
    spark_conf(config, choose_format(config))  # what every start (session, thrift server) computes
    assert json.loads((config.home / FORMAT_RECORD).read_text())["table_format"] == "iceberg"
    # settings that name no format keep the pinned one (not the default, delta); an Iceberg lakehouse opened as Delta fails
    unset = choose_format(config.with_(table_format=None))
    assert unset.table_format == "iceberg" and unset.reason.startswith("pinned: the lakehouse's format since its first use")
    with pytest.raises(LakehouseConfigError) as error:
        choose_format(config.with_(table_format="delta"))
    assert str(error.value) == (
        f"the lakehouse {config.home} holds iceberg tables (its format since its first use, recorded in "
        f"{config.home / FORMAT_RECORD}); table_format=delta would switch formats: use table_format iceberg "
        "(or leave it unset) here, or another lakehouse home for delta")


def test_format_pin__a_delta_lakehouse_without_its_jars_fails_instead_of_starting_as_iceberg(tmp_path):
    from python_extract.lakehouse.session import FORMAT_RECORD

    (tmp_path / "lake").mkdir()
    (tmp_path / "lake" / FORMAT_RECORD).write_text('{"table_format": "delta"}')
    cli = [sys.executable, "-m", "python_extract.cli", "lakehouse", "check", "--table-format", "iceberg"]
    done = subprocess.run(cli, env=_env_without_jars(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"sparkload: the lakehouse {tmp_path / 'lake'} holds delta tables (its format since its first use")
    unset = subprocess.run(cli[:-2], env=_env_without_jars(tmp_path), capture_output=True, text=True, timeout=60)
    assert unset.returncode == 2 and unset.stderr.startswith("sparkload: missing jars: delta-spark_2.12-3.3.3.jar"), unset.stderr


def test_config__s3_settings_and_secrets_never_in_repr(tmp_path):
    from python_extract.lakehouse.session import s3_conf, s3_credentials_conf

    env = {"SPARKLOAD_WAREHOUSE": "s3a://lake/wh/", "SPARKLOAD_S3_ENDPOINT": "http://127.0.0.1:9000",
           "SPARKLOAD_S3_PATH_STYLE": "true", "AWS_ACCESS_KEY_ID": "AKIA-test", "AWS_SECRET_ACCESS_KEY": "s3cr3t-value"}
    config = LakehouseConfig.from_env(env, home=tmp_path)
    assert (config.warehouse_uri, config.on_s3) == ("s3a://lake/wh", True)
    assert "s3cr3t-value" not in repr(config) and "AKIA-test" not in repr(config)
    assert s3_conf(config) == {"spark.hadoop.fs.s3a.path.style.access": "true",
                               "spark.hadoop.fs.s3a.endpoint": "http://127.0.0.1:9000",
                               "spark.hadoop.fs.s3a.connection.ssl.enabled": "false"}
    assert s3_credentials_conf(config) == {"fs.s3a.access.key": "AKIA-test", "fs.s3a.secret.key": "s3cr3t-value"}
    local = LakehouseConfig(home=tmp_path)
    assert (local.warehouse_uri, local.on_s3, s3_conf(local)) == ((tmp_path / "warehouse").as_uri(), False, {})
    with pytest.raises(LakehouseConfigError, match=r"s3_path_style='maybe' is not a boolean; expected true or false"):
        LakehouseConfig.from_env({"SPARKLOAD_S3_PATH_STYLE": "maybe"})


def test_catalog__a_commit_survives_a_sigkill_of_its_jvm_right_after_it(tmp_path):
    """The Iceberg catalog (H2) writes each commit to its file before the commit returns: a JVM killed a
    moment after a table write leaves the table's pointer at that write (H2's default write delay kept
    commits in memory for 500 ms, and a killed dbt run lost the MERGE it had just committed)."""
    code = (
        "import os, signal\n"
        "from python_extract.lakehouse import get_session\n"
        "spark = get_session()\n"
        "spark.sql('create namespace if not exists durable')\n"
        "spark.sql('create table durable.t (i int) using iceberg')\n"
        "spark.sql('insert into durable.t values (1), (2)')\n"
        "spark.sql(\"alter table durable.t set tblproperties ('k' = 'v')\")\n"  # a commit of milliseconds
        "os.kill(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid(), signal.SIGKILL)\n"
        "os._exit(0)\n"
    )
    env = {**os.environ, "SPARKLOAD_HOME": str(tmp_path), "SPARKLOAD_TABLE_FORMAT": "iceberg", "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    config = LakehouseConfig.from_env(home=tmp_path)
    h2 = Path(config.jars_cache) / "h2-2.3.232.jar"
    done = subprocess.run(["java", "-cp", str(h2), "org.h2.tools.Shell", "-url", config.catalog_jdbc_uri("iceberg"),
                           "-user", "", "-password", "", "-sql",
                           "select metadata_location from iceberg_tables where table_name = 't'"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    written = sorted((tmp_path / "warehouse").rglob("*.metadata.json"), key=lambda p: p.name)
    assert written[-1].name.startswith("00002-"), written  # create, insert, properties
    assert written[-1].name in done.stdout, done.stdout


def test_get_session__same_settings_same_session_another_lakehouse_raises_naming_what_differs(lakehouse, spark, tmp_path):
    from python_extract.lakehouse import get_session
    from python_extract.errors import LakehouseMismatch

    assert get_session(LakehouseConfig.from_env(home=lakehouse.home)) is spark
    other = tmp_path / "other"
    with pytest.raises(LakehouseMismatch) as error:
        get_session(lakehouse.with_(home=other))
    message = str(error.value)
    assert message.startswith(f"this process runs the SparkSession of lakehouse {lakehouse.home} and was asked for a "
                              f"different one: ")
    assert f"home {other} (running: {lakehouse.home})" in message
    assert f"warehouse {other.as_uri()}/warehouse (running: {lakehouse.warehouse_uri})" in message
    assert not other.exists()  # nothing was created for the refused lakehouse
    running = session_format(spark)
    wrong = "delta" if running == "iceberg" else "iceberg"
    with pytest.raises(LakehouseMismatch, match=rf"different one: table_format {wrong} \(running: {running}\); "):
        get_session(lakehouse.with_(table_format=wrong))
    with pytest.raises(LakehouseMismatch, match=r"different one: spark_conf spark.sql.shuffle.partitions 9 \(running: \(unset\)\)"):
        get_session(lakehouse.with_(spark_conf={"spark.sql.shuffle.partitions": "9"}))
    assert get_session(lakehouse.with_(table_format=None)) is spark
