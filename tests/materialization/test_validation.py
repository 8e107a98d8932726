"""Bad configuration stops a run before anything is written, with a message that names the model,
the table, and the column or loads concerned."""
from __future__ import annotations

import pytest

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)

CASES = [
    ({"write_disposition": "merge", "strategy": "upsert-all"},
     "strategy=upsert-all is not valid for write_disposition=merge; expected one of delete-insert, upsert, scd2"),
    ({"write_disposition": "merge", "strategy": "upsert"}, "strategy=upsert needs primary_key"),
    ({"write_disposition": "merge", "primary_key": "id", "dedup_sort": {"name": "newest"}},
     "dedup_sort column `name` has direction newest; expected asc or desc"),
    ({"write_disposition": "merge", "strategy": "scd2", "active_record_timestamp": "i_am_not_a_timestamp"},
     "active_record_timestamp=i_am_not_a_timestamp is not a date-time: not of the form YYYY-MM-DD"),
    ({"write_disposition": "merge", "strategy": "scd2", "boundary_timestamp": "2024-13-45 25:00"},
     "boundary_timestamp=2024-13-45 25:00 is not a date-time: month 13 is not 01-12"),
    ({"write_disposition": "merge", "strategy": "scd2", "boundary_timestamp": "2024-02-30"},
     "boundary_timestamp=2024-02-30 is not a date-time: day 30 is not 01-29"),
    ({"write_disposition": "merge", "strategy": "scd2", "boundary_timestamp": "2024-02-03T24:00:00Z"},
     "boundary_timestamp=2024-02-03T24:00:00Z is not a date-time: hour 24 is out of range"),
    ({"write_disposition": "merge", "primary_key": "id", "load_status_in": "zero", "load_status_out": 1},
     "load_status_in=zero is not a load status; expected an integer 0 or more"),
    ({"write_disposition": "merge", "primary_key": "id", "load_status_out": -1}, "load_status_out=-1 is not a load status"),
    ({"write_disposition": "merge", "primary_key": "id", "primary_keys": "id"},
     "config key `primary_keys` is unknown; a sparkload model takes write_disposition, strategy, primary_key"),
    ({"write_disposition": "append", "location_root": "/tmp/x"}, "config key `location_root` is unknown"),
    ({"write_disposition": "merge", "strategy": "upsert", "primary_key": "id", "deduplicated": True},
     "deduplicated=True applies only to strategy=delete-insert"),
    ({"write_disposition": "append", "strategy": "scd2"}, "strategy=scd2 applies only to write_disposition=merge"),
    ({"write_disposition": "merge", "validity_column_names": ["a", "b"]}, "validity_column_names applies only to strategy=scd2"),
    ({"write_disposition": "merge", "file_format": "parquet"}, "file_format=parquet has no row-level MERGE"),
    ({"write_disposition": "merge", "primary_key": "id", "load_status_out": 0}, "load_status_out=0 equals load_status_in"),
    ({"write_disposition": "merge", "primary_key": "id", "change_data_feed": "yes"},
     "change_data_feed=yes is not valid; expected true or false."),
    ({"write_disposition": "merge", "primary_key": "id", "file_format": "iceberg", "change_data_feed": True},
     "change_data_feed is Delta's Change Data Feed; the table is iceberg (Iceberg's readers get changes from its "
     "create_changelog_view procedure); remove the key or set file_format='delta'."),
]


@pytest.mark.extended("thrift")  # the macros refuse before any statement, over thrift as embedded
@pytest.mark.over_the_wire
def test_validation__bad_configs_fail_with_a_message_naming_model_and_table(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}])
    assert len(CASES) <= 24, "integration_tests/models/materialization/other/probes/ has 24 probe models"
    # one dbt run: probe model N gets CASES[N]'s config
    result = dbt.run("tag:config_probe", vars={"probe_configs": [c for c, _ in CASES]}, expect_success=False)
    outcome = {r.node.name: (str(r.status), " ".join((r.message or "").split())) for r in result.result.results}
    for n, (probe_config, expected) in enumerate(CASES):
        model = f"config_probe_{n:02d}"
        status, message = outcome[model]
        assert status == "error", (probe_config, status)
        assert expected in message, (probe_config, message[-2000:])
        assert f"sparkload model {model} (table {names.target}.{model})" in message
        assert not spark.catalog.tableExists(f"{names.target}.{model}")


def test_validation__a_key_column_missing_from_the_loads_names_column_and_loads_and_the_fix_in_the_model(spark, stage,
                                                                                                         dbt, names):
    """Issue 40 item 3: a typo in primary_key is a config mistake; the message says what to fix in the model and
    never advises aborting the loads (which every other model reading them would then skip)."""
    first = stage.load([{"id": 1, "name": "a"}])
    dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "id"}})
    second = stage.load([{"id": 2, "name": "b"}])
    result = dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "customer_id"}},
                     expect_success=False)
    message = " ".join("\n".join(dbt.logs).split())
    assert not result.success
    assert f"primary_key column `customer_id` is not among the model's columns (id, name, _dlt_id, _dlt_load_id) (loads {second})" in message
    assert first not in message.split("(loads")[-1].split(")")[0]
    assert ("Fix primary_key in the model's config to name one of them, or select `customer_id` in the model; the loads "
            "stay pending and apply once it is fixed. The table is unchanged.") in message
    assert "--abort" not in message
    assert table(spark, f"{names.target}.config_probe", "id, name") == rows_of((1, "a"))
    # fixed in the model: the pending load applies
    dbt.run("config_probe", vars={"probe_config": {"write_disposition": "merge", "primary_key": "id"}})
    assert table(spark, f"{names.target}.config_probe", "id, name") == rows_of((1, "a"), (2, "b"))


@pytest.mark.extended  # a warning path beside the refusals above, which `--suite ci` keeps
def test_validation__keys_dlt_ignores_are_accepted_with_a_warning(spark, stage, dbt, names):
    """dlt configs port unchanged: upsert ignores merge_key, scd2 ignores primary_key."""
    stage.load([{"id": 1, "name": "a"}, {"id": 2, "name": "a"}])
    probe = {"write_disposition": "merge", "strategy": "upsert", "primary_key": "id", "merge_key": "name"}
    dbt.run("config_probe", vars={"probe_config": probe})
    stage.load([{"id": 1, "name": "a", "extra": 1}])
    dbt.run("config_probe", vars={"probe_config": probe})
    warning = f"sparkload model config_probe (table {names.target}.config_probe): merge_key=name is ignored by strategy=upsert"
    assert any(warning in line for line in dbt.logs)
    # merge_key ignored: id 2, which shares name `a` with the updated id 1, stays
    assert table(spark, f"{names.target}.config_probe", "id, name, extra") == rows_of((1, "a", 1), (2, "a", None))

    dbt.logs.clear()
    scd2 = {"write_disposition": "merge", "strategy": "scd2", "primary_key": "id"}
    dbt.invoke("run", "--select", "config_probe", "--full-refresh", vars={"probe_config": scd2})
    assert any("primary_key=id is ignored by strategy=scd2" in line for line in dbt.logs)
    # a full extract: load 2 holds only id 1, in a new version; id 2 is retired
    assert table(spark, f"{names.target}.config_probe", "id, name, extra, _dlt_valid_to is null") == rows_of(
        (1, "a", None, False), (2, "a", None, False), (1, "a", 1, True))
