"""dbt-databricks compatibility: the package's materialization is declared for adapter `spark`, so a
`type: databricks` project that installs the package resolves `materialized='sparkload'` to it.
dbt-databricks 1.10.9 is the only release that installs beside dbt-core 1.11 / dbt-spark 1.11 (docs/deployments.md,
"dbt Cloud"). `dbt parse` needs no connection, so no Databricks workspace is involved."""
from __future__ import annotations

from ..support.paths import REPO
from ..support.doc_commands import readme_block

PROFILE = """dbx:
  target: dev
  outputs:
    dev:
      type: databricks
      host: example.cloud.databricks.com
      http_path: /sql/1.0/warehouses/0000000000000000
      token: not-a-real-token
      schema: analytics
"""


def test_databricks__package_materialization_resolves_for_type_databricks(tmp_path):
    from dbt.cli.main import dbtRunner

    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text("name: dbx\nversion: '1.0'\nconfig-version: 2\nprofile: dbx\n")
    (tmp_path / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (tmp_path / "profiles.yml").write_text(PROFILE)
    (tmp_path / "models" / "sources.yml").write_text(readme_block("dbt Cloud", "# models/sources.yml"))
    (tmp_path / "models" / "customers.sql").write_text(readme_block("Quickstart (embedded lakehouse)", "-- models/shop_raw/customers.sql"))
    cli = ["--project-dir", str(tmp_path), "--profiles-dir", str(tmp_path)]
    assert dbtRunner().invoke(["deps", *cli]).success

    parsed = dbtRunner().invoke(["parse", *cli])

    assert parsed.success, parsed.exception
    manifest = parsed.result
    assert manifest.nodes["model.dbx.customers"].config.materialized == "sparkload"
    found = manifest.find_materialization_macro_by_name("dbx", "sparkload", "databricks")
    assert found is not None and found.unique_id == "macro.sparkload.materialization_sparkload_spark"
