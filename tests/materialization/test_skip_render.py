"""`--vars sparkload_skip_loads` (macros/helpers/skip.sql) rendered with dbt's Jinja and a stub adapter: which
pending loads a model skips, and each malformed var refused in one message naming what is wrong, before any
statement. A fast tier only: tests/materialization/test_skip_loads.py judges the behaviour on real Spark."""
from __future__ import annotations

import pytest

from ..support.macros import Package, Relation, cfg

pytestmark = pytest.mark.fast

TARGET = Relation("analytics", "items")
PENDING = {"ids": ["1.2", "1.3"], "inserted_at": {"1.2": "t2", "1.3": "t3"}, "pipelines": {"1.2": "shop", "1.3": "shop"},
           "covered": ["1.3"], "done": ["1.1"], "root_skipped": []}
GRAPH = {"nodes": {f"model.p.{name}": {"resource_type": "model", "name": name,
                                       "config": {"materialized": "sparkload", **({"root_model": root} if root else {})}}
                   for name, root in (("items", None), ("items__tags", "items"), ("orders", None))}}


def skipped(asked, pending=PENDING, **over):
    package = Package(variables={} if asked is None else {"sparkload_skip_loads": asked}, graph=GRAPH)
    return package["validate_sparkload_skip_loads"](TARGET, cfg(**over), pending)


def test_skip_loads__names_the_pending_loads_this_model_skips():
    assert skipped({"items": ["1.3"], "orders": ["9.9"]}) == ["1.3"]
    assert skipped({"items": "1.2"}) == ["1.2"]  # one id alone
    assert skipped(None) == [] and skipped({"orders": ["1.2"]}) == []  # another model's skip is not this one's


def test_skip_loads__a_load_already_in_the_ledger_is_no_error_so_a_rerun_changes_nothing():
    assert skipped({"items": ["1.1", "1.2"]}) == ["1.2"]


def test_skip_loads__a_child_model_skips_what_its_root_skipped():
    assert skipped(None, dict(PENDING, root_skipped=["1.0"])) == ["1.0"]


@pytest.mark.parametrize("asked, message", [
    (["1.2"], r"--vars sparkload_skip_loads=\['1.2'\] is not a mapping of model names to the load ids each skips, "
              r"e.g. --vars \"{sparkload_skip_loads: {items: \['1732240000.12'\]}}\"."),
    ({"itmes": ["1.2"]}, r"--vars sparkload_skip_loads names `itmes`, which is not a sparkload model of this project "
                         r"\(they are items, items__tags, orders\)"),
    ({"items__tags": ["1.2"]}, r"names the child model `items__tags`; a child model skips the loads its root skips: "
                               r"name its root model `items` instead."),
    ({"items": [1.2]}, r"gives load id 1.2, a number, not text: quote each load id"),
    ({"items": {"1.2": True}}, r"gives items: {'1.2': True}; expected a list of load ids"),
    ({"items": ["1.7"]}, r"names load 1.7, which is not a load this model has to apply \(pending: 1.2, 1.3; completed "
                         r"loads with status 0 in raw._dlt_loads\)."),
])
def test_skip_loads__a_malformed_var_is_refused_naming_what_is_wrong(asked, message):
    with pytest.raises(AssertionError, match=r"compiler error: sparkload model items \(table analytics.items\): .*" + message):
        skipped(asked)


def test_pending_without__keeps_the_other_loads_with_what_is_known_of_them():
    package = Package()
    kept = package["sparkload_pending_without"](PENDING, ["1.2"])
    assert kept == {"ids": ["1.3"], "inserted_at": {"1.3": "t3"}, "pipelines": {"1.3": "shop"}, "covered": ["1.3"],
                    "done": ["1.1"], "root_skipped": []}


def test_record_loads__a_skipped_load_has_no_applied_at():
    package = Package()
    package["run_sparkload_record_skipped_loads"](Relation("analytics", "_sparkload_applied_loads"), TARGET, ["1.2"])
    assert " ".join(package.statements[-1].split()) == (
        "insert into `analytics`.`_sparkload_applied_loads` values ('analytics.items', '1.2', cast(null as timestamp))")
