"""Fixtures of the materialization tests: loads landed through the real extractor (`stage`,
tests/support/stage.py), dbt run through the `dbt` fixture (tests/conftest.py), tables read back through the
`spark` fixture (tests/support/tables.py). The dbt targets they run on: `TARGETS`, `PACKAGE_TARGETS` in
tests/support/dbt.py."""
from __future__ import annotations

from ..support.stage import stage  # noqa: F401  (the fixture)
