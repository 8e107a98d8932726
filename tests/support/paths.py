"""Where the suite finds the project: the repository and the dbt project the tests run (integration_tests/)."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INTEGRATION = REPO / "integration_tests"
