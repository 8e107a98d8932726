"""dbt-tests-adapter `basic`: the classes dbt-spark runs in tests/functional/adapter/test_basic.py, plus
`dbt docs generate` and its references (dbt-spark checks docs through its persist_docs tests)."""
from __future__ import annotations

import pytest

from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
from dbt.tests.adapter.basic.test_incremental import BaseIncremental, BaseIncrementalNotSchemaChange
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_singular_tests_ephemeral import BaseSingularTestsEphemeral
from dbt.tests.adapter.basic.test_snapshot_check_cols import BaseSnapshotCheckCols
from dbt.tests.adapter.basic.test_snapshot_timestamp import BaseSnapshotTimestamp
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection
from dbt.tests.adapter.empty.test_empty import BaseTestEmpty, BaseTestEmptyInlineSourceRef

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)


class TestSimpleMaterializations(BaseSimpleMaterializations):
    pass


class TestSingularTests(BaseSingularTests):
    pass


class TestSingularTestsEphemeral(BaseSingularTestsEphemeral):
    pass


class TestEmpty(BaseEmpty):
    pass


class TestEmptyFlag(BaseTestEmpty):
    pass


class TestEmptyFlagInlineSourceRef(BaseTestEmptyInlineSourceRef):
    pass


class TestEphemeral(BaseEphemeral):
    pass


class TestIncremental(BaseIncremental):
    pass


class TestIncrementalNotSchemaChange(BaseIncrementalNotSchemaChange):
    pass


class TestGenericTests(BaseGenericTests):
    pass


def _snapshots_in(table_format, name):
    # dbt-spark snapshots merge: they need a table format (delta, iceberg, hudi), as dbt-spark's suite sets
    return {"name": name, "seeds": {"+file_format": table_format}, "snapshots": {"+file_format": table_format}}


@pytest.mark.over_the_wire
class TestSnapshotCheckCols(BaseSnapshotCheckCols):
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return _snapshots_in(table_format, "snapshot_strategy_check_cols")


@pytest.mark.over_the_wire
class TestSnapshotTimestamp(BaseSnapshotTimestamp):
    @pytest.fixture(scope="class")
    def project_config_update(self, table_format):
        return _snapshots_in(table_format, "snapshot_strategy_timestamp")


@pytest.mark.over_the_wire
class TestAdapterMethod(BaseAdapterMethod):
    pass


@pytest.mark.over_the_wire
class TestValidateConnection(BaseValidateConnection):
    pass
