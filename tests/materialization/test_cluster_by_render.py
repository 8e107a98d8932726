"""cluster_by rendered (fast tier; tests/materialization/test_tables.py judges what it does on Delta and Iceberg):
the CREATE's `cluster by` on Delta only, the ALTER of each format, the config checks and the unknown-column
check with their one-line messages."""
from __future__ import annotations

import pytest

from ..support.macros import COLUMNS, Package, Relation, cfg

pytestmark = pytest.mark.fast

TARGET = Relation("target", "items")
PENDING = {"ids": ["1700000000.1"], "pipelines": {"1700000000.1": "shop"}}


@pytest.fixture(scope="module")
def package() -> Package:
    return Package()


def _refusal(check, *arguments) -> str:
    with pytest.raises(AssertionError, match="compiler error") as error:
        check(*arguments)
    return " ".join(str(error.value).split())


@pytest.mark.parametrize("file_format, options", [
    ("delta", "using delta cluster by (`id`, `na``me`) tblproperties ('format-version' = '2')"),
    ("iceberg", "using iceberg tblproperties ('format-version' = '2')"),  # its sort order is set once the table exists
])
def test_cluster_by_render__delta_clusters_in_the_create_and_iceberg_does_not(package, file_format, options):
    rendered = package["get_sparkload_table_options_sql"](cfg(file_format=file_format, cluster_by=["id", "na`me"]))
    assert " ".join(rendered.split()) == options


@pytest.mark.parametrize("file_format, sql", [
    ("delta", "alter table `target`.`items` cluster by (`id`, `na``me`)"),
    ("iceberg", "alter table `target`.`items` write ordered by `id`, `na``me`"),
])
def test_cluster_by_render__an_existing_table_is_altered_by_its_formats_statement(package, file_format, sql):
    assert " ".join(package["get_sparkload_cluster_by_sql"](TARGET, file_format, ["id", "na`me"]).split()) == sql


@pytest.mark.parametrize("value, expected", [(None, []), ("id", ["id"]), (["id", "seq"], ["id", "seq"])])
def test_cluster_by_config__a_column_or_a_list_of_them(package, value, expected):
    assert package["_sparkload_validate_cluster_by"](TARGET, value, [], "delta") == expected


@pytest.mark.parametrize("value", [[], ["id", "id"], [""], {"id": "asc"}, 3, ["id", 3]])
def test_cluster_by_config__anything_else_is_refused_in_one_line(package, value):
    message = _refusal(package["_sparkload_validate_cluster_by"], TARGET, value, [], "iceberg")
    assert message == (f"compiler error: sparkload model items (table target.items): cluster_by={value} is not valid; "
                       "expected a column or a list of distinct columns, e.g. cluster_by=['customer_id', 'day']. "
                       "The table is unchanged.")


def test_cluster_by_config__delta_refuses_it_with_partition_by_and_iceberg_sorts_within_partitions(package):
    message = _refusal(package["_sparkload_validate_cluster_by"], TARGET, ["id"], ["day"], "delta")
    assert message == ("compiler error: sparkload model items (table target.items): cluster_by=id with partition_by=day: "
                       "a delta table is clustered (liquid clustering) or partitioned, never both; remove one of them. "
                       "The table is unchanged.")
    assert package["_sparkload_validate_cluster_by"](TARGET, ["id"], ["day"], "iceberg") == ["id"]


def test_cluster_by_columns__a_column_the_model_lacks_is_named_with_the_model(package):
    message = _refusal(package["validate_sparkload_columns"], TARGET, cfg(cluster_by=["id", "region"]), COLUMNS, PENDING)
    assert ("sparkload model items (table target.items): cluster_by column `region` is not among the model's columns "
            "(id, na`me, deleted, seq, _dlt_load_id, _dlt_id) (loads 1700000000.1). Fix cluster_by in the model's config "
            "to name one of them, or select `region` in the model; the loads stay pending and apply once it is fixed. "
            "The table is unchanged.") in message
    # a scd2 root may cluster by its validity columns, which the table has and the batch has not
    package["validate_sparkload_columns"](TARGET, cfg(strategy="scd2", primary_key=[], merge_key=["id"],
                                                      cluster_by=["_dlt_valid_from"]), COLUMNS, PENDING)


class Answering(Package):
    """The package with `run_query` answering from `answers` (SQL prefix -> rows as dicts), as dbt's agate tables."""

    answers: dict = {}

    def _no_queries(self, sql):
        from dbt_common.clients.agate_helper import table_from_data_flat

        rows = next(rows for prefix, rows in self.answers.items() if sql.startswith(prefix))
        return table_from_data_flat(rows, list(rows[0]))


@pytest.mark.parametrize("file_format, answers, layout", [
    ("delta", {"describe detail `target`.`items`": [{"clusteringColumns": ["id", "na`me"], "partitionColumns": []}]},
     {"columns": ["id", "na`me"], "partitioned": False}),
    ("delta", {"describe detail": [{"clusteringColumns": [], "partitionColumns": ["day"]}]}, {"columns": [], "partitioned": True}),
    ("iceberg", {"show tblproperties `target`.`items`": [{"key": "sort-order", "value": "id ASC NULLS FIRST, day DESC NULLS LAST"},
                                                         {"key": "format-version", "value": "2"}]},
     {"columns": ["id", "day DESC NULLS LAST"], "partitioned": False}),  # another direction never equals a column
    ("iceberg", {"show tblproperties": [{"key": "format-version", "value": "2"}]}, {"columns": [], "partitioned": False}),
])
def test_cluster_by_fetch__reads_delta_detail_and_iceberg_sort_order_as_dbt_hands_them(file_format, answers, layout):
    package = type("P", (Answering,), {"answers": answers})()
    assert package["fetch_sparkload_clustering"](TARGET, file_format) == layout
