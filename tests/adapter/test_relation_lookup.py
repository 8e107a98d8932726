"""The adapter's `get_relation` (found by the relation cache's key, issue 37) against dbt-core's own (a pass
over the schema's cached relations), on the same cache: every lookup gives the same relation, None, or the
same error, whatever the case of the names and the project's quoting. dbt's adapter suite (this folder) runs
the adapter's lookups on real Spark; here the two answers are compared where they could differ."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from dbt.adapters.base.impl import BaseAdapter
from dbt.adapters.cache import RelationsCache
from dbt.adapters.exceptions.compilation import ApproximateMatchError

from dbt.adapters.sparkload.impl import SparkloadAdapter

pytestmark = pytest.mark.fast

CACHED = [("analytics", "orders"), ("analytics", "Customers"), ("analytics", "_sparkload_applied_loads"),
          ("Raw", "items"), ("raw", "events")]  # "Raw" and "raw" are one schema to the cache
LOOKUPS = [(schema, name) for schema in ("analytics", "ANALYTICS", "raw", "Raw", "other")
           for name in ("orders", "ORDERS", "customers", "Customers", "items", "events", "missing")]


def adapter(quote_identifier: bool, quote_schema: bool) -> SparkloadAdapter:
    """An adapter with a filled relation cache and the given quoting, without a connection (every lookup
    here is of a cached schema, which sends no statement)."""
    a = object.__new__(SparkloadAdapter)
    a.config = SimpleNamespace(quoting={"database": False, "schema": quote_schema, "identifier": quote_identifier})
    a.cache = RelationsCache()
    for schema, name in CACHED:
        a.cache.add(SparkloadAdapter.Relation.create(schema=schema, identifier=name, type="table"))
    a.cache.update_schemas([(None, "analytics"), (None, "raw")])
    return a


def answer(lookup, *args):
    try:
        found = lookup(*args)
    except ApproximateMatchError as e:
        return ("ApproximateMatchError", str(e))
    return None if found is None else (found.schema, found.identifier)


@pytest.mark.parametrize("quote_identifier,quote_schema", list(itertools.product([False, True], repeat=2)))
def test_lookup__same_answer_as_dbt_core(quote_identifier, quote_schema):
    a = adapter(quote_identifier, quote_schema)
    cached = [(schema, name) for schema, name in LOOKUPS if schema.lower() != "other"]
    answers = {(s, n): answer(a.get_relation, None, s, n) for s, n in cached}
    assert answers == {(s, n): answer(lambda *x: BaseAdapter.get_relation(a, *x), None, s, n) for s, n in cached}
    # the lookups meet every kind of answer, so none of them is compared only on None
    kinds = {v if v is None else v[0] for v in answers.values()}
    assert None in kinds and "ApproximateMatchError" in kinds or quote_identifier is False
    assert any(v is not None and v[0] != "ApproximateMatchError" for v in answers.values())


def test_lookup__found_by_key_not_by_listing(monkeypatch):
    """A cached schema's lookup does not list the schema (dbt-core's pass over every cached relation)."""
    a = adapter(False, False)
    monkeypatch.setattr(RelationsCache, "get_relations", lambda *_: pytest.fail("listed the schema"))
    assert answer(a.get_relation, None, "analytics", "ORDERS") == ("analytics", "orders")
    assert answer(a.get_relation, None, "raw", "missing") is None


def test_lookup__uncached_schema_goes_dbts_way(monkeypatch):
    a = adapter(False, False)
    asked = []
    monkeypatch.setattr(BaseAdapter, "get_relation", lambda self, *x: asked.append(x) or None)
    assert a.get_relation(None, "other", "orders") is None
    assert a.get_relation(None, "analytics", None) is None  # no name: dbt's listing (and its error for several)
    assert asked == [(None, "other", "orders"), (None, "analytics", None)]
