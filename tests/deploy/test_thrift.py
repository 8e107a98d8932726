"""dbt over the wire, through the run's thrift server over the same lakehouse: the sparkload adapter
with `method: thrift`, `dbt test` and `dbt docs generate`. (Every dbt test of the suite also runs with
the package alone over thrift: see tests/support/run_setup.py.)"""
from __future__ import annotations

import json

import pytest

from ..support.skeleton import LOAD_1, LOAD_2
from ..support.skeleton import customers_pipeline as _pipeline
from ..support.skeleton import run_customers as _run
from ..support.tables import rows

pytestmark = pytest.mark.each_format  # the format changes what this tests (docs/testing.md)

FINAL = "select * from {schema}.skeleton_customers order by id"
UPSERTED = [
    {"id": 1, "name": "Ann", "address__city": "Oslo"},
    {"id": 2, "name": "Bobby", "address__city": "Rome"},
    {"id": 3, "name": "Cid", "address__city": "Lima"},
]


def _two_loads(lakehouse, names):
    pipeline = _pipeline(lakehouse, names)
    return [_run(pipeline, LOAD_1).load_id, _run(pipeline, LOAD_2).load_id]


def _server_app_id(server) -> str:
    """The Spark application id of the thrift server's JVM, asked over the wire."""
    from pyhive import hive

    with hive.connect(host=server.host, port=server.port, username="test") as connection:
        cursor = connection.cursor()
        cursor.execute("set spark.app.id")
        return dict(cursor.fetchall())["spark.app.id"]


def _snapshots(spark, table):
    return spark.sql(f"select snapshot_id, parent_id, operation, summary from {table}.snapshots "
                     "order by committed_at").collect()


@pytest.mark.dbt_targets("sparkload_thrift")
@pytest.mark.only_on("iceberg")  # reads the writer's application id off Iceberg's snapshot summaries
def test_dbt_run_over_thrift__sparkload_adapter_merges_in_the_server_jvm(spark, lakehouse, names, dbt, thrift_server):
    # load 1 builds the table (CREATE OR REPLACE ... AS SELECT); load 2 is merged into it
    pipeline = _pipeline(lakehouse, names)
    _run(pipeline, LOAD_1)
    dbt.run("skeleton_customers")
    _run(pipeline, LOAD_2)
    table = f"`{names.target}`.skeleton_customers"
    built = _snapshots(spark, table)[-1]

    dbt.run("skeleton_customers")

    assert rows(spark, FINAL.format(schema=names.target)) == UPSERTED
    # the table's newest commit is a row-level change on top of load 1's table (a MERGE; a rebuild would
    # start a new history, an insert would be an append), written by the server's Spark application
    # (Iceberg records the writer's spark.app.id), not by this process's
    merged = _snapshots(spark, table)[-1]
    assert (merged.parent_id, merged.operation) == (built.snapshot_id, "overwrite")
    server_app = _server_app_id(thrift_server)
    assert server_app != spark.sparkContext.applicationId
    assert merged.summary["spark.app.id"] == server_app == built.summary["spark.app.id"]


@pytest.mark.extended("delta")  # dbt test's queries over the wire: the docs generate test below reads Delta's catalog there
@pytest.mark.dbt_targets("thrift")
def test_dbt_test_over_thrift__passes_then_catches_a_duplicate_key(spark, lakehouse, names, dbt):
    _two_loads(lakehouse, names)
    dbt.run("skeleton_customers")

    passed = dbt.invoke("test", "--select", "skeleton_customers")
    assert sorted((r.node.name, str(r.status)) for r in passed.result.results) == [
        ("not_null_skeleton_customers_id", "pass"),
        ("not_null_skeleton_customers_name", "pass"),
        ("unique_skeleton_customers_id", "pass"),
    ]

    table = f"{names.target}.skeleton_customers"
    spark.sql(f"insert into {table} select * from {table} where id = 3")
    failed = dbt.invoke("test", "--select", "skeleton_customers", expect_success=False)
    assert not failed.success
    assert {r.node.name: str(r.status) for r in failed.result.results}["unique_skeleton_customers_id"] == "fail"


@pytest.mark.extended("delta")  # on Delta the adapter suite's docs classes read the catalog over thrift (tests/adapter/test_docs.py)
@pytest.mark.dbt_targets("thrift")
def test_dbt_docs_generate_over_thrift__catalog_lists_the_lakehouse_tables(spark, lakehouse, names, dbt, tmp_path):
    _two_loads(lakehouse, names)
    dbt.run("skeleton_customers")

    dbt.invoke("docs", "generate", "--select", "+skeleton_customers", "--target-path", str(tmp_path))

    catalog = json.loads((tmp_path / "catalog.json").read_text())
    model = catalog["nodes"]["model.sparkload_integration_tests.skeleton_customers"]
    assert (model["metadata"]["schema"], model["metadata"]["name"]) == (names.target, "skeleton_customers")
    assert {c: v["type"] for c, v in model["columns"].items()} == {
        "id": "bigint", "name": "string", "address__city": "string", "_dlt_load_id": "string", "_dlt_id": "string",
    }
    source = catalog["sources"]["source.sparkload_integration_tests.skeleton.customers"]
    assert source["metadata"]["schema"] == names.staging


def test_thrift_server__keeps_its_hive_session_folders_in_its_run_dir_not_in_tmp(thrift_server):
    """Hive gives each session (the server's own, and one per connection) a resources folder, by default
    /tmp/<session id>_resources, and the server's own stayed in /tmp after the server stopped: one more per
    start. They live under the server's run dir, with its logs."""
    import tempfile
    from pathlib import Path

    _server_app_id(thrift_server)  # one client session besides the server's own
    folders = sorted((thrift_server.log.parent / "resources").glob("*_resources"))
    assert folders, f"no session folder in {thrift_server.log.parent / 'resources'}"
    assert not [f.name for f in folders if (Path(tempfile.gettempdir()) / f.name).exists()]
