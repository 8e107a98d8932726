"""The target table itself: append and replace, default table properties, schema evolution."""
from __future__ import annotations

import pytest

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = [pytest.mark.dbt_targets(*TARGETS), pytest.mark.each_format]


@pytest.mark.over_the_wire
def test_append_and_replace__insert_every_load_once_or_keep_the_newest(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}, {"id": 1, "name": "a"}])
    dbt.run("append_items replace_items")
    stage.load([{"id": 2, "name": "b"}])
    stage.load([{"id": 3, "name": "c"}])
    dbt.run("append_items replace_items")
    assert table(spark, f"{names.target}.append_items", "id, name") == rows_of((1, "a"), (1, "a"), (2, "b"), (3, "c"))
    assert table(spark, f"{names.target}.replace_items", "id, name") == rows_of((3, "c"))


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
