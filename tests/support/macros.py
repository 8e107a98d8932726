"""The package's macros rendered with dbt's own Jinja and a stub adapter (no JVM, no dbt run), for the fast
tier's rendering tests (tests/materialization/test_*_render.py): `Package` holds every macro of macros/ in one
namespace; `cfg` and `args` build the read-only validated config and per-statement arguments a strategy gets;
`sql_of` renders a strategy's statement, `ctes` names its steps."""
from __future__ import annotations

import functools
import json
import re
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Optional

from dbt_common.clients.jinja import get_dbt_macro_name, get_environment
from dbt_common.exceptions.macros import MacroReturn
from jinja2 import Template

from .paths import REPO

MACROS = REPO / "macros"
PREFIX = get_dbt_macro_name("")
ENV = get_environment()


@functools.lru_cache(maxsize=None)
def compiled(text: str) -> Template:
    """A macro file's text compiled once per test process (compiling macros/ takes about 1.3 s, the cost of a
    rendering test); each caller makes its own module from it (`make_module(vars=...)`), so no state is shared."""
    return ENV.from_string(text)


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

    @staticmethod
    def type() -> str:  # the package alone: nothing of the sparkload adapter's own (its run cache) is there
        return "spark"


class Config:
    def __init__(self, values: Dict[str, Any]):
        self.values = values

    def get(self, key, default=None):
        return self.values.get(key, default)


class Package:
    """Every macro of macros/ in one namespace, as dbt holds them when only the adapter ships them."""

    def __init__(self, model_config: Optional[Dict[str, Any]] = None, overrides: Optional[Dict[str, str]] = None,
                 variables: Optional[Dict[str, Any]] = None, graph: Optional[Dict[str, Any]] = None,
                 selected_resources: Optional[List[str]] = None):
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
        if selected_resources is not None:  # else undefined, as in dbt before 1.8
            self.ctx["selected_resources"] = selected_resources
        texts = [f.read_text() for f in sorted(MACROS.rglob("*.sql"))] + list((overrides or {}).values())
        for text in texts:
            module = compiled(text).make_module(vars=self.ctx)
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
