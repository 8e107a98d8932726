"""strategy='scd2': every version of every record with its validity, one load per statement (dlt's
scd2 sequences: the dim_customer runs, natural and compound merge keys, partitions, reinserts,
validity column names, a high active timestamp, an own row version, deletes)."""
from __future__ import annotations

import pytest

from ..support.dbt import PACKAGE_TARGETS, TARGETS
from ..support.tables import rows_of, table

# each_format: one test per statement shape (absent records retired, a natural merge key, custom validity names and row
# version, a fixed boundary, a delete row) runs on each format; the key-matching variants of the same statements
# (reinserted records, many or compound or partition keys) run on the main format only (docs/testing.md)
pytestmark = [pytest.mark.dbt_targets(*TARGETS)]
VALIDITY = "_dlt_valid_from, _dlt_valid_to"


@pytest.mark.each_format
@pytest.mark.extended("spark_session")  # dbt-spark's session method: test_upsert's and test_insert_only's first tests
@pytest.mark.extended(("iceberg", "embedded"))  # runs embedded on Delta; here over the wire (and the file's other tests embedded)
@pytest.mark.over_the_wire
@pytest.mark.dbt_targets(*PACKAGE_TARGETS)
def test_scd2__full_extract_retires_changed_and_absent_records(spark, stage, dbt, names):
    def dim_customer():
        return table(spark, f"{names.target}.scd2_full", f"customer_key, c1, c2, {VALIDITY}", stage.labels())

    # load 1: initial
    stage.load([{"customer_key": 1, "c1": "foo", "c2": 1}, {"customer_key": 2, "c1": "bar", "c2": 2}], table="dim_customer")
    dbt.run("scd2_full")
    assert dim_customer() == rows_of((1, "foo", 1, "L1", None), (2, "bar", 2, "L1", None))
    # load 2: customer 1 updated
    stage.load([{"customer_key": 1, "c1": "foo_updated", "c2": 1}, {"customer_key": 2, "c1": "bar", "c2": 2}], table="dim_customer")
    dbt.run("scd2_full")
    assert dim_customer() == rows_of(
        (1, "foo", 1, "L1", "L2"), (2, "bar", 2, "L1", None), (1, "foo_updated", 1, "L2", None))
    # load 3: customer 2 deleted (absent from the full extract)
    stage.load([{"customer_key": 1, "c1": "foo_updated", "c2": 1}], table="dim_customer")
    dbt.run("scd2_full")
    assert dim_customer() == rows_of(
        (1, "foo", 1, "L1", "L2"), (2, "bar", 2, "L1", "L3"), (1, "foo_updated", 1, "L2", None))


@pytest.mark.extended
def test_scd2__a_reinserted_record_opens_a_new_version(spark, stage, dbt, names):
    r1, r2 = {"customer_key": 1, "c1": "foo"}, {"customer_key": 2, "c1": "bar"}
    stage.load([r1, r2], table="dim_customer")
    stage.load([r2], table="dim_customer")
    stage.load([r1, r2], table="dim_customer")
    dbt.run("scd2_full")  # three pending loads, applied one after another
    assert table(spark, f"{names.target}.scd2_full", f"customer_key, c1, {VALIDITY}", stage.labels()) == rows_of(
        (1, "foo", "L1", "L2"), (2, "bar", "L1", None), (1, "foo", "L3", None))


@pytest.mark.extended
@pytest.mark.each_format
def test_scd2__natural_merge_key_never_retires_absent_records(spark, stage, dbt, names):
    def dim():
        return table(spark, f"{names.target}.scd2_nk", f"customer_key, c1, {VALIDITY}", stage.labels())

    stage.load([{"customer_key": 1, "c1": "foo"}, {"customer_key": 2, "c1": "foo"}], table="dim_customer")
    dbt.run("scd2_nk")
    # load 2: customer 2 absent: still active
    stage.load([{"customer_key": 1, "c1": "foo"}], table="dim_customer")
    dbt.run("scd2_nk")
    assert dim() == rows_of((1, "foo", "L1", None), (2, "foo", "L1", None))
    # load 3: customer 1 changes
    stage.load([{"customer_key": 1, "c1": "bar"}], table="dim_customer")
    dbt.run("scd2_nk")
    assert dim() == rows_of((1, "foo", "L1", "L3"), (1, "bar", "L3", None), (2, "foo", "L1", None))
    # load 4: customer 1 back to its first version: a new version, the old one stays retired
    stage.load([{"customer_key": 1, "c1": "foo"}], table="dim_customer")
    dbt.run("scd2_nk")
    assert dim() == rows_of(
        (1, "foo", "L1", "L3"), (1, "bar", "L3", "L4"), (1, "foo", "L4", None), (2, "foo", "L1", None))


@pytest.mark.extended
def test_scd2__many_natural_keys_are_matched_key_by_key(spark, stage, dbt, names):
    # more merge keys than fit a literal list: the per-key statement form
    stage.load([{"customer_key": k, "c1": "a"} for k in range(150)], table="dim_customer")
    dbt.run("scd2_nk")
    # load 2: keys 0-119 come back, the even ones changed; 120-149 are absent and stay active
    stage.load([{"customer_key": k, "c1": "b" if k % 2 == 0 else "a"} for k in range(120)], table="dim_customer")
    dbt.run("scd2_nk")
    got = table(spark, f"{names.target}.scd2_nk", f"customer_key, c1, {VALIDITY}", stage.labels())
    assert len(got) == 210
    assert [r for r in got if r[0] in (0, 1, 149)] == rows_of(
        (0, "a", "L1", "L2"), (0, "b", "L2", None), (1, "a", "L1", None), (149, "a", "L1", None))
    assert sum(1 for r in got if r[3] is None) == 150


@pytest.mark.extended
def test_scd2__compound_merge_key_compares_each_column(spark, stage, dbt, names):
    def dim():
        return table(spark, f"{names.target}.scd2_compound", f"first_name, last_name, age, {VALIDITY}", stage.labels())

    stage.load([{"first_name": "John", "last_name": "Doe", "age": 20}, {"first_name": "John", "last_name": "Dodo", "age": 20},
                {"first_name": "a", "last_name": "bc", "age": 1}], table="dim_customer")
    dbt.run("scd2_compound")
    # load 2: John Doe changes; ('ab', 'c') is a new record, not ('a', 'bc') changed
    stage.load([{"first_name": "John", "last_name": "Doe", "age": 30}, {"first_name": "ab", "last_name": "c", "age": 2}],
               table="dim_customer")
    dbt.run("scd2_compound")
    assert dim() == rows_of(
        ("John", "Doe", 20, "L1", "L2"), ("John", "Doe", 30, "L2", None), ("John", "Dodo", 20, "L1", None),
        ("a", "bc", 1, "L1", None), ("ab", "c", 2, "L2", None))


@pytest.mark.extended
def test_scd2__partition_merge_key_retires_only_within_the_loaded_partitions(spark, stage, dbt, names):
    stage.load([{"date": "2024-01-01", "name": "a"}, {"date": "2024-01-01", "name": "b"}], table="some_data")
    dbt.run("scd2_partition")
    # loads 2 and 3 land before the next run: 2024-01-02 arrives, then 2024-01-01 is reloaded
    stage.load([{"date": "2024-01-02", "name": "c"}, {"date": "2024-01-02", "name": "d"}], table="some_data")
    stage.load([{"date": "2024-01-01", "name": "a"}, {"date": "2024-01-01", "name": "bb"}], table="some_data")
    dbt.run("scd2_partition")
    assert table(spark, f"{names.target}.scd2_partition", f"date, name, {VALIDITY}", stage.labels()) == rows_of(
        ("2024-01-01", "a", "L1", None), ("2024-01-01", "b", "L1", "L3"), ("2024-01-02", "c", "L2", None),
        ("2024-01-02", "d", "L2", None), ("2024-01-01", "bb", "L3", None))


@pytest.mark.extended("delta", "thrift")
@pytest.mark.each_format
@pytest.mark.over_the_wire
def test_scd2__validity_names_high_active_timestamp_and_own_row_version(spark, stage, dbt, names):
    import datetime as dt

    high = dt.datetime(9999, 12, 31)
    stage.load([{"customer_key": 1, "c1": "foo", "row_hash": "h1"}, {"customer_key": 2, "c1": "bar", "row_hash": "h2"}],
               table="dim_customer")
    dbt.run("scd2_options")
    # load 2: customer 1 gets a new row version; customer 2 changes a column but not its row version
    stage.load([{"customer_key": 1, "c1": "foo_upd", "row_hash": "h1_upd"}, {"customer_key": 2, "c1": "bar2", "row_hash": "h2"}],
               table="dim_customer")
    dbt.run("scd2_options")
    labels = {**stage.labels(), high: "9999-12-31"}
    assert table(spark, f"{names.target}.scd2_options", "customer_key, c1, valid_from, valid_to", labels) == rows_of(
        (1, "foo", "L1", "L2"), (1, "foo_upd", "L2", "9999-12-31"), (2, "bar", "L1", "9999-12-31"))


@pytest.mark.extended
@pytest.mark.each_format
def test_scd2__a_fixed_boundary_timestamp_dates_every_version(spark, stage, dbt, names):
    import datetime as dt

    boundary = {dt.datetime(2024, 8, 21, 12, 15): "2024-08-21 12:15"}
    stage.load([{"customer_key": 1, "c1": "foo"}], table="dim_customer")
    stage.load([{"customer_key": 1, "c1": "bar"}], table="dim_customer")
    dbt.run("scd2_boundary")
    assert table(spark, f"{names.target}.scd2_boundary", f"c1, {VALIDITY}", boundary) == rows_of(
        ("foo", "2024-08-21 12:15", "2024-08-21 12:15"), ("bar", "2024-08-21 12:15", None))


@pytest.mark.extended
@pytest.mark.each_format
def test_scd2__a_delete_row_retires_the_active_version_and_the_latest_row_decides(spark, stage, dbt, names):
    cols = {"deleted": {"data_type": "bool"}, "lsn": {"data_type": "bigint"}}

    def dim():
        return table(spark, f"{names.target}.scd2_deletes", f"customer_key, c1, {VALIDITY}", stage.labels())

    stage.load([{"customer_key": 1, "c1": "foo", "lsn": 1}, {"customer_key": 2, "c1": "bar", "lsn": 1}],
               table="dim_customer", columns=cols)
    dbt.run("scd2_deletes")
    # load 2: customer 1 deleted (a merge key alone never retires absent records, a delete row does)
    stage.load([{"customer_key": 1, "lsn": 2, "deleted": True}], table="dim_customer", columns=cols)
    dbt.run("scd2_deletes")
    assert dim() == rows_of((1, "foo", "L1", "L2"), (2, "bar", "L1", None))
    # load 3: customer 1 returns (its latest row is no delete); customer 2's latest row is a delete
    stage.load([{"customer_key": 1, "c1": "new", "lsn": 4}, {"customer_key": 1, "lsn": 3, "deleted": True},
                {"customer_key": 2, "c1": "bar", "lsn": 4}, {"customer_key": 2, "lsn": 5, "deleted": True}],
               table="dim_customer", columns=cols)
    dbt.run("scd2_deletes")
    assert dim() == rows_of((1, "foo", "L1", "L2"), (1, "new", "L3", None), (2, "bar", "L1", "L3"))
