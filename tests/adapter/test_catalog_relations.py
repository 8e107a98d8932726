"""The adapter sees every relation of the lakehouse catalog (issue 13): views beside tables, nothing
for a schema that does not exist, and a schema that still holds relations can be dropped."""
from __future__ import annotations

import pytest

from dbt.tests.util import get_connection, run_dbt

# the catalog's answers are the format's own, over the wire too
pytestmark = [pytest.mark.default_format, pytest.mark.each_format, pytest.mark.wire_each_format]

MODELS = {
    "a_table.sql": "{{ config(materialized='table') }} select 1 as id",
    "a_view.sql": "{{ config(materialized='view') }} select id from {{ ref('a_table') }}",
}


def _relations(project, schema):
    adapter = project.adapter
    with get_connection(adapter):
        found = adapter.list_relations_without_caching(adapter.Relation.create(database=project.database, schema=schema))
    return sorted((r.identifier, str(r.type)) for r in found)


def _schemas(spark):
    return {row[0] for row in spark.sql("show namespaces").collect()}


@pytest.mark.over_the_wire
class TestCatalogRelations:
    @pytest.fixture(scope="class")
    def models(self):
        return MODELS

    def test_list_relations__views_beside_tables(self, project):
        run_dbt(["run"])
        assert _relations(project, project.test_schema) == [("a_table", "table"), ("a_view", "view")]

    def test_list_relations__missing_schema_lists_as_empty(self, project, spark):
        assert "no_such_schema_here" not in _schemas(spark)
        assert _relations(project, "no_such_schema_here") == []

    def test_drop_schema__schema_with_a_table_and_a_view_is_dropped(self, project, spark):
        run_dbt(["run"])
        doomed = f"{project.test_schema}_doomed"
        spark.sql(f"create namespace `{doomed}`")
        spark.sql(f"create table `{doomed}`.t as select 1 as id")
        spark.sql(f"create view `{doomed}`.v as select id from `{doomed}`.t")
        adapter = project.adapter
        with get_connection(adapter):
            adapter.drop_schema(adapter.Relation.create(database=project.database, schema=doomed))
        assert doomed not in _schemas(spark)
