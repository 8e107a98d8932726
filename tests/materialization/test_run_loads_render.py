"""The run's shared read of pending loads rendered (fast tier; tests/materialization/test_run_loads.py judges it
on Spark): `_dlt_loads` is read once, then the ledger and `_sparkload_load_tables` by the load ids as escaped
literals, in a second statement that a run with no load of that status does not send; a second model of the run
reads nothing."""
from __future__ import annotations

import re
from typing import Dict, List

import pytest

from ..support.macros import Package, Relation, cfg

pytestmark = pytest.mark.fast

TARGET = Relation("target", "items")
ODD = "1700000000.2'x\\"  # a load id no extractor writes, to show the escaping


class Answering(Package):
    """A package whose `run_query` answers from `answers` (first word of the statement's select list -> rows)
    and records every statement; `adapter.sparkload_run_cache` is one dict for the run."""

    def __init__(self, answers: Dict[str, List[tuple]]):
        self.answers, self.queries, self.cache = answers, [], {}
        super().__init__()
        self.ctx["adapter"].sparkload_run_cache = lambda invocation: self.cache

    def _no_queries(self, sql):  # run_query
        text = " ".join(sql.split())
        self.queries.append(text)
        kind = re.match(r"select '(\w+)'", text).group(1)
        return self.answers.get(kind, [])


def _read(package: Answering):
    config = cfg(loads=Relation("raw", "_dlt_loads"), load_tables=Relation("raw", "_sparkload_load_tables"))
    return package["fetch_sparkload_run_loads"](config, TARGET)


def test_run_loads_render__loads_first_then_ledger_and_tables_by_escaped_literal_ids():
    package = Answering({
        "load": [("load", "1700000000.1", "2024-01-01 00:00:00", "shop"), ("load", ODD, "2024-01-02 00:00:00", "shop")],
        "applied": [("applied", "1700000000.1", "target.items")],
    })
    package.answers["applied"].append(("covered", ODD, "items"))
    found = _read(package)
    literal = package["sparkload_literal"]
    assert package.queries == [
        "select 'load', `load_id`, cast(`inserted_at` as string), `schema_name` from `raw`.`_dlt_loads` where `status` = 0",
        f"select 'applied', `load_id`, `target` from `target`.`_sparkload_applied_loads` where `load_id` in "
        f"('1700000000.1', {literal(ODD)}) union all select 'covered', `load_id`, `table_name` from "
        f"`raw`.`_sparkload_load_tables` where `load_id` in ('1700000000.1', {literal(ODD)})",
    ]
    assert literal(ODD) == "'1700000000.2\\'x\\\\'"
    assert dict(found) == {"loads": {"1700000000.1": ["2024-01-01 00:00:00", "shop"], ODD: ["2024-01-02 00:00:00", "shop"]},
                           "applied": {"target.items": {"1700000000.1": True}}, "tables": {ODD: ["items"]}, "fresh": True}
    # the run's next model takes the same read, and says it is not its own
    again = _read(package)
    assert len(package.queries) == 2 and again["fresh"] is False and again["loads"] == found["loads"]


def test_run_loads_render__no_load_of_the_status_sends_one_statement():
    package = Answering({})
    found = _read(package)
    assert [q.split(" from ")[0] for q in package.queries] == [
        "select 'load', `load_id`, cast(`inserted_at` as string), `schema_name`"]
    assert (found["loads"], found["applied"], found["tables"]) == ({}, {}, {})
