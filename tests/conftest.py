"""The fixtures every test folder shares: one embedded lakehouse and one SparkSession for the whole run, dbt
invoked in-process (dbtRunner) on that session against integration_tests/ (`Dbt`, tests/support/dbt.py), and
the run's servers (tests/support/shared_servers.py).

Each test gets its own staging dataset and target schema (`names` fixture), so tests never see each
other's tables although they share the lakehouse.

Servers and other long-lived processes a test starts are guarded by the run's `watchdog` (a process that
ends them when this pytest dies, even by SIGKILL): `watchdog.guard_group(pgid)`, `guard_pid(pid)`,
`guard_pidfile(path)`.

The run itself is set up by plugins in tests/support/: its options, markers and JVM settings (`run_setup`),
the fast tier and its guards (`fast_tier`: tests marked `fast`, no JVM, no dbt run, run first), the order
and the format's selection of tests (`run_order`) and the summary lines (`summary`).
"""
from __future__ import annotations

import itertools
import os
import re

import pytest

pytest.register_assert_rewrite("tests.support")  # the helpers' asserts explain themselves, as a conftest's do

from .support.shared_servers import connect_server, thrift_server  # noqa: E402,F401  (fixtures, shared by every test folder)
from .support.dbt import DEPS_INSTALLED, SERVER_TARGETS, Dbt, Names, install_dbt_deps  # noqa: E402

pytest_plugins = ["tests.support.run_setup", "tests.support.fast_tier", "tests.support.run_order", "tests.support.summary"]

_counter = itertools.count(1)


@pytest.fixture(scope="session")
def watchdog():
    from python_extract.runtime.processes import Watchdog

    dog = Watchdog()
    yield dog
    dog.close()


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


@pytest.fixture
def names(request) -> Names:
    slug = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40].strip("_")
    n = next(_counter)
    return Names(staging=f"raw_{n}_{slug}", target=f"dbt_{n}_{slug}")


@pytest.fixture(scope="session")
def dbt_deps(spark):
    """`dbt deps` of integration_tests/, once per run; under xdist the controller ran it before the workers
    started (it replaces dbt_packages/, which a worker's dbt run may be reading)."""
    if os.environ.get(DEPS_INSTALLED) != "1":
        install_dbt_deps()


@pytest.fixture
def dbt_target(request) -> str:
    return request.param


@pytest.fixture
def dbt(dbt_deps, names, dbt_target, request) -> Dbt:
    if dbt_target in SERVER_TARGETS:
        request.getfixturevalue("thrift_server")
    return Dbt(names, dbt_target)
