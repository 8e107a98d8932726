"""Fixtures of the Airbyte source tests: a pipeline per test on the shared lakehouse."""
from __future__ import annotations

from ..support.staging import pipe  # noqa: F401  (the fixture)
