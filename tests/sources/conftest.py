"""Fixtures of the source-plugin tests: a pipeline per test on the shared lakehouse, and the shop API."""
from __future__ import annotations

import pytest

from ..support.api_server import ApiServer, ShopApi
from ..support.staging import pipe  # noqa: F401  (the fixture)


@pytest.fixture
def api():
    with ApiServer(ShopApi()) as served:
        yield served
