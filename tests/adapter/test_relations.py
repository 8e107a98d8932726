"""dbt-tests-adapter `relations`: a model changes its relation type (view <-> table <-> incremental),
which needs the adapter to see views (SHOW VIEWS beside SHOW TABLES on the Iceberg catalog)."""
from __future__ import annotations

import pytest

from dbt.tests.adapter.relations.test_changing_relation_type import BaseChangeRelationTypeValidator

pytestmark = [pytest.mark.default_format, pytest.mark.each_format]  # the catalog's answers are the format's own


@pytest.mark.over_the_wire
class TestChangeRelationTypes(BaseChangeRelationTypeValidator):
    pass
