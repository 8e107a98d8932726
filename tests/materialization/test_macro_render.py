"""The package's macros rendered with dbt's own Jinja and a stub adapter (no JVM, no dbt run): the SQL
shape of each strategy's statement (one MERGE whose source is a list of named steps), quoting and
escaping, the dispatch convention (one wrapper per overridable macro) and a read-only validated config.
A fast tier only: what the statements do is judged on real Spark (tests/materialization/)."""
from __future__ import annotations

import re

import pytest

from ..support.macros import COLUMNS, MACROS, Package, Relation, args, cfg, ctes, sql_of

pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def package() -> Package:
    return Package()


def test_render__delete_insert_merges_from_named_steps(package):
    sql = sql_of(package, args(cfg(primary_key=["id"], merge_key=["na`me"], hard_delete="deleted")))
    assert sql.startswith("merge into `target`.`items` as t using ( with `batch` as ( select * from `raw`.`items` ),")
    assert ctes(sql) == ["batch", "inserts", "deleted_keys"]
    assert "from `inserts` union all select" in sql and "'delete' from `deleted_keys` ) as s" in sql
    assert "`na``me`" in sql and "na`me" not in sql.replace("`na``me`", "")
    assert "coalesce(s.`deleted`, false)" in sql
    assert sql.count("merge into") == 1 and "when matched then delete" in sql


def test_render__upsert_merges_the_surviving_rows_of_a_named_step(package):
    sql = sql_of(package, args(cfg(strategy="upsert")))
    assert ctes(sql) == ["batch", "survivors"]
    assert "(t.`id`) in ((cast('1' as bigint)), (cast('3' as bigint)))" in sql
    assert "when matched then update set t.`id` = s.`id`" in sql
    # the duplicate-key check names the pipeline of the loads in its abort hint
    assert "sparkload pipeline loads shop --dataset-name raw --abort " in sql


def test_render__insert_only_inserts_unknown_keys_oldest_load_first(package):
    sql = sql_of(package, args(cfg(strategy="insert-only", hard_delete="deleted")))
    assert ctes(sql) == ["batch", "records"]
    assert "order by `_dlt_load_id` asc" in sql
    assert "where not coalesce(b.`deleted`, false)" in sql
    assert "when matched and false then delete when not matched then insert" in sql
    assert "update set" not in sql


def test_render__insert_only_into_a_new_table_creates_it_from_the_records(package):
    sql = sql_of(package, args(cfg(strategy="insert-only"), into_empty=True))
    assert sql.startswith("create or replace table `target`.`items` using iceberg tblproperties ('format-version' = '2')")


@pytest.mark.parametrize("key_values, form, steps", [
    ([["1"]], "snapshot", ["batch", "versions"]),
    (None, "per key", ["batch", "versions", "record_versions"]),
])
def test_render__scd2_merges_the_versions_of_named_steps(package, key_values, form, steps):
    a = args(cfg(strategy="scd2", primary_key=[], merge_key=["id"]),
             stats={"rows": 300, "bounds": {"id": ["1", "300"]}, "key_values": key_values, "loads": {}})
    sql = sql_of(package, a)
    assert ctes(sql) == steps, form
    assert "cast('2024-01-01' as timestamp)" in sql


def test_render__append_keeps_its_loads_and_escapes_their_ids(package):
    sql = sql_of(package, args(cfg(write_disposition="append", strategy=None, primary_key=[])))
    assert ctes(sql) == ["batch"]
    assert "t.`_dlt_load_id` in ('1700000000.1', 'it\\'s')" in sql


def test_render__a_strategy_that_writes_into_its_arguments_fails():
    writer = ("{% macro default__get_sparkload_append_sql(args) -%}"
              "{%- do args.cfg.update({'strategy': 'x'}) -%}{%- endmacro %}")
    package = Package(overrides={"override": writer})
    with pytest.raises(Exception, match="update|attribute"):
        package["get_sparkload_strategy_sql"](args(cfg(write_disposition="append", strategy=None)))


def test_render__every_overridable_macro_has_one_wrapper_and_no_call_site_dispatches():
    text = re.sub(r"\{#.*?#\}", "", "\n".join(f.read_text() for f in MACROS.rglob("*.sql")), flags=re.S)
    defaults = dict(re.findall(r"\{% macro default__(\w+)\((.*?)\) -%\}", text))
    wrappers = dict(re.findall(r"\{% macro ((?!default__)\w+)\((.*?)\) -%\}", text))
    assert defaults and {n: wrappers.get(n) for n in defaults} == defaults
    dispatches = re.findall(r"adapter\.dispatch\((.*?)\)", text)
    wrapped = [f"'{n}', 'sparkload'" for n in defaults]
    assert sorted(dispatches) == sorted(wrapped)


def test_render__only_validation_builds_the_config():
    writes = {f.relative_to(MACROS).as_posix(): re.findall(r"cfg\.update|cfg\[[^\]]+\]\s*=", f.read_text())
              for f in MACROS.rglob("*.sql")}
    assert {f: w for f, w in writes.items() if w} == {}


@pytest.mark.parametrize("key, config", [
    ("primary_key", {"primary_key": ["customer_id"]}),
    ("sequence_by", {"sequence_by": ["customer_id"], "strategy": "upsert"}),
])
def test_validate_columns__a_key_column_the_model_lacks_is_fixed_in_the_model_never_by_an_abort(package, key, config):
    """Issue 40 item 3: a typo in a key config advised `--abort` of every pending load, for every model."""
    pending = {"ids": ["1700000000.1", "1700000000.2"], "pipelines": {"1700000000.1": "shop", "1700000000.2": "shop"}}
    check = package["validate_sparkload_columns" if key == "primary_key" else "_sparkload_validate_sequence_columns"]
    with pytest.raises(AssertionError, match="compiler error") as error:
        check(Relation("target", "items"), cfg(**config), COLUMNS, pending)
    message = " ".join(str(error.value).split())
    assert (f"{key} column `customer_id` is not among the model's columns (id, na`me, deleted, seq, _dlt_load_id, _dlt_id) "
            f"(loads 1700000000.1, 1700000000.2). Fix {key} in the model's config to name one of them, or select "
            "`customer_id` in the model; the loads stay pending and apply once it is fixed. The table is unchanged.") in message
    assert "--abort" not in message


def test_abort_hint__offers_the_skip_for_this_model_first_and_says_that_an_abort_affects_every_consumer(package):
    hint = package["sparkload_abort_hint"](cfg(), {"1.2": "shop"}, ["1.2"])
    assert hint == ("To skip the load for this model only (recorded in its ledger; every other model still applies it): "
                    "dbt run --select items --vars \"{sparkload_skip_loads: {items: ['1.2']}}\". To skip it for every model "
                    "that reads it instead (--abort affects every consumer of dataset raw, also models that have not "
                    "applied it yet): sparkload pipeline loads shop --dataset-name raw --abort 1.2")
    # a child model's load is skipped through its root model
    assert "dbt run --select customers --vars \"{sparkload_skip_loads: {customers: ['1.2']}}\"" in \
        package["sparkload_abort_hint"](cfg(root={"name": "customers"}), {"1.2": "shop"}, ["1.2"])
