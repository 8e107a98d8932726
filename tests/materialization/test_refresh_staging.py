"""The dbt side of the extractor's `refresh=` (issue 35 item 2): a staging table that a refresh dropped or emptied
no longer holds the loads a model applied, so the model's next run refuses in one line naming the staging table,
the refresh and its load, and the way on (`--full-refresh`), leaving its table as it was; a model that never
applied an older load runs; after the rebuild the model applies later loads as usual. Models: integration_tests'
up_pk and di_pk, both over raw.items. The refresh itself is judged against dlt in
tests/parity_extract/test_refresh_parity.py."""
from __future__ import annotations

import pytest

import python_extract as sl

pytestmark = pytest.mark.dbt_targets("embedded")  # the check is one Jinja macro; the targets share it


def _land(lakehouse, names, rows, refresh=None):
    pipeline = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)
    return pipeline.run(rows, table_name="items", write_disposition="merge", primary_key="id", refresh=refresh).load_id


def _final(spark, names, model):
    return sorted(tuple(r) for r in spark.sql(f"select id, v from {names.target}.{model}").collect())


def test_a_model_over_a_refreshed_staging_table__refuses_until_rebuilt(spark, lakehouse, names, dbt):
    # load 1: initial; up_pk applies it
    _land(lakehouse, names, [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}])
    dbt.run("up_pk")
    assert _final(spark, names, "up_pk") == [(1, "a"), (2, "b")]

    # load 2: the source is reloaded with refresh=drop_data: staging holds load 2 only
    l2 = _land(lakehouse, names, [{"id": 3, "v": "c"}], refresh="drop_data")
    assert [tuple(r) for r in spark.sql(f"select id, _dlt_load_id from {names.staging}.items").collect()] == [(3, l2)]
    noted = spark.sql(f"select load_id, table_name, refresh from {names.staging}._sparkload_refreshed_tables").collect()
    assert [tuple(r) for r in noted] == [(l2, "items", "drop_data")]

    dbt.logs.clear()
    result = dbt.invoke("run", "--select", "up_pk", expect_success=False)
    assert not result.success
    message = " ".join("\n".join(dbt.logs).split())
    assert (f"sparkload model up_pk (table {names.target}.up_pk): staging table {names.staging}.items was reset by the "
            f"extractor's refresh=drop_data (load {l2}) after loads this table applied; their rows would stay beside the "
            "new ones. Rebuild it from staging: dbt run --full-refresh --select up_pk. The table is unchanged.") in message
    assert _final(spark, names, "up_pk") == [(1, "a"), (2, "b")]

    # a model that applied nothing before the refresh runs as usual
    dbt.run("di_pk")
    assert _final(spark, names, "di_pk") == [(3, "c")]

    # the rebuild applies what staging holds; later runs are quiet and apply new loads on top
    dbt.invoke("run", "--select", "up_pk", "--full-refresh")
    assert _final(spark, names, "up_pk") == [(3, "c")]
    _land(lakehouse, names, [{"id": 4, "v": "d"}])
    dbt.run("up_pk di_pk")
    assert _final(spark, names, "up_pk") == _final(spark, names, "di_pk") == [(3, "c"), (4, "d")]
