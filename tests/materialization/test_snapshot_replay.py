"""boundary_column (scd2, beyond dlt): dated full snapshots replayed into history, each load's boundary
the snapshot's date in its rows, the loads of a run in date order (docs/beyond-dlt.md#snapshot-replay).
Loads land through the real extractor; `dbt run` on the embedded Iceberg lakehouse is the judge."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ..support.dbt import TARGETS
from ..support.tables import rows_of, table

pytestmark = pytest.mark.dbt_targets(*TARGETS)
REPO = Path(__file__).resolve().parents[2]
SECTION = "Snapshot replay"  # docs/beyond-dlt.md
D1, D2, D3 = dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(2024, 1, 3)
HISTORY = "customer_key, c1, cast(snapshot_date as string), cast(_dlt_valid_from as string), cast(_dlt_valid_to as string)"


def snapshot(day, **records):
    """One dated full snapshot of dim_customer: {customer_key: c1}."""
    return [{"customer_key": int(k[1:]), "c1": c1, "snapshot_date": day} for k, c1 in records.items()]


DAYS = {D1: snapshot(D1, k1="foo", k2="bar"),
        D2: snapshot(D2, k1="foo_upd"),           # customer 2 absent: retired
        D3: snapshot(D3, k1="foo_upd", k2="bar")}  # customer 2 back: a new version
EXPECTED = rows_of(
    (1, "foo", "2024-01-01", "2024-01-01 00:00:00", "2024-01-02 00:00:00"),
    (1, "foo_upd", "2024-01-02", "2024-01-02 00:00:00", None),
    (2, "bar", "2024-01-01", "2024-01-01 00:00:00", "2024-01-02 00:00:00"),
    (2, "bar", "2024-01-03", "2024-01-03 00:00:00", None))


@pytest.mark.extended("thrift")
@pytest.mark.over_the_wire
def test_snapshot_replay__one_snapshot_per_run_and_all_in_one_run_give_the_same_history(spark, stage, dbt, names):
    # day by day: each snapshot applied by its own run
    for day in (D1, D2, D3):
        stage.load(DAYS[day], table="dim_customer")
        dbt.run("snap_dim")
    assert table(spark, f"{names.target}.snap_dim", HISTORY) == EXPECTED
    # the same three loads pending at once, applied by one run
    dbt.run("snap_dim_once")
    assert table(spark, f"{names.target}.snap_dim_once", HISTORY) == EXPECTED
    # the versions keep the load that brought them
    loads = dict(spark.sql(f"select cast(_dlt_valid_from as date), _dlt_load_id from {names.target}.snap_dim").collect())
    assert loads == {D1: stage.load_ids[0], D2: stage.load_ids[1], D3: stage.load_ids[2]}


@pytest.mark.extended
def test_snapshot_replay__loads_apply_in_date_order_rerun_and_full_refresh_change_nothing(spark, stage, dbt, names):
    # landed out of order (a backfill): day 3, then day 1, then day 2
    for day in (D3, D1, D2):
        stage.load(DAYS[day], table="dim_customer")
    dbt.run("snap_dim")
    assert table(spark, f"{names.target}.snap_dim", HISTORY) == EXPECTED
    before = table(spark, f"{names.target}.snap_dim", "*")
    # a rerun has no loads to apply; a full refresh replays them all from staging, to the same table
    dbt.run("snap_dim")
    assert table(spark, f"{names.target}.snap_dim", "*") == before
    dbt.invoke("run", "--select", "snap_dim", "--full-refresh")
    assert table(spark, f"{names.target}.snap_dim", "*") == before


@pytest.mark.extended
def test_snapshot_replay__a_snapshot_older_than_an_applied_one_is_refused_until_a_full_refresh(spark, stage, dbt, names):
    stage.load(DAYS[D1], table="dim_customer")
    stage.load(DAYS[D3], table="dim_customer")
    dbt.run("snap_dim")
    before = table(spark, f"{names.target}.snap_dim", "*")
    # day 2 arrives after day 3 was applied: refused before any change
    late = stage.load(DAYS[D2], table="dim_customer")
    result = dbt.run("snap_dim", expect_success=False)
    assert not result.success
    message = " ".join(dbt.logs)
    assert (f"(table {names.target}.snap_dim): load {late} is the snapshot of 2024-01-02 (boundary_column `snapshot_date`), "
            f"older than 2024-01-03 of load {stage.load_ids[1]}, which the table already applied") in message
    assert "dbt run --full-refresh --select snap_dim" in message
    assert table(spark, f"{names.target}.snap_dim", "*") == before
    # the fix the message names: every snapshot replayed in date order
    dbt.invoke("run", "--select", "snap_dim", "--full-refresh")
    assert table(spark, f"{names.target}.snap_dim", HISTORY) == EXPECTED


@pytest.mark.parametrize("rows, problem", [
    ([{"customer_key": 1, "c1": "a", "snapshot_date": D2}, {"customer_key": 2, "c1": "b", "snapshot_date": D3}],
     "boundary_column `snapshot_date` holds 2 values in load {load} (2024-01-02 to 2024-01-03); a load is one snapshot with one date."),
    ([{"customer_key": 1, "c1": "a", "snapshot_date": D2}, {"customer_key": 2, "c1": "b"}],
     "boundary_column `snapshot_date` is NULL in 1 rows of load {load}; every row of a snapshot carries its date."),
], ids=["two_dates", "null_date"])
@pytest.mark.extended
def test_snapshot_replay__a_load_without_one_date_is_refused_naming_it(spark, stage, dbt, names, rows, problem):
    stage.load(DAYS[D1], table="dim_customer")
    dbt.run("snap_dim")
    before = table(spark, f"{names.target}.snap_dim", "*")
    load = stage.load(rows, table="dim_customer")
    assert not dbt.run("snap_dim", expect_success=False).success
    assert f"(table {names.target}.snap_dim): " + problem.format(load=load) in " ".join(dbt.logs)
    assert table(spark, f"{names.target}.snap_dim", "*") == before


@pytest.mark.extended
def test_snapshot_replay__a_missing_or_text_boundary_column_is_refused(spark, stage, dbt, names):
    missing = stage.load([{"customer_key": 1, "c1": "a"}], table="dim_customer")
    assert not dbt.run("snap_dim", expect_success=False).success
    assert (f"(table {names.target}.snap_dim): boundary_column column `snapshot_date` is not among the model's columns"
            in " ".join(dbt.logs)) and f"(loads {missing})" in " ".join(dbt.logs)
    load = stage.load([{"customer_key": 1, "c1": "a", "snapshot_date": "day 2"}], table="dim_customer")
    assert not dbt.run("snap_dim", expect_success=False).success
    # the column's type is the batch's, so the message names the first pending load (here the one without it)
    assert any(f"(table {names.target}.snap_dim): boundary_column `snapshot_date` is of type string in load {one}; "
               "expected a date or timestamp (cast it in the model)." in " ".join(dbt.logs) for one in (missing, load))
    assert not spark.catalog.tableExists(f"{names.target}.snap_dim")


@pytest.mark.extended
def test_snapshot_replay__boundary_column_with_boundary_timestamp_is_refused(spark, stage, dbt, names):
    stage.load(DAYS[D1], table="dim_customer")
    result = dbt.invoke("run", "--select", "snap_dim", vars={"snap_boundary_timestamp": "2024-01-01"}, expect_success=False)
    assert not result.success
    assert ("boundary_column `snapshot_date` and boundary_timestamp=2024-01-01 both set the validity boundary; keep one."
            in " ".join(dbt.logs))
    assert not spark.catalog.tableExists(f"{names.target}.snap_dim")


@pytest.mark.extended
def test_snapshot_replay__nested_rows_follow_the_versions_of_their_snapshot(spark, stage, dbt, names):
    def customer(day, key, *orders):
        return {"id": key, "snapshot_date": day, "orders": [{"sku": s} for s in orders]}

    stage.load([customer(D3, 1, "a", "c"), customer(D3, 2, "b")], table="customers")
    stage.load([customer(D1, 1, "a"), customer(D1, 2, "b")], table="customers")
    stage.load([customer(D2, 1, "a", "c")], table="customers")  # 1 gets an order, 2 is absent
    dbt.run("snap_cust snap_cust__orders")
    roots = f"{names.target}.snap_cust"
    assert table(spark, roots, "id, cast(_dlt_valid_from as date), cast(_dlt_valid_to as date)") == rows_of(
        (1, D1, D2), (1, D2, None), (2, D1, D2), (2, D3, None))
    orders = table(spark, f"{names.target}.snap_cust__orders o join {roots} r on o._dlt_root_id = r._dlt_id",
                   "r.id, cast(r._dlt_valid_from as date), o.sku")
    # customer 2's version comes back with the id it had: its order once, seen from both its rows
    assert orders == rows_of((1, D1, "a"), (1, D2, "a"), (1, D2, "c"), (2, D1, "b"), (2, D3, "b"))
    assert spark.sql(f"select count(*) from {names.target}.snap_cust__orders").first()[0] == 4


@pytest.mark.extended
def test_snapshot_replay__the_docs_example_lands_and_replays_as_shown(spark, stage, dbt, names, tmp_path):
    import yaml

    from python_extract.sources.registry import get_plugin, resolve_config
    from tests.support.doc_commands import readme_block, readme_blocks

    # the three exports, each file with the name its block gives
    for block in [b for b in readme_blocks(SECTION) if b.startswith("# data/customers/")]:
        name, _, body = block.partition("\n")
        (tmp_path / name.split("/")[-1]).write_text(body)
    config = yaml.safe_load(readme_block(SECTION, "# customers_snapshots.yaml"))["source"]["config"]
    config["resources"][0]["glob"] = str(tmp_path / "customers_*.csv")
    plugin = get_plugin("files")
    assert len(stage.pipeline.run(plugin.build(resolve_config(plugin, config), "files")).load_ids) == 3
    # the docs' model is the integration project's snap_cust, on this test's staging dataset
    model = readme_block(SECTION, "-- models/customers_history.sql").splitlines()[1]
    assert model == (REPO / "integration_tests/models/materialization/snapshot/snap_cust.sql").read_text().splitlines()[0]
    dbt.run("snap_cust")
    shown = readme_block(SECTION, "-- select id, name, snapshot_date").splitlines()
    query = shown[0][3:].replace("customers_history", f"{names.target}.snap_cust")
    expected = [tuple(None if v == "NULL" else v for v in (c.strip() for c in line.split("|"))) for line in shown[2:]]
    got = [tuple(None if v is None else str(v) for v in r) for r in spark.sql(query).collect()]
    assert sorted(got, key=str) == sorted(expected, key=str) and len(expected) == 4
    # the queries: as of day 2 ann's new name and no bob; today both
    as_of, current = (block.replace("customers_history", f"{names.target}.snap_cust")
                      for block in (readme_block(SECTION, "-- as of 2024-01-02"), readme_block(SECTION, "-- current")))
    assert sorted(tuple(r) for r in spark.sql(as_of).collect()) == [("1", "anne")]
    assert sorted(tuple(r) for r in spark.sql(current).collect()) == [("1", "anne"), ("2", "bob")]
