"""The walking skeleton: extract -> staging table + `_dlt_loads` -> `dbt run` -> upserted final table,
on the real embedded lakehouse (Iceberg here; Delta when its jars are present)."""
from __future__ import annotations

import pytest

import python_extract as sl
from python_extract.load import land_table
from python_extract.load.spark_loader import ensure_dataset

from .support.skeleton import LOAD_1, LOAD_2
from .support.skeleton import customers_pipeline as _pipeline
from .support.skeleton import run_customers as _run
from .support.tables import rows


def test_load__stamps_rows_and_completes_load_in_dlt_loads(spark, lakehouse, names):
    pipeline = _pipeline(lakehouse, names)
    info = _run(pipeline, LOAD_1)

    staged = spark.sql(f"select * from {names.staging}.customers").collect()
    assert {r["name"] for r in staged} == {"Ann", "Bob"}
    assert {r["_dlt_load_id"] for r in staged} == {info.load_id}
    assert len({r["_dlt_id"] for r in staged}) == 2 and all(r["_dlt_id"] for r in staged)
    assert {r["address__city"] for r in staged} == {"Oslo", "Rome"}
    loads = spark.sql(f"select * from {names.staging}._dlt_loads").collect()
    assert [(r["load_id"], r["status"], r["schema_name"]) for r in loads] == [(info.load_id, 0, names.staging)]
    assert loads[0]["inserted_at"] is not None and loads[0]["schema_version_hash"]


@pytest.mark.extended("thrift")  # over thrift, tests/materialization/test_upsert.py's first test walks the same path
@pytest.mark.over_the_wire
def test_dbt_run__upserts_completed_loads_into_final_table(spark, lakehouse, names, dbt):
    pipeline = _pipeline(lakehouse, names)
    final = f"select * from {names.target}.skeleton_customers order by id"

    # load 1: initial
    load_1 = _run(pipeline, LOAD_1).load_id
    dbt.run("skeleton_customers")
    assert rows(spark, final) == [
        {"id": 1, "name": "Ann", "address__city": "Oslo"},
        {"id": 2, "name": "Bob", "address__city": "Rome"},
    ]

    # load 2: update Bob, add Cid
    load_2 = _run(pipeline, LOAD_2).load_id
    dbt.run("skeleton_customers")
    assert rows(spark, final, drop=("_dlt_id",)) == [
        {"id": 1, "name": "Ann", "address__city": "Oslo", "_dlt_load_id": load_1},
        {"id": 2, "name": "Bobby", "address__city": "Rome", "_dlt_load_id": load_2},
        {"id": 3, "name": "Cid", "address__city": "Lima", "_dlt_load_id": load_2},
    ]

    # rerun without new loads: nothing changes
    dbt.run("skeleton_customers")
    assert len(rows(spark, final)) == 3


def test_dbt_run__ignores_a_load_without_its_dlt_loads_row(spark, lakehouse, names, dbt):
    pipeline = _pipeline(lakehouse, names)
    _run(pipeline, LOAD_1)
    dbt.run("skeleton_customers")

    # load 2 lands its table but crashes before `_dlt_loads`: dbt must not see it
    package = pipeline.extract_and_normalize(
        sl.resource(LOAD_2, name="customers", write_disposition="merge", primary_key="id")
    )
    ensure_dataset(spark, names.staging)
    land_table(spark, package, "customers")
    assert spark.sql(f"select count(*) c from {names.staging}.customers").first()["c"] == 4
    dbt.run("skeleton_customers")
    final = f"select id, name from {names.target}.skeleton_customers order by id"
    assert rows(spark, final) == [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]

    # the next pipeline run finishes the pending package first; then dbt applies it, once
    pipeline.run([], table_name="customers")
    assert spark.sql(f"select count(*) c from {names.staging}.customers").first()["c"] == 4
    dbt.run("skeleton_customers")
    assert rows(spark, final) == [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bobby"}, {"id": 3, "name": "Cid"}]


@pytest.mark.dbt_targets("embedded")  # the embedded method's own log line
def test_dbt_debug__passes_with_embedded_method_and_logs_the_format(spark, dbt):
    from python_extract.lakehouse import session_format

    from .support.paths import INTEGRATION

    log = INTEGRATION / "logs" / "dbt.log"
    before = log.stat().st_size if log.exists() else 0
    dbt.invoke("debug")
    with open(log, errors="replace") as f:
        f.seek(before)
        written = f.read()
    assert f"sparkload embedded lakehouse: table format {session_format(spark)}" in written
    assert "All checks passed" in written
