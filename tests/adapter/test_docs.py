"""dbt-tests-adapter `docs generate` and its references: the catalog lists seeds, tables and views
(views come from SHOW VIEWS on the Iceberg catalog) with Spark's column types."""
from __future__ import annotations

import getpass
import os

import pytest

from dbt.tests.adapter.basic import expected_catalog
from dbt.tests.adapter.basic.test_docs_generate import BaseDocsGenerate, BaseDocsGenReferences

# the catalog's answers are the format's own, over the wire too
pytestmark = [pytest.mark.default_format, pytest.mark.each_format, pytest.mark.wire_each_format]


def _owned(catalog, user):
    """Spark records who created a table as its owner: on Iceberg's catalog the thrift session's user (the
    profile's `user`), or the OS user of the embedded JVM. A view has the same owner (issue 40 item 5: an
    Iceberg view had none; the adapter records its creator as the view property `sparkload.owner`). Delta's
    session catalog (the Hive metastore) records the JVM's OS user for tables and views alike, also over
    thrift (the server does not impersonate its sessions' users)."""
    if os.environ["SPARKLOAD_TABLE_FORMAT"] == "delta":
        user = None
    for group in catalog.values():
        for node in group.values():
            node["metadata"]["owner"] = user or getpass.getuser()
    return catalog


@pytest.mark.over_the_wire
class TestDocsGenerate(BaseDocsGenerate):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project, profile_user):
        return _owned(expected_catalog.base_expected_catalog(
            project, role=None, id_type="bigint", text_type="string", time_type="timestamp",
            view_type="view", table_type="table", model_stats=expected_catalog.no_stats()), profile_user)


@pytest.mark.over_the_wire
class TestDocsGenReferences(BaseDocsGenReferences):
    @pytest.fixture(scope="class")
    def expected_catalog(self, project, profile_user):
        return _owned(expected_catalog.expected_references_catalog(
            project, role=None, id_type="bigint", text_type="string", time_type="timestamp", bigint_type="bigint",
            view_type="view", table_type="table", model_stats=expected_catalog.no_stats()), profile_user)
