"""Delta Lake's own behaviour under sparkload (`make test` runs this file in its Delta run): a load is one
commit of a staging table, so time travel finds the table as a load left it; deletion vectors on and off
give the same rows; Change Data Feed on a final table, opted into by the model's `tblproperties`; column
names Delta refuses without column mapping never reach it; a staging table whose protocol this Delta Lake
cannot read, or whose log has a corrupt commit, fails the next load in one line and takes nothing."""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import python_extract as sl

from ..support.tables import rows_of, table

pytestmark = [pytest.mark.only_on("delta"), pytest.mark.dbt_targets("embedded")]


def _history(spark, relation: str):
    """(version, operation, metrics) of each commit of `relation`, oldest first."""
    return [(r["version"], r["operation"], r["operationMetrics"])
            for r in spark.sql(f"describe history {relation}").orderBy("version").collect()]


def test_delta_staging__each_load_is_one_commit_and_time_travel_finds_the_table_a_load_left(spark, stage, names):
    first = stage.load([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    second = stage.load([{"id": 3, "name": "c"}])
    items = f"{names.staging}.items"
    writes = [(version, operation) for version, operation, _ in _history(spark, items)]
    # the first load creates the table with its rows (one commit), the second appends (one commit)
    assert [operation for _, operation in writes] == ["CREATE TABLE AS SELECT", "WRITE"], writes
    after_first = writes[0][0]
    assert table(spark, f"{items} version as of {after_first}", "id, name, _dlt_load_id") == rows_of(
        (1, "a", first), (2, "b", first))
    assert table(spark, items, "_dlt_load_id") == rows_of((first,), (first,), (second,))


# `--suite ci` leaves both out: every Delta MERGE of the run writes with vectors on (the default), and the rows are
# compared by the strategy tests; these check that vectors are (or are not) written
@pytest.mark.extended
@pytest.mark.parametrize("vectors", ["true", "false"])
def test_delta_deletion_vectors__on_or_off_the_same_rows_and_only_on_writes_vectors(spark, stage, dbt, names, vectors):
    probe = {"write_disposition": "merge", "strategy": "upsert", "primary_key": "id",
             "tblproperties": {"delta.enableDeletionVectors": vectors}}
    stage.load([{"id": i, "name": f"n{i}"} for i in range(1, 21)])
    dbt.run("config_probe", vars={"probe_config": probe})
    stage.load([{"id": 2, "name": "changed"}, {"id": 21, "name": "new"}])
    dbt.run("config_probe", vars={"probe_config": probe})
    target = f"{names.target}.config_probe"
    assert table(spark, target, "id, name") == rows_of(*[(i, f"n{i}") for i in range(1, 21) if i != 2],
                                                         (2, "changed"), (21, "new"))
    merges = [metrics for _, operation, metrics in _history(spark, target) if operation == "MERGE"]
    assert len(merges) == 1, _history(spark, target)
    added = int(merges[0].get("numTargetDeletionVectorsAdded", "0"))
    assert (added > 0) == (vectors == "true"), merges[0]


@pytest.mark.extended  # the same table property the model config's test below sets, and reads back the same way
def test_delta_change_data_feed__opted_in_by_tblproperties_shows_each_loads_changes(spark, stage, dbt, names):
    probe = {"write_disposition": "merge", "strategy": "upsert", "primary_key": "id",
             "tblproperties": {"delta.enableChangeDataFeed": "true"}}
    stage.load([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    dbt.run("config_probe", vars={"probe_config": probe})
    stage.load([{"id": 2, "name": "B"}, {"id": 3, "name": "c"}])
    dbt.run("config_probe", vars={"probe_config": probe})
    target = f"{names.target}.config_probe"
    merge = max(version for version, operation, _ in _history(spark, target) if operation == "MERGE")
    changes = spark.sql(f"select id, name, _change_type from table_changes({json.dumps(target)}, {merge}, {merge})")
    assert sorted(tuple(r) for r in changes.collect()) == [
        (2, "B", "update_postimage"), (2, "b", "update_preimage"), (3, "c", "insert")]


def test_delta_change_data_feed__the_model_config_turns_it_on_for_an_existing_table_from_that_run_on(spark, stage, dbt, names):
    probe = {"write_disposition": "merge", "strategy": "upsert", "primary_key": "id"}
    target = f"{names.target}.config_probe"
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("config_probe", vars={"probe_config": probe})
    stage.load([{"id": 1, "name": "A"}, {"id": 2, "name": "b"}])
    dbt.run("config_probe", vars={"probe_config": {**probe, "change_data_feed": True}})
    properties = {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {target}").collect()}
    assert properties["delta.enableChangeDataFeed"] == "true"
    merge = max(version for version, operation, _ in _history(spark, target) if operation == "MERGE")
    changes = spark.sql(f"select id, name, _change_type from table_changes({json.dumps(target)}, {merge}, {merge})")
    assert sorted(tuple(r) for r in changes.collect()) == [
        (1, "A", "update_postimage"), (1, "a", "update_preimage"), (2, "b", "insert")]
    # a run with nothing to change alters nothing; a contradicting tblproperties is refused before anything
    altered = len(_history(spark, target))
    dbt.run("config_probe", vars={"probe_config": {**probe, "change_data_feed": True}})
    assert len(_history(spark, target)) == altered
    result = dbt.run("config_probe", vars={"probe_config": {**probe, "change_data_feed": False,
                                                           "tblproperties": {"delta.enableChangeDataFeed": "true"}}},
                     expect_success=False)
    assert not result.success
    assert any("change_data_feed=false contradicts tblproperties delta.enableChangeDataFeed=true; set one of them." in line
               for line in dbt.logs), dbt.logs[-5:]
    assert len(_history(spark, target)) == altered


def test_delta_column_names__names_delta_refuses_are_normalized_before_they_reach_it(spark, stage, names):
    stage.load([{"id": 1, "First Name": "Ann", "a;b (c)": 2, "tab\tx=y": "z"}], table="odd_names")
    columns = [f.name for f in spark.table(f"{names.staging}.odd_names").schema.fields]
    assert {"first_name", "a_b_cx", "tab_x_y"} <= set(columns), columns  # dlt's snake_case: a trailing _ becomes x
    properties = {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {names.staging}.odd_names").collect()}
    assert properties.get("delta.columnMapping.mode", "none") == "none"


def _log_dir(spark, relation: str) -> Path:
    return Path(unquote(urlparse(spark.sql(f"describe detail {relation}").first()["location"]).path)) / "_delta_log"


def _refused(spark, stage, names, expected: str) -> None:
    """The next load fails with `expected` in its one line and lands nothing."""
    loads = spark.sql(f"select count(*) from {names.staging}._dlt_loads").first()[0]
    with pytest.raises(sl.PipelineStepFailed) as failed:
        stage.load([{"id": 9, "name": "z"}])
    message = str(failed.value)
    assert "\n" not in message and re.match(r"load step failed load [\d.]+ table items: the lakehouse's table ", message), message
    assert expected in message and message.endswith("nothing of the load was landed"), message
    assert spark.sql(f"select count(*) from {names.staging}._dlt_loads").first()[0] == loads


def test_delta_protocol_the_jars_cannot_read__fails_the_load_in_one_line_and_lands_nothing(spark, stage, names):
    stage.load([{"id": 1, "name": "a"}])
    log_dir = _log_dir(spark, f"{names.staging}.items")
    commits = sorted(log_dir.glob("*.json"))
    # a commit by a newer Delta Lake: a reader feature this one does not know
    (log_dir / f"{len(commits):020d}.json").write_text(
        json.dumps({"commitInfo": {"timestamp": 1, "operation": "SET TBLPROPERTIES"}}) + "\n" + json.dumps(
            {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["futureFeature"],
                          "writerFeatures": ["futureFeature"]}}) + "\n")
    _refused(spark, stage, names, f'cannot be read: DeltaUnsupportedTableFeatureException: [DELTA_UNSUPPORTED_FEATURES_FOR_READ] '
             f'Unsupported Delta read feature: table "{names.staging}.items" requires reader table feature(s) that are '
             'unsupported by Delta Lake "3.3.3": futureFeature.')
    assert len(list(log_dir.glob("*.json"))) == len(commits) + 1


def test_delta_corrupt_commit__fails_the_load_in_one_line_naming_the_file_and_lands_nothing(spark, stage, names):
    stage.load([{"id": 1, "name": "a"}])
    stage.load([{"id": 2, "name": "b"}])
    log_dir = _log_dir(spark, f"{names.staging}.items")
    commits = sorted(log_dir.glob("*.json"))
    commits[-1].write_text(commits[-1].read_text()[:50])  # a commit cut short: half a line
    spark.catalog.clearCache()
    _refused(spark, stage, names, f"{commits[-1].name}")
    assert sorted(log_dir.glob("*.json")) == commits


def _schema_folder(spark, schema: str) -> Path:
    spark.sql(f"create schema if not exists {schema}")
    rows = {r[0]: r[1] for r in spark.sql(f"describe schema extended {schema}").collect()}
    return Path(unquote(urlparse(rows["Location"]).path))


def test_delta_killed_creation__its_folder_without_a_version_does_not_block_the_table_ever_after(spark, stage, dbt, names):
    # what a process killed inside CREATE TABLE leaves: a folder with no committed Delta version (an
    # empty log, or a CTAS's data files); Delta then refuses every later creation of that name
    staging = _schema_folder(spark, names.staging) / "items"
    (staging / "_delta_log").mkdir(parents=True)
    ledger = _schema_folder(spark, names.target) / "_sparkload_applied_loads"
    (ledger / "_delta_log").mkdir(parents=True)
    (ledger / "part-00000-killed.snappy.parquet").write_bytes(b"PAR1")
    for path in (ledger / "part-00000-killed.snappy.parquet", ledger / "_delta_log", ledger):  # killed 2 minutes ago
        os.utime(path, (time.time() - 120, time.time() - 120))
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "strategy": "upsert", "primary_key": "id"}})
    assert table(spark, f"{names.target}.config_probe", "id, name") == rows_of((1, "a"))
    assert table(spark, f"{names.target}._sparkload_applied_loads", "load_id") == rows_of((stage.load_ids[0],))
