"""dbt-tests-adapter `incremental` and dbt-spark's incremental strategies (append, insert_overwrite,
merge, microbatch), as dbt-spark's tests/functional/adapter/incremental*/ run them. Where dbt-spark
sets `file_format: delta` for merge, these set the lakehouse's format (`table_format` fixture).
"""
from __future__ import annotations

import os
import re

import pytest

from dbt.tests.adapter.incremental.test_incremental_merge_exclude_columns import BaseMergeExcludeColumns
from dbt.tests.adapter.incremental.test_incremental_microbatch import BaseMicrobatch
from dbt.tests.adapter.incremental.test_incremental_on_schema_change import (
    BaseIncrementalOnSchemaChange, BaseIncrementalOnSchemaChangeSetup,
)
from dbt.tests.adapter.incremental.test_incremental_predicates import BaseIncrementalPredicates
from dbt.tests.adapter.incremental.test_incremental_unique_id import BaseIncrementalUniqueKey
from dbt.tests.util import check_relations_equal, run_dbt

from ..support import strategy_scenarios as strategies
from ..support.adapter_merged_project import merged_files

pytestmark = [pytest.mark.default_format, pytest.mark.each_format]  # merges and schema changes: the format's own (sync_all_columns on Delta)


class TestIncrementalUniqueKey(BaseIncrementalUniqueKey):
    # dbt-spark has no delete+insert; its suite runs these scenarios with merge
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"models": {"+file_format": table_format, "+incremental_strategy": "merge"}}

    @pytest.fixture(scope="class")
    def seeds(self):
        # Spark's store assignment refuses a string literal into a DATE column: the suite's inserted
        # rows, with typed date literals
        return {name: re.sub(r"'(\d{4}-\d\d-\d\d)'", r"date '\1'", text)
                for name, text in merged_files([BaseIncrementalUniqueKey], "seeds").items()}


class _OnSchemaChangeIgnoreFail(BaseIncrementalOnSchemaChangeSetup):
    def test_run_incremental_ignore(self, project):
        self.run_twice_and_assert("model_a incremental_ignore incremental_ignore_target",
                                  "incremental_ignore", "incremental_ignore_target", project)

    def test_run_incremental_fail_on_schema_change(self, project):
        run_dbt(["run", "--models", "model_a incremental_fail", "--full-refresh"])
        second = run_dbt(["run", "--models", "model_a incremental_fail"], expect_pass=False)
        assert "Compilation Error" in second[1].message


class TestAppendOnSchemaChange(_OnSchemaChangeIgnoreFail):
    # append cannot add or drop columns of rows it does not rewrite: only ignore and fail apply (dbt-spark)
    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"models": {"+incremental_strategy": "append"}}


class TestInsertOverwriteOnSchemaChange(_OnSchemaChangeIgnoreFail):
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"models": {"+file_format": table_format, "+partition_by": "id",
                           "+incremental_strategy": "insert_overwrite"}}


@pytest.mark.over_the_wire
class TestMergeOnSchemaChange(BaseIncrementalOnSchemaChange):
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"models": {"+file_format": table_format, "+incremental_strategy": "merge", "+unique_key": "id"}}

    # dbt-spark's sync_all_columns refuses to drop a Delta table's columns, by design (Delta drops a column
    # only under column mapping, which changes the table's protocol); dbt-databricks' suite expects that
    # second run to fail, and so does this one on Delta
    def run_incremental_sync_all_columns(self, project):
        self._sync_dropping_columns(project, "incremental_sync_all_columns", super().run_incremental_sync_all_columns)

    def run_incremental_sync_remove_only(self, project):
        self._sync_dropping_columns(project, "incremental_sync_remove_only", super().run_incremental_sync_remove_only)

    @staticmethod
    def _sync_dropping_columns(project, model, run_on_iceberg):
        if os.environ["SPARKLOAD_TABLE_FORMAT"] != "delta":
            return run_on_iceberg(project)
        select = f"model_a {model} {model}_target"
        run_dbt(["run", "--select", select, "--full-refresh"])
        second = run_dbt(["run", "--select", select], expect_pass=False)
        failed = [r for r in second if r.status == "error"]
        assert [r.node.name for r in failed] == [model]
        assert "Delta Lake does not support dropping columns from tables" in failed[0].message


@pytest.mark.over_the_wire
class TestMergeExcludeColumns(BaseMergeExcludeColumns):
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"models": {"+file_format": table_format}}


class TestIncrementalPredicatesMerge(BaseIncrementalPredicates):
    # dbt-spark has no delete+insert (the suite's default here); merge with the same predicates
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"models": {"+incremental_predicates": ["dbt_internal_dest.id != 2"],
                           "+incremental_strategy": "merge", "+file_format": table_format}}


class TestPredicatesMerge(BaseIncrementalPredicates):
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"models": {"+predicates": ["dbt_internal_dest.id != 2"],
                           "+incremental_strategy": "merge", "+file_format": table_format}}


class TestMicrobatch(BaseMicrobatch):
    # dbt-spark's microbatch overwrites the batch's partitions: it needs partition_by (its own suite's model)
    @pytest.fixture(scope="class")
    def microbatch_model_sql(self) -> str:
        return strategies.MICROBATCH

    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return {"vars": {"file_format": table_format}}


class TestIncrementalStrategies:
    """append (default), insert_overwrite with and without partitions, merge without a key, with a
    unique key and with merge_update_columns: two runs, then each table equals its expected seed."""

    @pytest.fixture(scope="class")
    def seeds(self):
        return {"expected_append.csv": strategies.EXPECTED_APPEND,
                "expected_overwrite.csv": strategies.EXPECTED_OVERWRITE,
                "expected_upsert.csv": strategies.EXPECTED_UPSERT,
                "expected_partial_upsert.csv": strategies.EXPECTED_PARTIAL_UPSERT}

    @pytest.fixture(scope="class")
    def models(self, table_format):
        two_runs = strategies.two_runs
        return {
            "default_append.sql": two_runs(),
            "insert_overwrite_no_partitions.sql": two_runs(incremental_strategy="insert_overwrite",
                                                           file_format=table_format),
            "insert_overwrite_partitions.sql": two_runs(incremental_strategy="insert_overwrite",
                                                        file_format=table_format, partition_by="id"),
            "merge_no_key.sql": two_runs(incremental_strategy="merge", file_format=table_format),
            "merge_unique_key.sql": two_runs(incremental_strategy="merge", file_format=table_format,
                                             unique_key="id"),
            "merge_update_columns.sql": two_runs(incremental_strategy="merge", file_format=table_format,
                                                 unique_key="id", merge_update_columns=["msg"]),
        }

    def test_strategies__second_run_gives_each_strategys_table(self, project):
        run_dbt(["seed"])
        run_dbt(["run"])
        run_dbt(["run"])
        for model, expected in [("default_append", "expected_append"), ("merge_no_key", "expected_append"),
                                ("insert_overwrite_no_partitions", "expected_overwrite"),
                                ("insert_overwrite_partitions", "expected_upsert"),
                                ("merge_unique_key", "expected_upsert"),
                                ("merge_update_columns", "expected_partial_upsert")]:
            check_relations_equal(project.adapter, [model, expected])


class TestBadStrategies:
    """Each invalid combination is refused at compile time, before any SQL runs."""

    @pytest.fixture(scope="class")
    def models(self):
        two_runs = strategies.two_runs
        return {
            "bad_file_format.sql": two_runs(file_format="something_else"),
            "bad_merge_not_delta.sql": two_runs(file_format="parquet", incremental_strategy="merge"),
            "bad_strategy.sql": two_runs(incremental_strategy="something_else"),
        }

    def test_bad_strategies__compile_errors(self, project):
        results = run_dbt(["run"], expect_pass=False)
        assert sorted((r.node.name, r.status) for r in results) == [
            ("bad_file_format", "error"), ("bad_merge_not_delta", "error"), ("bad_strategy", "error")]
        assert all("Compilation Error in model" in r.message for r in results)
