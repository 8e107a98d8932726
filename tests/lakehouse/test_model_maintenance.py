"""The `maintenance` model config: maintenance of the model's table right after its commit, by the
same macros as `sparkload lakehouse maintain`. A maintained model and the same model without
maintenance, fed the same loads, end every run with the same rows, and the maintained one with its
delete files applied and its small files compacted. An invalid config fails before anything changed.

Runs a dbt project written by the `project` fixture (its models are `MODELS` below; .sql files under
tests/ would be read as the package's data tests), which installs the package with `local:`, on the
`dbt` fixture's target (embedded and thrift) with integration_tests' profile.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import python_extract as sl

from ..support.dbt import Dbt, dbt_env
from ..support.paths import INTEGRATION, REPO
from ..support.files import table_files

MAINTENANCE = "maintenance={'compact_when': {'small_files': 2, 'delete_files': 2}, 'remove_orphans_older_than': none}"
MODELS = {
    "plain_upsert": "materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id'",
    "maintained_upsert": f"materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id', {MAINTENANCE}",
    "maintained_scd2": f"materialized='sparkload', write_disposition='merge', strategy='scd2', merge_key='id', {MAINTENANCE}",
    "invalid_maintenance": "materialized='sparkload', write_disposition='merge', strategy='upsert', primary_key='id', "
                           "maintenance={'compact_when': {'small_file': 3}}",
}


class ProjectDbt:
    """`dbt` commands of the maintenance project on the target of the run's `dbt` fixture."""

    def __init__(self, root: Path, dbt: Dbt):
        self.root, self.dbt = root, dbt

    def run(self, *select: str, expect_success: bool = True):
        from dbt.cli.main import dbtRunner

        os.environ.update(dbt_env(self.dbt.names))
        events = []
        result = dbtRunner(callbacks=[lambda e: events.append(e.info.msg)]).invoke([
            "run", "--select", *select, "--project-dir", str(self.root), "--profiles-dir", str(INTEGRATION),
            "--target", self.dbt.target])
        if expect_success and not result.success:
            raise AssertionError(f"dbt run failed: {result.exception}\n" + "\n".join(events[-30:]))
        return result, events


@pytest.fixture(scope="module")
def project_root(dbt_deps, tmp_path_factory) -> Path:
    from dbt.cli.main import dbtRunner

    root = tmp_path_factory.mktemp("maintenance_project")
    (root / "dbt_project.yml").write_text("name: sparkload_maintenance_tests\nversion: '0.1.0'\nconfig-version: 2\n"
                                          "profile: sparkload_integration_tests\nmodel-paths: ['models']\nmacro-paths: ['macros']\n"
                                          # integration_tests' profile and the test's schemas, as there (dbt_env)
                                          "models:\n  +schema: \"{{ env_var('SPARKLOAD_TARGET_SCHEMA') }}\"\n")
    (root / "macros").mkdir()
    shutil.copy(INTEGRATION / "macros" / "generate_schema_name.sql", root / "macros")
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (root / "models").mkdir()
    (root / "models" / "sources.yml").write_text(
        "version: 2\nsources:\n  - name: raw\n    schema: \"{{ env_var('SPARKLOAD_STAGING_DATASET') }}\"\n    tables:\n      - name: items\n")
    for name, config in MODELS.items():
        (root / "models" / f"{name}.sql").write_text(f"{{{{ config({config}) }}}}\nselect * from {{{{ source('raw', 'items') }}}}\n")
    with pytest.MonkeyPatch.context() as env:  # deps reads dbt_project.yml, whose env var a test sets later
        env.setenv("SPARKLOAD_TARGET_SCHEMA", os.environ.get("SPARKLOAD_TARGET_SCHEMA", "deps_only"))
        result = dbtRunner().invoke(["deps", "--project-dir", str(root), "--profiles-dir", str(INTEGRATION)])
    assert result.success, result.exception
    return root


@pytest.fixture
def project(project_root, dbt) -> ProjectDbt:
    return ProjectDbt(project_root, dbt)


def _land(spark, lakehouse, names, rows):
    pipeline = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)
    pipeline.run(rows, table_name="items", write_disposition="merge", primary_key="id")


@pytest.mark.extended("delta", "thrift")
@pytest.mark.each_format
@pytest.mark.over_the_wire
def test_model_maintenance__compacts_after_each_commit_and_keeps_the_rows_of_the_unmaintained_twin(spark, lakehouse, names, project):
    def rows(model, columns="id, v"):
        return sorted(tuple(r) for r in spark.sql(f"select {columns} from {names.target}.{model}").collect())

    # load 1: 30 rows; loads 2 and 3: one row updated and one added each
    _land(spark, lakehouse, names, [{"id": i, "v": "a"} for i in range(30)])
    for n in (2, 3):
        project.run("plain_upsert", "maintained_upsert", "maintained_scd2")
        assert rows("maintained_upsert") == rows("plain_upsert")
        _land(spark, lakehouse, names, [{"id": n, "v": f"load{n}"}, {"id": 100 + n, "v": "new"}])
    project.run("plain_upsert", "maintained_upsert", "maintained_scd2")
    expected = sorted([(i, "a") for i in range(30) if i not in (2, 3)] + [(2, "load2"), (3, "load3"), (102, "new"), (103, "new")])
    assert rows("maintained_upsert") == rows("plain_upsert") == expected
    # scd2: every updated id has a retired and an active version; maintenance kept all of them
    assert len(rows("maintained_scd2", "id, v, _dlt_valid_from, _dlt_valid_to")) == 30 + 2 + 2
    # (data files, delete files): a data file per run and a live delete file without maintenance; with
    # it, runs 2 and 3 reached 2 small files and compacted them, applying the delete files
    assert table_files(spark, f"{names.target}.plain_upsert") == (3, 1)
    assert table_files(spark, f"{names.target}.maintained_upsert") == (1, 0)
    assert table_files(spark, f"{names.target}.maintained_scd2") == (1, 0)


def test_model_maintenance__an_invalid_config_fails_before_the_table_changes(spark, lakehouse, names, project):
    _land(spark, lakehouse, names, [{"id": 1, "v": "a"}])
    result, events = project.run("invalid_maintenance", expect_success=False)
    assert not result.success
    message = ("sparkload model invalid_maintenance (table " + f"{names.target}.invalid_maintenance): maintenance "
               "compact_when.small_file=3 is not valid; expected one of the keys small_files, delete_files, delete_ratio. "
               "The table is unchanged.")
    assert any(message in e for e in events), "\n".join(events[-20:])
    assert not spark.catalog.tableExists(f"{names.target}.invalid_maintenance")
