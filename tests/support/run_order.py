"""A pytest plugin (loaded by tests/conftest.py): the order of a run and the tests a run's format keeps.

Under xdist, the tests of one file run on one worker (module- and class-wide fixtures run once), and those
of a folder in ONE_WORKER_FOLDERS too (tests/parity shares one differential batch). The run hands out the
fast tier first (tests/support/fast_tier.py), then the execution tier's groups longest first by the seconds
each took in a whole run (`group_seconds`), so that a worker's last group is a short one; `make test` passes
`--no-loadscope-reorder`, so xdist keeps this order. A whole run records its groups' seconds in pytest's cache.
"""
from __future__ import annotations

from typing import Dict

import pytest

from .fast_tier import is_fast
from .paths import REPO
from .run_setup import DEFAULT_FORMAT, MAIN_FORMAT, XDIST_WORKER
from .summary import add_summary

# folders whose files share session-wide work: tests/parity runs every scenario of the session's tests
# in one batch (its `parity` fixture), which two workers would each run whole
ONE_WORKER_FOLDERS = ("tests/parity/",)
GROUP_SECONDS = REPO / "tests" / "group_seconds.json"  # {format: {group: seconds}}, see group_seconds()
GROUP_SECONDS_KEY = "sparkload/group_seconds"


def group_of(nodeid: str) -> str:
    """The xdist group of a test: its file, or its folder if that is one of ONE_WORKER_FOLDERS."""
    path = nodeid.split("::")[0]
    return next((folder for folder in ONE_WORKER_FOLDERS if path.startswith(folder)), path)


def group_seconds(config) -> Dict[str, float]:
    """Seconds each group took in a whole run: GROUP_SECONDS (measured in a full run on a quiet machine and
    checked in, so a fresh clone orders by it too), overridden by what this checkout's last runs measured
    (pytest's cache, written by the controller at the end of each run)."""
    import json

    recorded = json.loads(GROUP_SECONDS.read_text()) if GROUP_SECONDS.exists() else {}
    seconds = recorded.get(config.getoption("--table-format"), {})
    cache = getattr(config, "cache", None)
    seconds.update(cache.get(_seconds_key(config), {}) if cache else {})
    return seconds


def _seconds_key(config) -> str:
    return f"{GROUP_SECONDS_KEY}/{config.getoption('--table-format')}"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Under xdist, the tests of one file run on one worker (module- and class-wide fixtures run once),
    and those of a folder in ONE_WORKER_FOLDERS too.

    The order of the run: the fast tier (tests marked fast) first, then the groups of the execution tier, longest
    first (as measured, `group_seconds`), so that the last group a worker takes is a short one. `make test`
    passes `--no-loadscope-reorder`, so xdist hands out groups in this order (its own order is by number
    of tests)."""
    run_format = config.getoption("--table-format")
    for item in items:  # a test of one format's own behaviour, in a run on another
        only = item.get_closest_marker("only_on")
        if only and run_format not in only.args:
            item.add_marker(pytest.mark.skip(reason=f"{' and '.join(only.args)}'s own behaviour: runs in the "
                                                    f"--table-format {only.args[0]} run of make test"))
        elif (item.get_closest_marker("default_format") and not item.get_closest_marker("each_format")
              and run_format != DEFAULT_FORMAT):
            item.add_marker(pytest.mark.skip(reason=f"runs once, in the --table-format {DEFAULT_FORMAT} run of make "
                                                    "test (the product's default format, as dbt-spark runs dbt's suite)"))
    if run_format != MAIN_FORMAT and not config.getoption("--every-test"):
        def on_this_format(item) -> bool:
            only = item.get_closest_marker("only_on")
            return (bool(item.get_closest_marker("each_format")) or bool(only and run_format in only.args)
                    or bool(item.get_closest_marker("default_format") and run_format == DEFAULT_FORMAT))

        kept = [item for item in items if on_this_format(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if not on_this_format(item)])
            items[:] = kept
    if config.getoption("--suite") == "ci":
        def extended_here(item) -> bool:
            """Marked extended with no arguments, or naming the run's format or the item's dbt target, or both
            in a tuple (`extended(("iceberg", "embedded"))`: the embedded variant in the Iceberg run)."""
            callspec = getattr(item, "callspec", None)
            here = {run_format, callspec.params.get("dbt_target") if callspec else None}
            return any(not marker.args or any(set(arg) <= here if isinstance(arg, tuple) else arg in here
                                              for arg in marker.args)
                       for marker in item.iter_markers("extended"))

        left_out = [item for item in items if extended_here(item)]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if not extended_here(item)]
            if XDIST_WORKER in (None, "gw0"):  # every worker collects the same tests: one line for the run
                add_summary(config, "", [f"--suite ci: {len(left_out)} tests marked extended left out (variants of what "
                                         "the run's tests cover); make test-all runs them"])
    seconds = group_seconds(config)
    first_seen: Dict[str, int] = {}
    for index, item in enumerate(items):
        group = group_of(item.nodeid)
        first_seen.setdefault(group, index)
        item.add_marker(pytest.mark.xdist_group(group))

    def rank(item):
        group = group_of(item.nodeid)
        return (not is_fast(item), -seconds.get(group, 0.0), first_seen[group])

    items.sort(key=rank)  # stable: the tests of a group keep their order


_measured: Dict[str, float] = {}


def pytest_runtest_logreport(report):
    """In the controller (or a run without workers): the seconds of each group, setup and teardown included."""
    if not XDIST_WORKER:
        group = group_of(report.nodeid)
        _measured[group] = _measured.get(group, 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    """Keep the groups' seconds of a whole run (no paths, -k or -m given; not stopped by -x or Ctrl-C)."""
    config = session.config
    cache = getattr(config, "cache", None)
    whole = config.args in ([], ["tests"], [str(REPO / "tests")]) and not config.option.keyword and not config.option.markexpr
    if XDIST_WORKER or not cache or not _measured or not whole or exitstatus not in (0, 1) or session.shouldstop:
        return
    seconds = cache.get(_seconds_key(config), {})
    seconds.update({group: round(s, 1) for group, s in _measured.items()})
    cache.set(_seconds_key(config), seconds)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """In the controller of `--dist loadgroup`: each worker has suffixed the ids of its grouped tests with
    `@group`. A run where it did not (pytest-xdist#1386: pytest 9.2 reads ids that xdist 3.8 no longer
    rewrites) would spread one file's tests over both workers and do its module-wide work twice, silently,
    so it stops here instead."""
    if node.config.getvalue("dist") == "loadgroup":
        ungrouped = [nodeid for nodeid in ids if "@" not in nodeid.rsplit("]", 1)[-1]]
        if ungrouped:
            pytest.exit(f"pytest-xdist's --dist loadgroup did not group {len(ungrouped)} of {len(ids)} tests (first: "
                        f"{ungrouped[0]}; pytest {pytest.__version__}): pytest-xdist#1386, keep pytest<9.2 "
                        "(pyproject.toml, the test extra)", returncode=3)
