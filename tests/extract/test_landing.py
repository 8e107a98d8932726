"""Landing a package into staging tables: Iceberg tables in a local warehouse register the package's
Parquet files as they are (Iceberg `add_files`, no rewrite); other tables (an S3 warehouse, files whose
types differ from the table's) are rewritten by Spark. Both ways land the same rows, evolve the table's
columns, and land a retried package's rows once; registered files outlive the package."""
from __future__ import annotations

import logging
import re
import shutil
import threading
from pathlib import Path

import pytest

import python_extract as sl
from python_extract.load import spark_loader
from python_extract.packages import LoadPackage

from ..support.staging import data_files, loads, staged, unregistered_folders

pytestmark = pytest.mark.each_format  # the format changes what this tests (docs/testing.md)


def _two_loads(pipe):
    pipe.run([{"id": 1, "tags": ["a"]}, {"id": 2, "tags": []}], table_name="t")
    pipe.run([{"id": 3, "tags": ["b", "c"], "score": 1.5}], table_name="t")  # a new column and more child rows


@pytest.mark.only_on("iceberg")  # Iceberg's add_files registration and its table layout
def test_iceberg__registers_the_package_files_without_rewriting_them_and_keeps_them_when_packages_go(pipe):
    _two_loads(pipe)
    first, second = loads(pipe)
    files = data_files(pipe, "t")
    assert sorted({f.parent.name for f in files}) == [f"load-{first}-1", f"load-{second}-1"]
    assert all(f.is_file() and not f.is_symlink() and f.parent.parent.name == "data" for f in files)
    shutil.rmtree(pipe.working_dir / "packages")   # packages pruned / expired
    pipe.spark.sql("refresh table `{}`.`t`".format(pipe.dataset_name))
    assert staged(pipe, "t", "id", "score") == [(1, None), (2, None), (3, 1.5)]   # a file of load 1 lacks `score`
    assert sorted(v for (v,) in staged(pipe, "t__tags", "value")) == ["a", "b", "c"]


@pytest.mark.only_on("iceberg")  # Iceberg's registration and its table layout
def test_iceberg__a_new_table_is_created_with_its_files_in_one_commit(pipe):
    pipe.run([{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}], table_name="t")
    for table in ("t", "t__tags"):
        name = f"`{pipe.dataset_name}`.`{table}`"
        assert pipe.spark.sql(f"select count(*) from {name}.metadata_log_entries").first()[0] == 1   # one metadata commit
        assert pipe.spark.sql(f"select count(*) from {name}.snapshots").first()[0] == 1
        properties = dict(pipe.spark.sql(f"show tblproperties {name}").collect())
        assert "schema.name-mapping.default" in properties and properties["write.parquet.compression-codec"] == "snappy"
    (load,) = loads(pipe)
    assert {f.parent.name for f in data_files(pipe, "t")} == {f"load-{load}-1"}
    assert staged(pipe, "t", "id") == [(1,), (2,)]
    assert sorted(v for (v,) in staged(pipe, "t__tags", "value")) == ["a", "b"]
    assert dict((r[0], r[1]) for r in pipe.spark.sql(f"describe `{pipe.dataset_name}`.`t`").collect() if r[0] in ("id", "_dlt_id")) \
        == {"id": "bigint", "_dlt_id": "string"}


@pytest.mark.only_on("iceberg")  # Iceberg's registration and its table layout
def test_iceberg__a_new_table_located_off_this_machine__gets_its_rows_written_by_spark(pipe, monkeypatch):
    monkeypatch.setattr(spark_loader, "local_folder", lambda location: None)  # e.g. a dataset located on S3
    pipe.run([{"id": 1}, {"id": 2}], table_name="t")
    assert staged(pipe, "t", "id") == [(1,), (2,)]
    assert not any(f.parent.name.startswith("load-") for f in data_files(pipe, "t"))


@pytest.mark.only_on("iceberg")  # Iceberg's registration and its table layout
def test_iceberg__another_writer_creating_the_new_table_first__the_retry_lands_the_rows_once_into_it(pipe, monkeypatch):
    real = spark_loader._link
    created = []

    def link_then_another_writer_creates(parts, target):
        real(parts, target)
        if not created and target.parent.parent.name == "t":
            created.append(target)
            pipe.spark.sql(f"create table `{pipe.dataset_name}`.`t` (id bigint, note string) using iceberg")

    monkeypatch.setattr(spark_loader, "_link", link_then_another_writer_creates)
    pipe.run([{"id": 1}, {"id": 2}], table_name="t")
    assert created
    assert staged(pipe, "t", "id", "note") == [(1, None), (2, None)]
    (load,) = loads(pipe)
    assert {f.parent.name for f in data_files(pipe, "t")} == {f"load-{load}-2"}
    assert not created[0].exists() and unregistered_folders(pipe, "t") == []


@pytest.mark.only_on("iceberg")  # Iceberg's add_files registration and its table layout
def test_spark_rewrite__lands_the_same_rows_when_files_cannot_be_registered(pipe, monkeypatch):
    monkeypatch.setattr(spark_loader, "_local_warehouse", lambda spark: False)
    monkeypatch.setattr(spark_loader, "_local_data_dir", lambda spark, name: None)
    _two_loads(pipe)
    assert staged(pipe, "t", "id", "score") == [(1, None), (2, None), (3, 1.5)]
    assert sorted(v for (v,) in staged(pipe, "t__tags", "value")) == ["a", "b", "c"]
    assert not any(f.parent.name.startswith("load-") for f in data_files(pipe, "t"))


@pytest.mark.only_on("iceberg")  # Iceberg's add_files registration and its table layout
def test_a_table_whose_types_differ_from_the_files__is_rewritten_by_spark_not_registered(pipe, caplog):
    pipe.spark.sql(f"create database if not exists `{pipe.dataset_name}`")
    pipe.spark.sql(f"create table `{pipe.dataset_name}`.`t` (id string, note string) using iceberg")  # another writer's
    with caplog.at_level(logging.WARNING, logger="sparkload.load"):
        pipe.run([{"id": 7, "note": "x"}], table_name="t")
    assert "column id is int64 in part-00001.parquet, string in the table" in caplog.text
    assert staged(pipe, "t", "id", "note") == [("7", "x")]          # Spark's cast, not Iceberg reading int64 as text
    assert not any(f.parent.name.startswith("load-") for f in data_files(pipe, "t"))


def test_s3_warehouse__takes_the_rewrite_path(monkeypatch):
    class Conf(dict):
        def get(self, key, default=None):
            return super().get(key, default)

    class Spark:
        conf = Conf({"spark.sql.defaultCatalog": "lake", "spark.sql.catalog.lake.warehouse": "s3a://bucket/wh"})

    class Table:
        location = staticmethod(lambda: Spark.location)

    monkeypatch.setattr(spark_loader, "_iceberg_table", lambda spark, name: Table())
    Spark.location = "s3a://bucket/wh/raw/t"
    assert not spark_loader._local_warehouse(Spark())
    assert spark_loader._local_data_dir(Spark(), "`raw`.`t`") is None
    Spark.conf = Conf({"spark.sql.defaultCatalog": "lake", "spark.sql.catalog.lake.warehouse": "file:/tmp/wh"})
    Spark.location = "file:/tmp/wh/raw/t"
    assert spark_loader._local_warehouse(Spark())
    assert spark_loader._local_data_dir(Spark(), "`raw`.`t`") == Path("/tmp/wh/raw/t/data")


@pytest.mark.only_on("iceberg")  # Iceberg's add_files registration and its table layout
def test_killed_between_linking_and_committing__the_rerun_registers_each_file_once_and_drops_the_orphans(pipe, monkeypatch):
    pipe.run([{"id": 1}], table_name="t")
    real = spark_loader._link
    linked = []

    def link_then_die(parts, target):
        real(parts, target)
        linked.append(target)
        raise OSError("the process died here")

    monkeypatch.setattr(spark_loader, "_link", link_then_die)
    with pytest.raises(sl.PipelineStepFailed):
        pipe.run([{"id": 2}, {"id": 3}], table_name="t")
    monkeypatch.setattr(spark_loader, "_link", real)
    assert linked and linked[0].is_dir()                            # linked, never committed
    pipe.load()
    assert staged(pipe, "t", "id") == [(1,), (2,), (3,)]
    first, second = loads(pipe)
    assert sorted(f.parent.name for f in data_files(pipe, "t")) == [f"load-{first}-1", f"load-{second}-2"]
    assert not linked[0].exists() and unregistered_folders(pipe, "t") == []   # the unregistered folder is gone


@pytest.mark.parametrize("registered", [pytest.param(True, id="add_files", marks=pytest.mark.only_on("iceberg")),
                                        pytest.param(False, id="rewrite")])
def test_a_landing_interrupted_after_its_commit__lands_its_rows_once_when_retried(pipe, monkeypatch, registered):
    if not registered:
        monkeypatch.setattr(spark_loader, "_local_warehouse", lambda spark: False)
        monkeypatch.setattr(spark_loader, "_local_data_dir", lambda spark, name: None)
    pipe.run([{"id": 1}], table_name="t")
    real = LoadPackage.mark_landed
    failed = []

    def fail_once(package, table):
        if table == "t" and not failed:
            failed.append(table)
            raise OSError("the process died here")
        real(package, table)

    monkeypatch.setattr(LoadPackage, "mark_landed", fail_once)
    with pytest.raises(sl.PipelineStepFailed):
        pipe.run([{"id": 2}, {"id": 3}], table_name="t")   # rows committed, marker never written
    pipe.load()                                             # the retry deletes the attempt's rows first
    assert staged(pipe, "t", "id") == [(1,), (2,), (3,)]
    first, second = loads(pipe)
    if registered:
        # the first attempt's files stay for the older snapshot that references them; the current one has the retry's
        assert sorted(f.parent.name for f in data_files(pipe, "t")) == [f"load-{first}-1", f"load-{second}-2"]
        assert all(f.is_file() for f in data_files(pipe, "t", "all_data_files"))


def test_a_load_lands_its_tables_and_state_at_once__and_completes_only_after_both(pipe, monkeypatch):
    """The table's landing waits for the state row to start being written: landed one after the other
    (as before), the wait times out and the load fails."""
    state_started = threading.Event()
    real_land, real_state = spark_loader.land_table, spark_loader.write_state

    def land(spark, package, table):
        assert state_started.wait(120), "the state row was not written beside the table"
        real_land(spark, package, table)

    def write_state(*args, **kwargs):
        state_started.set()
        real_state(*args, **kwargs)

    monkeypatch.setattr(spark_loader, "land_table", land)
    monkeypatch.setattr(spark_loader, "write_state", write_state)
    pipe.run([{"id": 1, "tags": ["a"]}], table_name="t")
    assert staged(pipe, "t", "id") == [(1,)] and len(loads(pipe)) == 1


def test_a_failed_step__fails_the_load_naming_it_after_the_others_committed_and_the_rerun_completes(pipe, monkeypatch):
    real_state = spark_loader.write_state

    def broken(*args, **kwargs):
        raise OSError("no space left on device")

    monkeypatch.setattr(spark_loader, "write_state", broken)
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run([{"id": 1, "tags": ["a", "b"]}], table_name="t")
    assert failed.value.table == "_dlt_pipeline_state" and "no space left on device" in str(failed.value)
    assert staged(pipe, "t", "id") == [(1,)] and staged(pipe, "t__tags", "value") == [("a",), ("b",)]
    assert loads(pipe) == []  # landed, not complete: invisible to dbt
    monkeypatch.setattr(spark_loader, "write_state", real_state)
    pipe.load()
    assert staged(pipe, "t", "id") == [(1,)] and staged(pipe, "t__tags", "value") == [("a",), ("b",)]
    assert len(loads(pipe)) == 1


# a staging table made or changed outside the pipeline: the load fails before anything lands, naming the
# table, the column and the load (each format: Delta and Iceberg refuse differently on their own)
FOREIGN = {
    "a column the rows do not store in without loss": (
        "(id int, tags string)", "",
        "column id is int in the lakehouse's table {ds}.t and bigint in the load's rows, which do not store in it without loss"),
    "a required column the rows lack": (
        "(id bigint, owner string not null)", "",
        "the lakehouse's table {ds}.t requires column owner (NOT NULL), which the load's rows lack"),
    "a partition column the rows lack": (
        "(id bigint, region string)", "partitioned by (region)",
        "the lakehouse's table {ds}.t is partitioned by column region, which the load's rows lack (every row would land with it NULL)"),
}


# Delta keeps a column's declared char or varchar type (checked on write); Iceberg stores a string
FOREIGN_DELTA = {
    "a varchar column": (
        "(id bigint, _dlt_id varchar(2))", "",
        "column _dlt_id is varchar(2) in the lakehouse's table {ds}.t and string in the load's rows, which do not store in it without loss"),
}
FOREIGN.update(FOREIGN_DELTA)


@pytest.mark.parametrize("case", [pytest.param(case, marks=[pytest.mark.only_on("delta")] if case in FOREIGN_DELTA else [])
                                  for case in FOREIGN])
def test_a_foreign_table__fails_the_load_naming_table_column_and_load_and_lands_nothing(pipe, case):
    columns, partitioning, reason = FOREIGN[case]
    ds, fmt = pipe.dataset_name, spark_loader.session_format(pipe.spark)
    pipe.spark.sql(f"create database if not exists `{ds}`")
    pipe.spark.sql(f"create table `{ds}`.`t` {columns} using {fmt} {partitioning}")
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run([{"id": 1, "tags": ["a"]}], table_name="t")
    message = str(failed.value)
    assert "\n" not in message and re.match(r"load step failed load [\d.]+ table t: ", message), message
    assert reason.format(ds=ds) + "; the table was made or changed outside this pipeline" in message, message
    assert message.endswith("Nothing of the load was landed")
    assert pipe.spark.table(f"`{ds}`.`t`").count() == 0
    assert not pipe.spark.catalog.tableExists(f"{ds}.t__tags")        # the load's other table: not created
    assert pipe.spark.sql(f"select * from `{ds}`.`_dlt_loads`").count() == 0


def test_a_foreign_table_with_types_the_rows_store_in__takes_them(pipe):
    ds, fmt = pipe.dataset_name, spark_loader.session_format(pipe.spark)
    pipe.spark.sql(f"create database if not exists `{ds}`")
    pipe.spark.sql(f"create table `{ds}`.`t` (id decimal(20, 0), note string, region string) using {fmt} partitioned by (note)")
    pipe.run([{"id": 7, "note": 8}], table_name="t")    # bigint into decimal(20, 0), bigint into string
    assert staged(pipe, "t", "id", "note", "region") == [(7, "8", None)]
