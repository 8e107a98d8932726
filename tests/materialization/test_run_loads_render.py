"""The run's shared read of pending loads rendered (fast tier; tests/materialization/test_run_loads.py judges it
on Spark): one statement returns the loads of the status that the run's models have not applied, each with
the model's target (the ledger compared in the statement, against the targets of the run's selected root
sparkload models that read that `_dlt_loads` and write into the ledger's schema); a second, by the pending
load ids as escaped literals, reads `_sparkload_load_tables`, and a run with nothing pending does not send it;
a second model of the run reads nothing, unless it has rows to apply: then the status of its loads and its ledger."""
from __future__ import annotations

import re
from typing import Dict, List

import pytest

from ..support.macros import Package, Relation, cfg

pytestmark = pytest.mark.fast

TARGET = Relation("target", "items")
ODD = "1700000000.2'x\\"  # a load id no extractor writes, to show the escaping


def _node(name: str, schema: str = "target", source: str = "source.p.shop.items", **config):
    return {"name": name, "schema": schema, "alias": name, "depends_on": {"nodes": [source]},
            "config": {"materialized": "sparkload", **config}}


# the run: two root models of `raw` into `target`; one into another schema; one reading another `_dlt_loads`;
# a child model; a model of another materialization; a sparkload model not selected
GRAPH = {
    "nodes": {
        "model.p.items": _node("items"), "model.p.orders": _node("orders"),
        "model.p.elsewhere": _node("elsewhere", schema="mart"),
        "model.p.other_loads": _node("other_loads", source="source.p.crm.people"),
        "model.p.named_loads": _node("named_loads", source="source.p.crm.people", loads_dataset="raw"),
        "model.p.child": _node("child", root_model="items"),
        "model.p.view": {**_node("view"), "config": {"materialized": "view"}},
        "model.p.unselected": _node("unselected"),
    },
    "sources": {"source.p.shop.items": {"schema": "raw"}, "source.p.crm.people": {"schema": "crm"}},
}
SELECTED = [n for n in GRAPH["nodes"] if n != "model.p.unselected"] + ["test.p.not_a_node"]


class Answering(Package):
    """A package whose `run_query` answers from `answers` (first word of the statement's select list -> rows)
    and records every statement; `adapter.sparkload_run_cache` is one dict for the run."""

    def __init__(self, answers: Dict[str, List[tuple]]):
        self.answers, self.queries, self.cache = answers, [], {}
        super().__init__(graph=GRAPH, selected_resources=SELECTED)
        self.ctx["adapter"].sparkload_run_cache = lambda invocation: self.cache

    def _no_queries(self, sql):  # run_query
        text = " ".join(sql.split())
        self.queries.append(text)
        kind = re.match(r"select '(\w+)'", text).group(1)
        return self.answers.get(kind, [])


def _read(package: Answering):
    config = cfg(loads=Relation("raw", "_dlt_loads"), load_tables=Relation("raw", "_sparkload_load_tables"))
    return package["fetch_sparkload_run_loads"](config, TARGET)


def test_run_loads_render__pending_pairs_first_then_tables_by_escaped_literal_ids():
    package = Answering({
        "pending": [("pending", "1700000000.1", "2024-01-01 00:00:00", "shop", "target.orders"),
                    ("pending", ODD, "2024-01-02 00:00:00", "shop", "target.items"),
                    ("pending", ODD, "2024-01-02 00:00:00", "shop", "target.orders")],
        "covered": [("covered", ODD, "items")],
    })
    found = _read(package)
    literal = package["sparkload_literal"]
    assert package.queries == [
        "select 'pending', l.`load_id`, cast(l.`inserted_at` as string), l.`schema_name`, t.`target` "
        "from `raw`.`_dlt_loads` as l cross join (values ('target.items'), ('target.named_loads'), ('target.orders')) as t(`target`) "
        "left anti join `target`.`_sparkload_applied_loads` as g on g.`load_id` = l.`load_id` and g.`target` = t.`target` "
        "where l.`status` = 0",
        f"select 'covered', `load_id`, `table_name` from `raw`.`_sparkload_load_tables` where `load_id` in "
        f"('1700000000.1', {literal(ODD)})",
    ]
    assert literal(ODD) == "'1700000000.2\\'x\\\\'"
    assert dict(found) == {
        "targets": {"target.items": True, "target.orders": True, "target.named_loads": True},
        "pending": {"target.orders": {"1700000000.1": True, ODD: True}, "target.items": {ODD: True}},
        "loads": {"1700000000.1": ["2024-01-01 00:00:00", "shop"], ODD: ["2024-01-02 00:00:00", "shop"]},
        "tables": {ODD: ["items"]}, "fresh": True}
    # the run's next model takes the same read, and says it is not its own
    again = _read(package)
    assert len(package.queries) == 2 and again["fresh"] is False and again["pending"] == found["pending"]


def test_run_loads_render__nothing_pending_sends_one_statement():
    package = Answering({})
    found = _read(package)
    assert [q.split(" from ")[0] for q in package.queries] == [
        "select 'pending', l.`load_id`, cast(l.`inserted_at` as string), l.`schema_name`, t.`target`"]
    assert (found["pending"], found["loads"], found["tables"]) == ({}, {}, {})


@pytest.mark.parametrize("target, uses", [(TARGET, True), (Relation("target", "unselected"), False)])
def test_run_loads_render__only_a_model_the_read_was_made_for_takes_it(target, uses):
    """A model whose target is not among the read's (here: not selected, so the read did not compare its ledger)
    reads its pending loads itself: the shared read would show it nothing pending."""
    package = Answering({"pending": [("pending", "1700000000.1", "2024-01-01 00:00:00", "shop", "target.orders")]})
    package.ctx["adapter"].type = lambda: "sparkload"
    package.ctx["model"]["depends_on"] = {"nodes": ["source.p.shop.items"]}
    config = cfg(loads=Relation("raw", "_dlt_loads"), load_tables=Relation("raw", "_sparkload_load_tables"),
                 staging_table="items", change_data_feed=None)
    shared = package["fetch_sparkload_shared_pending"](config, target, target, False)
    if uses:
        assert shared == {"pending": {"ids": [], "inserted_at": {}, "pipelines": {}, "covered": [], "done": [],
                                      "root_skipped": []}, "idle": True}
    else:
        assert shared is None


def test_run_loads_render__a_later_pending_model_reads_again_only_its_loads_status_and_ledger():
    """A model with rows to apply that takes a read an earlier model made reads again, by the loads' escaped
    literal ids, their status and its ledger: a load applied by another run since (in its ledger), or aborted
    since (its status no longer 0), is dropped; the rest is the shared read's. The model that made the read
    uses it as it is."""
    package = Answering({
        "pending": [("pending", "1700000000.1", "2024-01-01 00:00:00", "shop", "target.items"),
                    ("pending", "1700000000.2", "2024-01-02 00:00:00", "shop", "target.items"),
                    ("pending", ODD, "2024-01-03 00:00:00", "shop", "target.items"),
                    ("pending", "1700000000.4", "2024-01-04 00:00:00", "shop", "target.items")],
        "covered": [("covered", i, "items") for i in ("1700000000.1", "1700000000.2", ODD, "1700000000.4")],
        # the re-read (one statement, so one answer): still status 0 .1, .2 and ODD (.4 was aborted); in the
        # ledger .2 (another run applied it)
        "load": [("load", "1700000000.1"), ("load", "1700000000.2"), ("load", ODD), ("applied", "1700000000.2")],
    })
    package.ctx["adapter"].type = lambda: "sparkload"
    package.ctx["model"]["depends_on"] = {"nodes": ["source.p.shop.items"]}
    config = cfg(loads=Relation("raw", "_dlt_loads"), load_tables=Relation("raw", "_sparkload_load_tables"),
                 staging_table="items", change_data_feed=None, load_status_in=0)
    first = package["fetch_sparkload_shared_pending"](config, TARGET, TARGET, False)
    assert len(package.queries) == 2 and first["idle"] is False
    assert first["pending"]["ids"] == ["1700000000.1", "1700000000.2", ODD, "1700000000.4"]
    later = package["fetch_sparkload_shared_pending"](config, TARGET, TARGET, False)
    literal = package["sparkload_literal"]
    ids = f"('1700000000.1', '1700000000.2', {literal(ODD)}, '1700000000.4')"
    assert package.queries[2:] == [
        f"select 'load', `load_id` from `raw`.`_dlt_loads` where `status` = 0 and `load_id` in {ids} "
        f"union all select 'applied', `load_id` from `target`.`_sparkload_applied_loads` "
        f"where `target` = 'target.items' and `load_id` in {ids}"]
    assert later == {"pending": {"ids": ["1700000000.1", ODD],
                                 "inserted_at": {"1700000000.1": "2024-01-01 00:00:00", ODD: "2024-01-03 00:00:00"},
                                 "pipelines": {"1700000000.1": "shop", ODD: "shop"},
                                 "covered": ["1700000000.1", ODD], "done": [], "root_skipped": []}, "idle": False}


@pytest.mark.parametrize("given, expected", [(None, 20), (2, 2), (500, 500), ("none", None), ("OFF", None), (False, None)])
def test_run_loads_render__compact_ledger_at_takes_files_or_none(given, expected):
    package = Package(variables={} if given is None else {"sparkload_compact_ledger_at": given})
    assert package["validate_sparkload_compact_ledger_at"]() == expected


@pytest.mark.parametrize("given", [1, 0, -3, True, 2.5, "20", "never", [20]])
def test_run_loads_render__compact_ledger_at_refuses_anything_else_in_one_line(given):
    package = Package(variables={"sparkload_compact_ledger_at": given})
    with pytest.raises(AssertionError, match=r"^compiler error: --vars sparkload_compact_ledger_at=.* is not valid; "
                                             r"expected an integer >= 2 \(files\), or none\. Nothing was changed\.$"):
        package["validate_sparkload_compact_ledger_at"]()


def test_run_loads_render__a_ledger_compacts_by_its_format():
    package = Package()
    ledger = Relation("tar`get", "_sparkload_applied_loads")
    assert package["get_sparkload_compact_sql"](ledger, "iceberg", 33554432, 20) == (
        "call system.rewrite_data_files(table => '`tar``get`.`_sparkload_applied_loads`', options => map("
        "'partial-progress.enabled', 'true', 'min-input-files', '20', 'delete-file-threshold', '1', "
        "'min-file-size-bytes', '33554432'))")
    assert package["get_sparkload_compact_sql"](ledger, "delta", 33554432, 20) == "optimize `tar``get`.`_sparkload_applied_loads`"
