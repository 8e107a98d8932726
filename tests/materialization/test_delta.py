"""Delta Lake's own behaviour under sparkload (`make test` runs this file in its Delta run): a load is one
commit of a staging table, so time travel finds the table as a load left it; deletion vectors on and off
give the same rows; Change Data Feed on a final table, opted into by the model's `tblproperties`; column
names Delta refuses without column mapping never reach it."""
from __future__ import annotations

import json

import pytest

from .conftest import rows_of, table

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


def test_delta_column_names__names_delta_refuses_are_normalised_before_they_reach_it(spark, stage, names):
    stage.load([{"id": 1, "First Name": "Ann", "a;b (c)": 2, "tab\tx=y": "z"}], table="odd_names")
    columns = [f.name for f in spark.table(f"{names.staging}.odd_names").schema.fields]
    assert {"first_name", "a_b_cx", "tab_x_y"} <= set(columns), columns  # dlt's snake_case: a trailing _ becomes x
    properties = {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {names.staging}.odd_names").collect()}
    assert properties.get("delta.columnMapping.mode", "none") == "none"
