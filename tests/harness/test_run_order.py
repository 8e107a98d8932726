"""The order a run hands its files to the xdist workers (`tests/support/run_order.py`): the fast tier (tests marked
`fast`, wherever their folder) first, then the
execution tier's groups longest first by their measured seconds, a group's tests kept together and in order."""
from __future__ import annotations

import json

import pytest

from tests.support import run_order as root

pytestmark = pytest.mark.fast


class Item:
    def __init__(self, nodeid, markers=(), dbt_target=None):
        self.nodeid = nodeid
        if dbt_target:
            self.callspec = type("CallSpec", (), {"params": {"dbt_target": dbt_target}})()
        self.markers = [getattr(pytest.mark, m).mark if isinstance(m, str) else m.mark for m in markers]

    def add_marker(self, marker):
        self.markers.append(getattr(marker, "mark", marker))

    def get_closest_marker(self, name):
        return next(self.iter_markers(name), None)

    def iter_markers(self, name):
        return (m for m in self.markers if m.name == name)


class Cache:
    def __init__(self, seconds):
        self.seconds = seconds

    def get(self, key, default):
        return self.seconds if key == f"{root.GROUP_SECONDS_KEY}/iceberg" else default


class Config:
    def __init__(self, seconds=None, table_format="iceberg", every_test=False, suite="all"):
        self.cache = Cache(seconds or {})
        self.options = {"--table-format": table_format, "--every-test": every_test, "--suite": suite}
        self.deselected = []
        self.hook = type("Hook", (), {"pytest_deselected": lambda _, items: self.deselected.extend(items)})()

    def getoption(self, name):
        return self.options[name]


COLLECTED = [
    "tests/adapter/test_basic.py::test_a", "tests/adapter/test_basic.py::test_b",
    "tests/extract/test_normalize.py::test_names",
    "tests/materialization/test_faults.py::test_kill[x]", "tests/materialization/test_faults.py::test_kill[y]",
    "tests/parity/test_differential.py::test_scenario[one]", "tests/parity/test_generated.py::test_generated[two]",
    "tests/test_contract.py::test_lists", "tests/test_docs.py::test_links",
]
FAST = {"tests/extract/test_normalize.py::test_names", "tests/test_contract.py::test_lists"}  # marked fast


def ordered(seconds):
    items = [Item(nodeid, ["fast"] if nodeid in FAST else []) for nodeid in COLLECTED]
    root.pytest_collection_modifyitems(Config(seconds), items)
    return [item.nodeid for item in items], items


def test_run_order__fast_tier_first_then_longest_groups_first_each_group_together():
    order, items = ordered({"tests/parity/": 700.0, "tests/materialization/test_faults.py": 150.0,
                            "tests/adapter/test_basic.py": 20.0})
    assert order == [
        "tests/extract/test_normalize.py::test_names", "tests/test_contract.py::test_lists",
        "tests/parity/test_differential.py::test_scenario[one]", "tests/parity/test_generated.py::test_generated[two]",
        "tests/materialization/test_faults.py::test_kill[x]", "tests/materialization/test_faults.py::test_kill[y]",
        "tests/adapter/test_basic.py::test_a", "tests/adapter/test_basic.py::test_b",
        "tests/test_docs.py::test_links",  # not measured: after the measured ones, in collection order
    ]
    groups = {item.nodeid: item.get_closest_marker("xdist_group").args[0] for item in items}
    assert groups["tests/parity/test_generated.py::test_generated[two]"] == "tests/parity/"  # one worker for the batch
    assert groups["tests/adapter/test_basic.py::test_b"] == "tests/adapter/test_basic.py"


def test_run_order__a_run_on_delta_keeps_only_the_tests_marked_each_format_unless_every_test():
    items = [Item("tests/test_lakehouse.py::test_pin", ["each_format"]), Item("tests/test_contract.py::test_lists", ["fast"]),
             Item("tests/deploy/test_warm.py::test_warm")]
    config = Config(table_format="delta")
    root.pytest_collection_modifyitems(config, items)
    assert [i.nodeid for i in items] == ["tests/test_lakehouse.py::test_pin"]
    assert [i.nodeid for i in config.deselected] == ["tests/test_contract.py::test_lists", "tests/deploy/test_warm.py::test_warm"]
    every = [Item("tests/test_lakehouse.py::test_pin", ["each_format"]), Item("tests/deploy/test_warm.py::test_warm")]
    root.pytest_collection_modifyitems(Config(table_format="delta", every_test=True), every)
    assert len(every) == 2
    on_iceberg = [Item("tests/test_lakehouse.py::test_pin", ["each_format"]), Item("tests/deploy/test_warm.py::test_warm")]
    root.pytest_collection_modifyitems(Config(), on_iceberg)
    assert len(on_iceberg) == 2


def test_run_order__the_ci_suite_leaves_out_the_extended_tests_of_the_runs_format(monkeypatch):
    lines = []
    monkeypatch.setattr(root, "add_summary", lambda config, section, added: lines.extend(added))
    monkeypatch.setattr(root, "XDIST_WORKER", None)  # as a run without workers (one worker of a run adds the line)

    def collected():
        return [Item("tests/a.py::test_kept"), Item("tests/a.py::test_variant", ["extended"]),
                Item("tests/b.py::test_delta_variant", ["each_format", pytest.mark.extended("delta")]),
                Item("tests/c.py::test_variant_of_both", ["each_format", pytest.mark.extended("iceberg"), "extended"]),
                Item("tests/d.py::test_strategy[embedded]", ["each_format", pytest.mark.extended("thrift")], "embedded"),
                Item("tests/d.py::test_strategy[thrift]", ["each_format", pytest.mark.extended("thrift")], "thrift"),
                # a (format, target) tuple: only that target's variant, only in that format's run
                Item("tests/e.py::test_core[embedded]", ["each_format", pytest.mark.extended(("iceberg", "embedded"))], "embedded"),
                Item("tests/e.py::test_core[thrift]", ["each_format", pytest.mark.extended(("iceberg", "embedded"))], "thrift")]

    for table_format, suite, kept in (
            ("iceberg", "all", ["tests/a.py::test_kept", "tests/a.py::test_variant", "tests/b.py::test_delta_variant",
                                "tests/c.py::test_variant_of_both", "tests/d.py::test_strategy[embedded]",
                                "tests/d.py::test_strategy[thrift]", "tests/e.py::test_core[embedded]",
                                "tests/e.py::test_core[thrift]"]),
            ("iceberg", "ci", ["tests/a.py::test_kept", "tests/b.py::test_delta_variant", "tests/d.py::test_strategy[embedded]",
                               "tests/e.py::test_core[thrift]"]),
            ("delta", "all", ["tests/b.py::test_delta_variant", "tests/c.py::test_variant_of_both",
                              "tests/d.py::test_strategy[embedded]", "tests/d.py::test_strategy[thrift]",
                              "tests/e.py::test_core[embedded]", "tests/e.py::test_core[thrift]"]),
            ("delta", "ci", ["tests/d.py::test_strategy[embedded]", "tests/e.py::test_core[embedded]",
                             "tests/e.py::test_core[thrift]"])):
        items, config = collected(), Config(table_format=table_format, suite=suite)
        root.pytest_collection_modifyitems(config, items)
        assert [i.nodeid for i in items] == kept, (table_format, suite)
    assert lines == [f"--suite ci: {n} tests marked extended left out (variants of what the run's tests cover); make "
                     "test-all runs them" for n in (4, 3)]


def test_run_order__this_checkouts_measurements_override_the_checked_in_ones():
    checked_in = json.loads(root.GROUP_SECONDS.read_text())["iceberg"]
    assert checked_in["tests/parity/"] > checked_in.get("tests/adapter/test_basic.py", 0.0)
    order, _ = ordered({"tests/adapter/test_basic.py": checked_in["tests/parity/"] + 1})
    assert order.index("tests/adapter/test_basic.py::test_a") < order.index("tests/parity/test_differential.py::test_scenario[one]")


def test_run_order__every_checked_in_group_is_a_file_or_folder_of_the_suite():
    missing = [group for groups in json.loads(root.GROUP_SECONDS.read_text()).values() for group in groups
               if not (root.REPO / group).exists()]
    assert not missing, f"tests/group_seconds.json names groups that no longer exist: {missing}"


class WritableCache(Cache):
    def set(self, key, value):
        assert key == f"{root.GROUP_SECONDS_KEY}/iceberg"
        self.seconds = value


class Session:
    def __init__(self, args, keyword="", shouldstop=False):
        self.config = Config()
        self.config.cache = WritableCache({"tests/old.py": 5.0})
        self.config.args = args
        self.config.option = type("Option", (), {"keyword": keyword, "markexpr": ""})()
        self.shouldstop = shouldstop


class Report:
    def __init__(self, nodeid, duration):
        self.nodeid, self.duration = nodeid, duration


def _finish(session, exitstatus=0):
    """Three reports and the end of `session`, on a record of their own (not this run's)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(root, "_measured", {})
        patch.setattr(root, "XDIST_WORKER", None)  # as the controller
        for nodeid, seconds in (("tests/parity/test_generated.py::a", 2.0), ("tests/parity/test_differential.py::b", 3.0),
                                ("tests/adapter/test_basic.py::c", 1.25)):
            root.pytest_runtest_logreport(Report(nodeid, seconds))
        root.pytest_sessionfinish(session, exitstatus)
    return session.config.cache.seconds


def test_run_order__a_whole_run_records_each_groups_seconds_a_partial_one_records_nothing():
    assert _finish(Session([])) == {"tests/old.py": 5.0, "tests/parity/": 5.0, "tests/adapter/test_basic.py": 1.2}
    assert _finish(Session(["tests"]))["tests/parity/"] == 5.0
    for partial in (Session(["tests/adapter"]), Session([], keyword="basic"), Session([], shouldstop=True)):
        assert _finish(partial) == {"tests/old.py": 5.0}
    assert _finish(Session([]), exitstatus=2) == {"tests/old.py": 5.0}  # interrupted
