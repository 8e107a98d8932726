"""The package's macros rendered with dbt's own Jinja and a stub adapter (no JVM, no dbt run): the SQL
shape of each strategy's statement (one MERGE whose source is a list of named steps), quoting and
escaping, the dispatch convention (one wrapper per overridable macro) and a read-only validated config.
A fast tier only: what the statements do is judged on real Spark (tests/materialization/)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Optional

import pytest
from dbt_common.clients.jinja import get_dbt_macro_name, get_environment
from dbt_common.exceptions.macros import MacroReturn

ROOT = Path(__file__).resolve().parents[2]
MACROS = ROOT / "macros"
PREFIX = get_dbt_macro_name("")


class Relation:
    def __init__(self, schema: str, identifier: str, type: str = "table"):
        self.schema, self.identifier, self.type = schema, identifier, type

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


class StubAdapter:
    """`adapter.dispatch(name, 'sparkload')` looks up `default__<name>` (or an override registered
    under that name); relations never exist."""

    def __init__(self, ctx: Dict[str, Any]):
        self.ctx = ctx

    def dispatch(self, name: str, namespace: str) -> Callable:
        assert namespace == "sparkload", namespace
        return self.ctx[f"default__{name}"]

    def get_relation(self, database=None, schema=None, identifier=None):
        return None


class Config:
    def __init__(self, values: Dict[str, Any]):
        self.values = values

    def get(self, key, default=None):
        return self.values.get(key, default)


class Package:
    """Every macro of macros/ in one namespace, as dbt holds them when only the adapter ships them."""

    def __init__(self, model_config: Optional[Dict[str, Any]] = None, overrides: Optional[Dict[str, str]] = None,
                 variables: Optional[Dict[str, Any]] = None, graph: Optional[Dict[str, Any]] = None):
        self.statements: List[str] = []
        self.ctx: Dict[str, Any] = {}
        self.ctx.update({
            "return": self._return, "context": self.ctx, "adapter": StubAdapter(self.ctx),
            "api": type("api", (), {"Relation": type("R", (), {"create": staticmethod(Relation)})}),
            "model": {"name": "items", "config": model_config or {}}, "this": Relation("target", "items"),
            "config": Config(model_config or {}), "modules": type("modules", (), {"re": re}),
            "exceptions": type("exceptions", (), {"raise_compiler_error": staticmethod(self._raise),
                                                  "warn": staticmethod(lambda msg: None)}),
            "log": lambda *a, **k: "", "execute": True, "statement": self._statement,
            "run_query": self._no_queries, "var": lambda name, default=None: (variables or {}).get(name, default),
            "graph": graph or {"nodes": {}}, "fromjson": lambda text, default=None: json.loads(text) if text else default,
        })
        env = get_environment()
        texts = [f.read_text() for f in sorted(MACROS.rglob("*.sql"))] + list((overrides or {}).values())
        for text in texts:
            module = env.from_string(text).make_module(vars=self.ctx)
            for attr in dir(module):
                if attr.startswith(PREFIX):
                    self.ctx[attr[len(PREFIX):]] = self._callable(getattr(module, attr))

    @staticmethod
    def _return(value):
        raise MacroReturn(value)

    @staticmethod
    def _raise(msg):
        raise AssertionError(f"compiler error: {msg}")

    @staticmethod
    def _no_queries(sql):
        raise AssertionError(f"a rendering test ran a query: {sql}")

    def _statement(self, name, caller=None, **kw):
        self.statements.append(caller())
        return ""

    @staticmethod
    def _callable(macro) -> Callable:
        def call(*args, **kwargs):
            try:
                return macro(*args, **kwargs)
            except MacroReturn as returned:
                return returned.value
        return call

    def __getitem__(self, name: str) -> Callable:
        return self.ctx[name]


COLUMNS = [{"name": n, "type": t} for n, t in (("id", "bigint"), ("na`me", "string"), ("deleted", "boolean"),
                                                ("seq", "bigint"), ("_dlt_load_id", "string"), ("_dlt_id", "string"))]


def cfg(**over: Any) -> MappingProxyType:
    base = {"write_disposition": "merge", "strategy": "delete-insert", "root": None, "primary_key": ["id"], "merge_key": [],
            "dedup_sort": None, "hard_delete": None, "validity_column_names": ["_dlt_valid_from", "_dlt_valid_to"],
            "active_record_timestamp": None, "boundary_timestamp": None, "row_version_column_name": "_dlt_id",
            "deduplicated": False, "load_status_in": 0, "load_status_out": None, "loads": Relation("raw", "_dlt_loads"),
            "file_format": "iceberg", "partition_by": [], "cluster_by": [], "tblproperties": {"format-version": "2"}, "children": [],
            "removes_rows": False, "family": None, "active_literal": "cast(null as timestamp)"}
    base.update(over)
    name = base["strategy"] or base["write_disposition"]
    base["strategy_macro"] = f"get_sparkload_{name.replace('-', '_')}_sql"
    return MappingProxyType(base)


def args(config: MappingProxyType, **over: Any) -> MappingProxyType:
    """Read-only per-statement arguments: a macro that tried to write into them (or into cfg) fails."""
    base = {"target": Relation("target", "items"), "batch_sql": "select * from `raw`.`items`", "columns": COLUMNS,
            "target_columns": COLUMNS, "load_ids": ["1700000000.1", "it's"], "into_empty": False,
            "stats": {"rows": 3, "bounds": {"id": ["1", "3"]}, "key_values": [["1"], ["3"]], "loads": {}},
            "boundary": "cast('2024-01-01' as timestamp)", "pipelines": {"1700000000.1": "shop"}, "cfg": config}
    base.update(over)
    return MappingProxyType(base)


def sql_of(package: Package, a: MappingProxyType) -> str:
    return " ".join(package["get_sparkload_strategy_sql"](a).split())


def ctes(sql: str) -> List[str]:
    """The names of the steps of a statement's `with` clauses, in order."""
    return re.findall(r"(?:with|,) `(\w+)` as \(", sql)


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
