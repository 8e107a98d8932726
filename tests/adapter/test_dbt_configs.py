"""dbt's own model configs on sparkload models (issue 13): `grants` (Apache Spark has no GRANT
statement), an enforced `contract` and an `on_schema_change` other than the table's own evolution
(append_new_columns) are refused with one clear message each, before anything changes; dbt's defaults
pass (every other sparkload test)."""
from __future__ import annotations

import pytest

from dbt.tests.util import run_dbt

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)

SPARKLOAD = "{{{{ config(materialized='sparkload', {config}) }}}} select 1 as id"
CONTRACT_YML = """
models:
  - name: contracted
    config:
      contract: {enforced: true}
    columns:
      - name: id
        data_type: int
"""


class TestDbtConfigsOnSparkloadModels:
    @pytest.fixture(scope="class")
    def models(self):
        return {
            "granted.sql": SPARKLOAD.format(config="grants={'select': ['analyst']}"),
            "contracted.sql": SPARKLOAD.format(config="write_disposition='append'"),
            "schema_changing.sql": SPARKLOAD.format(config="on_schema_change='sync_all_columns'"),
            "schema.yml": CONTRACT_YML,
        }

    def test_grants_contract_on_schema_change__refused_naming_model_and_table_nothing_created(self, project, spark):
        results = run_dbt(["run"], expect_pass=False)

        messages = {r.node.name: " ".join(r.message.split()) for r in results}
        assert sorted(messages) == ["contracted", "granted", "schema_changing"]
        assert all(str(r.status) == "error" for r in results)
        table = f"{project.test_schema}.{{}})"
        assert f"sparkload model granted (table {table.format('granted')}: grants={{'select': ['analyst']}} " \
               "cannot be applied: Apache Spark SQL has no GRANT statement" in messages["granted"].replace("`", "")
        assert f"sparkload model contracted (table {table.format('contracted')}: contract enforcement is not " \
               "supported" in messages["contracted"].replace("`", "")
        assert f"sparkload model schema_changing (table {table.format('schema_changing')}: " \
               "on_schema_change=sync_all_columns does not apply" in messages["schema_changing"].replace("`", "")
        assert all("The table is unchanged." in m for m in messages.values())
        tables = {r[1] for r in spark.sql(f"show tables in `{project.test_schema}`").collect()}
        assert tables.isdisjoint({"granted", "contracted", "schema_changing"})
