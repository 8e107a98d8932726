"""Bad configuration stops a run before anything is written, with a message that names the model,
the table, and the column or loads concerned."""
from __future__ import annotations

import pytest

from .conftest import TARGETS, rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)

CASES = [
    ({"write_disposition": "merge", "strategy": "upsert-all"},
     "strategy=upsert-all is not valid for write_disposition=merge; expected one of delete-insert, upsert, scd2"),
    ({"write_disposition": "merge", "strategy": "upsert"}, "strategy=upsert needs primary_key"),
    ({"write_disposition": "merge", "strategy": "upsert", "primary_key": "id", "merge_key": "name"}, "takes no merge_key"),
    ({"write_disposition": "merge", "strategy": "scd2", "primary_key": "id"}, "set merge_key to the natural key"),
    ({"write_disposition": "merge", "primary_key": "id", "dedup_sort": {"name": "newest"}},
     "dedup_sort column `name` has direction newest; expected asc or desc"),
    ({"write_disposition": "merge", "strategy": "scd2", "active_record_timestamp": "i_am_not_a_timestamp"},
     "active_record_timestamp=i_am_not_a_timestamp is not a date or timestamp"),
    ({"write_disposition": "append", "strategy": "scd2"}, "strategy=scd2 applies only to write_disposition=merge"),
    ({"write_disposition": "merge", "validity_column_names": ["a", "b"]}, "validity_column_names applies only to strategy=scd2"),
    ({"write_disposition": "merge", "file_format": "parquet"}, "file_format=parquet has no row-level MERGE"),
    ({"write_disposition": "merge", "primary_key": "id", "load_status_out": 0}, "load_status_out=0 equals load_status_in"),
]


def test_validation__bad_configs_fail_with_a_message_naming_model_and_table(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    for probe_config, expected in CASES:
        dbt.logs.clear()
        result = dbt.run("config_probe", vars={"probe_config": probe_config}, expect_success=False)
        message = " ".join("\n".join(dbt.logs).split())
        assert not result.success, probe_config
        assert expected in message, (probe_config, message[-2000:])
        assert f"sparkload model config_probe (table {names.target}.config_probe)" in message
    assert not spark.catalog.tableExists(f"{names.target}.config_probe")


def test_validation__a_key_column_missing_from_the_loads_names_column_and_loads(spark, stage, dbt, names):
    first = stage.load([{"id": 1, "name": "a"}])
    dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "id"}})
    second = stage.load([{"id": 2, "name": "b"}])
    result = dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "customer_id"}},
                     expect_success=False)
    message = " ".join("\n".join(dbt.logs).split())
    assert not result.success
    assert f"primary_key column `customer_id` is not among the model's columns (id, name, _dlt_id, _dlt_load_id) (loads {second})" in message
    assert first not in message.split("(loads")[-1].split(")")[0]
    assert table(spark, f"{names.target}.config_probe", "id, name") == rows_of((1, "a"))
