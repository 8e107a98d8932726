"""The sparkload materialization as an ordinary dbt model (issue 13): it replaces a view of the same
name (a model that was a view before, which the adapter now sees)."""
from __future__ import annotations

import pytest

from ..support.skeleton import LOAD_1
from ..support.skeleton import customers_pipeline as _pipeline
from ..support.skeleton import run_customers as _run
from ..support.tables import rows

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)

FINAL = "select * from {schema}.skeleton_customers order by id"


@pytest.mark.dbt_targets("embedded", "sparkload_thrift")
def test_sparkload_model__replaces_a_view_of_the_same_name(spark, lakehouse, names, dbt):
    _run(_pipeline(lakehouse, names), LOAD_1)
    spark.sql(f"create namespace if not exists `{names.target}`")
    spark.sql(f"create view `{names.target}`.skeleton_customers as select 'a view' as what")

    dbt.run("skeleton_customers")

    assert rows(spark, FINAL.format(schema=names.target)) == [
        {"id": 1, "name": "Ann", "address__city": "Oslo"},
        {"id": 2, "name": "Bob", "address__city": "Rome"},
    ]
    # (the schema is shared with other tests' models: only this name matters)
    assert "skeleton_customers" not in [r[1] for r in spark.sql(f"show views in `{names.target}`").collect()]
