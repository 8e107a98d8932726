"""How the sparkload adapter fills dbt's relation cache (dbt/adapters/sparkload/impl.py, issue 37 goal 2):
one listing per schema, with each table's format known, and no `describe table extended` per table (dbt-spark
describes every table of a v2 catalog, such as the Iceberg lakehouse's, to learn its provider: a statement
per table in every run). Over thrift the adapter asks the server once which catalog it lists."""
from __future__ import annotations

import re

import pytest

from python_extract.lakehouse import session_format

pytestmark = [pytest.mark.dbt_targets("embedded", "sparkload_thrift"), pytest.mark.each_format, pytest.mark.over_the_wire,
              pytest.mark.wire_each_format]


@pytest.mark.extended(("delta", "sparkload_thrift"))  # the server's listing of Delta tables: embedded lists them the same way
def test_relation_listing__tables_are_listed_with_their_format_and_none_is_described(spark, stage, dbt, names):
    stage.load([{"id": 1, "name": "a"}], table="items")
    stage.load([{"id": 1, "name": "Ann"}], table="customers")
    dbt.run("up_pk cust_io")
    dbt.queries.clear()
    fmt = session_format(spark)
    result = dbt.invoke("compile", "--inline",
                        "{%- set r = load_relation(ref('up_pk')) -%} {{ r.type }} {{ r.is_iceberg }} {{ r.is_delta }}")
    assert result.result.results[0].node.compiled_code.split() == ["table", str(fmt == "iceberg"), str(fmt == "delta")]
    sent = [" ".join(re.sub(r"/\*.*?\*/", "", sql, flags=re.S).split()).lower() for _, sql in dbt.queries]
    assert any(s.startswith("show table") for s in sent), sent
    assert not [s for s in sent if s.startswith("describe")], sent
    # the models' columns are still described where dbt asks for them (the catalog of `docs generate`)
    catalog = dbt.invoke("docs", "generate", "--select", "up_pk").result
    columns = catalog.nodes["model.sparkload_integration_tests.up_pk"].columns
    assert {"id", "name"} <= set(columns), columns
