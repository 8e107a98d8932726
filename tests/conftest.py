"""Shared fixtures: one embedded lakehouse and one SparkSession for the whole run, and dbt invoked
in-process (dbtRunner) on that session against integration_tests/.

Each test gets its own staging dataset and target schema (`names` fixture), so tests never see each
other's tables although they share the lakehouse.
"""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[1]
INTEGRATION = REPO / "integration_tests"
_counter = itertools.count(1)


@pytest.fixture(scope="session")
def lakehouse(tmp_path_factory):
    from python_extract.lakehouse import LakehouseConfig

    home = tmp_path_factory.mktemp("lakehouse")
    os.environ["SPARKLOAD_HOME"] = str(home)
    return LakehouseConfig.from_env(home=home)


@pytest.fixture(scope="session")
def spark(lakehouse):
    from python_extract.lakehouse import get_session

    return get_session(lakehouse)


@dataclass
class Names:
    """Per-test schema names: the staging dataset the extractor writes, the schema dbt builds into."""
    staging: str
    target: str


@pytest.fixture
def names(request) -> Names:
    slug = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40].strip("_")
    n = next(_counter)
    return Names(staging=f"raw_{n}_{slug}", target=f"dbt_{n}_{slug}")


class Dbt:
    """Runs dbt commands of integration_tests/ in this process, on the shared SparkSession."""

    def __init__(self, names: Names):
        self.names = names
        self.logs: List[str] = []

    def invoke(self, *args: str, vars: Optional[Dict[str, Any]] = None, expect_success: bool = True):
        import yaml
        from dbt.cli.main import dbtRunner

        os.environ["SPARKLOAD_TARGET_SCHEMA"] = self.names.target
        all_vars = {"staging_dataset": self.names.staging, **(vars or {})}
        cli = [*args, "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION),
               "--vars", yaml.safe_dump(all_vars)]
        events: List[str] = []
        result = dbtRunner(callbacks=[lambda e: events.append(e.info.msg)]).invoke(cli)
        self.logs.extend(events)
        if expect_success and not result.success:
            tail = "\n".join(events[-30:])
            raise AssertionError(f"dbt {' '.join(args)} failed: {result.exception}\n{tail}")
        return result

    def run(self, select: str, **kw):
        return self.invoke("run", "--select", select, **kw)


@pytest.fixture(scope="session")
def dbt_deps(spark):
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(["deps", "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION)])
    assert result.success, result.exception


@pytest.fixture
def dbt(dbt_deps, names) -> Dbt:
    return Dbt(names)


def rows(spark, sql: str, *, drop=("_dlt_id", "_dlt_load_id")) -> List[Dict[str, Any]]:
    """The result of `sql` as a list of dicts without the given columns, for whole-table asserts."""
    return [{k: v for k, v in r.asDict().items() if k not in drop} for r in spark.sql(sql).collect()]
