"""The target table itself: append and replace, default table properties, schema evolution."""
from __future__ import annotations

import pytest

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = [pytest.mark.dbt_targets(*TARGETS), pytest.mark.each_format]


# on Delta, a replace is the `create or replace table ... using delta` every strategy's first run sends (test_upsert,
# test_delete_insert) and an append an insert; both run here on Iceberg
@pytest.mark.extended("thrift", "delta")
@pytest.mark.over_the_wire
def test_append_and_replace__insert_every_load_once_or_keep_the_newest(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}, {"id": 1, "name": "a"}])
    dbt.run("append_items replace_items")
    stage.load([{"id": 2, "name": "b"}])
    stage.load([{"id": 3, "name": "c"}])
    dbt.run("append_items replace_items")
    assert table(spark, f"{names.target}.append_items", "id, name") == rows_of((1, "a"), (1, "a"), (2, "b"), (3, "c"))
    assert table(spark, f"{names.target}.replace_items", "id, name") == rows_of((3, "c"))


# on Delta its default (deletion vectors on) is what every Delta MERGE of the run writes with; over thrift the same
# create statements as embedded
@pytest.mark.extended("delta", "thrift")
@pytest.mark.over_the_wire
def test_table_properties__merge_on_read_by_default_and_overridable(spark, stage, dbt, names):
    from python_extract.lakehouse import session_format

    stage.load([{"id": 1, "name": "a"}])
    dbt.run("di_pk")
    override = {"write.merge.mode": "copy-on-write"} if session_format(spark) == "iceberg" else {"delta.enableDeletionVectors": "false"}
    dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "id", "tblproperties": override}})
    props = {m: {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {names.target}.{m}").collect()}
             for m in ("di_pk", "config_probe")}
    if session_format(spark) == "iceberg":
        assert {k: props["di_pk"][k] for k in ("write.merge.mode", "write.update.mode", "write.delete.mode")} == {
            "write.merge.mode": "merge-on-read", "write.update.mode": "merge-on-read", "write.delete.mode": "merge-on-read"}
        assert props["di_pk"]["format-version"] == "2"
        assert props["config_probe"]["write.merge.mode"] == "copy-on-write"
        assert props["config_probe"]["write.delete.mode"] == "merge-on-read"
    else:
        assert props["di_pk"]["delta.enableDeletionVectors"] == "true"
        assert props["config_probe"]["delta.enableDeletionVectors"] == "false"


# the Delta run of `--suite ci` leaves it out for CI's time (161 s there, 2026-11-29); make test-all runs it on Delta
@pytest.mark.extended("thrift", "delta")
@pytest.mark.over_the_wire
def test_schema_evolution__new_columns_appear_and_a_type_change_fails_naming_column_and_load(spark, stage, dbt, names):
    target = f"{names.target}.evolving_items"
    stage.load([{"id": 1, "name": "a"}])
    dbt.run("evolving_items")
    # load 2: a new column
    stage.load([{"id": 2, "name": "b", "score": 7}])
    dbt.run("evolving_items")
    assert table(spark, target, "id, name, score") == rows_of((1, "a", None), (2, "b", 7))
    # load 3: the model now makes `name` a number: refused, nothing written
    third = stage.load([{"id": 3, "name": "ccc"}])
    result = dbt.run("evolving_items", vars={"name_as_length": True}, expect_success=False)
    assert not result.success
    message = "\n".join(dbt.logs)
    assert f"column `name` of table {target} is string, but loads {third} bring int" in message
    assert table(spark, target, "id, name, score") == rows_of((1, "a", None), (2, "b", 7))


def _layout(spark, relation: str):
    """What the table is laid out by: Delta's clustering columns (DESCRIBE DETAIL), Iceberg's sort order (the
    `sort-order` table property)."""
    from python_extract.lakehouse import session_format

    if session_format(spark) == "iceberg":
        return {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {relation}").collect()}.get("sort-order")
    return list(spark.sql(f"describe detail {relation}").first()["clusteringColumns"])


def _metadata_versions(spark, relation: str) -> int:
    """How many times the table's metadata changed: Delta's commits, Iceberg's metadata files."""
    from python_extract.lakehouse import session_format

    if session_format(spark) == "iceberg":
        return spark.sql(f"select count(*) from {relation}.metadata_log_entries").first()[0]
    return spark.sql(f"describe history {relation}").count()


@pytest.mark.dbt_targets("embedded")
def test_cluster_by__clusters_a_delta_table_sorts_an_iceberg_one_and_a_changed_config_alters_it_once(spark, stage, dbt, names):
    from python_extract.lakehouse import session_format

    iceberg = session_format(spark) == "iceberg"
    target = f"{names.target}.config_probe"
    replace = {"write_disposition": "replace"}
    # load 1: a replace creates the table clustered (Delta, in its CREATE) or sorted (Iceberg, once it exists)
    stage.load([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    dbt.run("config_probe", vars={"probe_config": {**replace, "cluster_by": ["name", "id"]}})
    assert _layout(spark, target) == ("name ASC NULLS FIRST, id ASC NULLS FIRST" if iceberg else ["name", "id"])
    # load 2: the config now names one column: the existing table is altered, and the replace that rebuilds
    # it (Iceberg's CREATE OR REPLACE drops a sort order) keeps that layout
    stage.load([{"id": 3, "name": "c"}])
    dbt.run("config_probe", vars={"probe_config": {**replace, "cluster_by": "id"}})
    assert _layout(spark, target) == ("id ASC NULLS FIRST" if iceberg else ["id"])
    assert table(spark, target, "id, name") == rows_of((3, "c"))
    # load 3, an upsert into the table: rows merged, the layout unchanged and not altered again
    upsert = {"write_disposition": "merge", "strategy": "upsert", "primary_key": "id", "cluster_by": "id"}
    stage.load([{"id": 3, "name": "C"}, {"id": 4, "name": "d"}])
    dbt.run("config_probe", vars={"probe_config": upsert})
    versions = _metadata_versions(spark, target)
    dbt.run("config_probe", vars={"probe_config": upsert})  # nothing to apply: nothing altered
    assert _metadata_versions(spark, target) == versions
    assert _layout(spark, target) == ("id ASC NULLS FIRST" if iceberg else ["id"])
    assert table(spark, target, "id, name") == rows_of((3, "C"), (4, "d"))
    # load 4: a column the model does not have is refused in one line naming model and column; nothing changes
    fourth = stage.load([{"id": 5, "name": "e"}])
    result = dbt.run("config_probe", vars={"probe_config": {**upsert, "cluster_by": ["id", "region"]}}, expect_success=False)
    assert not result.success
    assert any(f"sparkload model config_probe (table {target}): cluster_by column `region` is not among the model's columns" in line
               and f"(loads {fourth})" in line for line in dbt.logs), dbt.logs[-5:]
    assert _metadata_versions(spark, target) == versions
    assert table(spark, target, "id, name") == rows_of((3, "C"), (4, "d"))
