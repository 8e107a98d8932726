"""The contract between the halves: `macros/helpers/contract.sql` returns what `python_extract/contract.py`
declares, and the Python users speak it. Fast tier: dbt's own Jinja environment, no adapter, no JVM."""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import get_args

import pytest
from dbt_common.clients.jinja import get_dbt_macro_name
from dbt_common.exceptions.macros import MacroReturn

from python_extract import contract
from python_extract.errors import ConfigError

from .support.macros import compiled

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parents[1]
MACRO = ROOT / "macros" / "helpers" / "contract.sql"


def _raise_return(value):  # dbt's `return` (dbt/context/base.py)
    raise MacroReturn(value)


def render_contract(text: str):
    """What `sparkload_contract()` returns, rendered as dbt renders a macro."""
    module = compiled(text).make_module(vars={"return": _raise_return})
    macro = getattr(module, get_dbt_macro_name("sparkload_contract"))
    with pytest.raises(MacroReturn) as returned:
        macro()
    return returned.value.value


def test_contract__the_macro_returns_the_python_vocabulary():
    assert render_contract(MACRO.read_text()) == contract.vocabulary()


def test_contract__a_drifted_macro_is_caught():
    drifted = MACRO.read_text().replace("'scd2', 'insert-only'", "'scd2'")
    assert drifted != MACRO.read_text()
    assert render_contract(drifted) != contract.vocabulary()



def _maintain_log_lines(vocabulary, report):
    """The lines the dbt operation `sparkload_maintain` logs for one table reported as `report`, its
    contract being `vocabulary` (rendered with stubs for dbt's context)."""
    from types import SimpleNamespace

    logged = []
    # a dict, as dbt's context is: its `_` names are reachable (the sandbox refuses them as attributes)
    sl = dict(sparkload_contract=lambda: vocabulary, validate_sparkload_maintenance=lambda policy, where: policy,
              _validate_sparkload_maintenance_format=lambda relations, file_format, policy: None,
              fetch_sparkload_maintenance_health=lambda relations, file_format, policy: {"raw.t": report["health"]},
              _sparkload_maintenance_name=lambda relation: f"{relation['schema']}.{relation['identifier']}",
              run_sparkload_maintenance=lambda relation, file_format, policy, dry_run, health: report)
    api = SimpleNamespace(Relation=SimpleNamespace(create=lambda **parts: parts))
    text = (ROOT / "macros" / "operations" / "sparkload_maintain.sql").read_text()
    module = compiled(text).make_module(vars={"context": sl, "api": api, "tojson": json.dumps,
                                              "log": lambda msg, info=False: logged.append(msg)})
    getattr(module, get_dbt_macro_name("sparkload_maintain"))(["raw.t"], "delta")
    return logged


def test_contract__the_maintenance_log_line_is_the_contracts_on_both_sides():
    """The operation prints the contract's prefix (a changed contract changes the line: no literal of its
    own), and Python reads the report back by the same contract, refusing a report that lacks a key."""
    from python_extract.maintenance.operation import MaintenanceError, report_of_line

    report = {"table": "raw.t", "format": "delta", "health": {"data_files": 3}, "dry_run": False,
              "actions": [{"action": "compact", "why": "3 small files", "result": None}]}
    assert set(report) == set(contract.MAINTENANCE_REPORT_KEYS)
    assert set(report["actions"][0]) == set(contract.MAINTENANCE_ACTION_KEYS)
    [line] = _maintain_log_lines(render_contract(MACRO.read_text()), report)
    assert line.startswith(contract.MAINTENANCE_LOG_PREFIX) and report_of_line(line) == report
    probe = {**contract.vocabulary(), "maintenance_log": {**contract.vocabulary()["maintenance_log"], "prefix": "probe "}}
    assert _maintain_log_lines(probe, report) == ["probe " + json.dumps(report)]
    assert report_of_line("another line") is None
    with pytest.raises(MaintenanceError, match=r"raw.t lacks health, actions\[0\].why"):
        report_of_line(contract.MAINTENANCE_LOG_PREFIX + json.dumps(
            {k: v for k, v in {**report, "actions": [{"action": "compact", "result": None}]}.items() if k != "health"}))

def test_contract__insert_only_is_a_merge_strategy_of_both_halves():
    assert "insert-only" in contract.MERGE_STRATEGIES
    assert "insert-only" in render_contract(MACRO.read_text())["merge_strategies"]


def test_contract__lists_are_derived_from_the_declared_types():
    assert contract.WRITE_DISPOSITIONS == ("append", "replace", "merge")
    assert contract.TABLE_HINTS == ("table_name", "write_disposition", "primary_key", "merge_key", "columns",
                                    "max_table_nesting")
    assert contract.RESOURCE_HINTS == (*contract.TABLE_HINTS, "incremental")
    assert set(contract.KEY_HINTS) <= set(contract.COLUMN_HINTS) & set(contract.TABLE_HINTS)
    assert set(contract.MODEL_CONFIG_KEYS) == set(contract.ModelConfig.__annotations__)
    assert len(contract.MODEL_CONFIG_KEYS) == len(set(contract.MODEL_CONFIG_KEYS))


def test_contract__system_table_layouts_carry_spark_types():
    assert contract.layout(contract.LOADS_TABLE) == {
        "load_id": "string", "schema_name": "string", "status": "bigint", "inserted_at": "timestamp",
        "schema_version_hash": "string"}
    assert set(contract.SYSTEM_TABLES) == set(contract.vocabulary()["tables"].values())
    with pytest.raises(KeyError):
        contract.layout("customers")


SCD2 = {"disposition": "merge", "strategy": "scd2"}


@pytest.mark.parametrize("value, expected", [
    ("append", ("append", None, {})),
    ({"disposition": "merge", "strategy": "insert-only"}, ("merge", "insert-only", {})),
    ({"disposition": "merge"}, ("merge", None, {})),
    # dlt's options, as model config values: date-times as ISO text, None (dlt's default) left out
    ({**SCD2, "validity_column_names": ("vf", "vt"), "active_record_timestamp": dt.date(9999, 12, 31),
      "boundary_timestamp": dt.datetime(2024, 8, 21, 12, 15, tzinfo=dt.timezone.utc), "row_version_column_name": "h"},
     ("merge", "scd2", {"validity_column_names": ["vf", "vt"], "active_record_timestamp": "9999-12-31",
                        "boundary_timestamp": "2024-08-21T12:15:00+00:00", "row_version_column_name": "h"})),
    ({**SCD2, "active_record_timestamp": None, "boundary_timestamp": "2024-01-01"},
     ("merge", "scd2", {"boundary_timestamp": "2024-01-01"})),
    ({"disposition": "merge", "strategy": "delete-insert", "deduplicated": True}, ("merge", "delete-insert", {"deduplicated": True})),
    ({"disposition": "merge", "deduplicated": False}, ("merge", None, {"deduplicated": False})),  # delete-insert by default
])
def test_split_disposition__accepts_dlt_forms(value, expected):
    assert contract.split_disposition(value, "resource r") == expected


@pytest.mark.parametrize("value, message", [
    ("upsert", "resource r: write_disposition='upsert' (upsert is a merge strategy: {'disposition': 'merge', "
               "'strategy': 'upsert'}); expected one of append, replace, merge"),
    ("mrege", "resource r: write_disposition='mrege' (did you mean 'merge'?); expected one of append, replace, merge"),
    ({"disposition": "merge", "stratgy": "upsert"}, "resource r: write_disposition key stratgy is not known (did you "
                                                    "mean 'strategy'?); expected disposition, strategy, deduplicated"),
    ({"disposition": "merge", "strategy": "upsrt"}, "merge strategy 'upsrt' (did you mean 'upsert'?); expected merge"),
    ({"disposition": "append", "strategy": "upsert"}, "resource r: merge strategy 'upsert'; expected merge with one of"),
    ({"disposition": "merge", "strategy": "scd3"}, "delete-insert, upsert, scd2, insert-only"),
    ({**SCD2, "validity_columns": ["a", "b"]}, "resource r: write_disposition key validity_columns is not known (did you "
                                               "mean 'validity_column_names'?); expected disposition, strategy, "
                                               "deduplicated, validity_column_names"),
    ({"disposition": "merge", "strategy": "upsert", "skip_unchanged_rows": True},
     "resource r: write_disposition key skip_unchanged_rows: dlt's option is not built in sparkload"),
    ({**SCD2, "source_filter": "x > 1"}, "key source_filter: dlt's option is not built"),
    ({"disposition": "merge", "strategy": "upsert", "row_version_column_name": "h"},
     "key row_version_column_name applies to merge strategy scd2 only, not upsert"),
    ({"disposition": "merge", "validity_column_names": ["a", "b"]}, "applies to merge strategy scd2 only, not delete-insert"),
    ({"disposition": "replace", "deduplicated": True}, "key deduplicated applies to merge strategy delete-insert only, not replace"),
    ({**SCD2, "validity_column_names": ["a"]}, "validity_column_names=['a']; expected two column names"),
    ({**SCD2, "active_record_timestamp": 20240101}, "active_record_timestamp=20240101; expected a date-time"),
    ({"disposition": "merge", "deduplicated": "yes"}, "deduplicated='yes'; expected a bool"),
])
def test_split_disposition__refuses_unknown_values_naming_the_owner(value, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        contract.split_disposition(value, "resource r")


def test_merge_options__each_is_a_model_config_key_of_its_strategy():
    assert set(contract.MERGE_OPTIONS) == set(contract.WriteDispositionConfig.__annotations__) - {"disposition", "strategy"}
    for key, strategy in contract.MERGE_OPTIONS.items():
        assert key in contract.MODEL_CONFIG_KEYS
        assert (key in contract.SCD2_MODEL_CONFIG_KEYS) == (strategy == "scd2"), key


def test_contract__imports_nothing_but_the_stdlib():
    code = ("import json, sys; before = set(sys.modules); import python_extract.contract; "
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env).stdout
    loaded = json.loads(out)
    assert "python_extract.contract" in loaded
    ours = {"python_extract", "python_extract.contract", "python_extract.errors", "python_extract.lazy"}  # errors, lazy: the stdlib-only kernel (the package face)
    assert [m for m in loaded if m not in ours and m.split(".")[0].lstrip("_") not in sys.stdlib_module_names
            and m.split(".")[0] not in sys.stdlib_module_names] == []


# -- the Python users speak it
def test_schema__every_data_type_of_the_contract_has_a_spark_and_an_arrow_type():
    from python_extract.normalize.schema import arrow_of_spark, arrow_type, spark_type

    assert tuple(contract.SPARK_BASE_TYPES) == contract.DATA_TYPES
    for data_type in contract.DATA_TYPES:
        assert arrow_of_spark(spark_type(data_type)) == arrow_type(data_type)
    assert set(contract.DLT_COLUMNS.values()) <= set(contract.DATA_TYPES)


def test_schema__arrow_and_sqlalchemy_columns_take_the_data_type_the_contract_maps_their_values_to():
    """The classifications derive from the one map: an Arrow column of a data type's own Arrow type has that data
    type (json lands as text, so reads back as text), and a SQLAlchemy column that of its values' Python type."""
    import sqlalchemy as sa

    from python_extract.normalize.arrow import _dlt_type
    from python_extract.normalize.schema import arrow_type
    from python_extract.sources.sql_database.source import data_type as sql_data_type

    assert {d: _dlt_type(arrow_type(d)) for d in contract.DATA_TYPES} == {**{d: d for d in contract.DATA_TYPES}, "json": "text"}
    python_data_types = dict(contract.PYTHON_DATA_TYPES)
    for column, values in ((sa.Boolean(), bool), (sa.BigInteger(), int), (sa.Float(), float), (sa.Numeric(10, 2), Decimal),
                           (sa.DateTime(), dt.datetime), (sa.Date(), dt.date), (sa.JSON(), dict), (sa.Text(), str)):
        assert sql_data_type(column) == python_data_types[values], column
    assert sql_data_type(sa.Time()) is None and sql_data_type(sa.LargeBinary()) is None  # inferred from values


@pytest.mark.parametrize("data_type, precision, scale, expected", [
    ("bigint", None, None, "bigint"), ("bigint", 1, None, "tinyint"), ("bigint", 8, None, "tinyint"), ("bigint", 9, None, "smallint"),
    ("bigint", 16, None, "smallint"), ("bigint", 32, None, "int"), ("bigint", 33, None, "bigint"), ("bigint", 64, None, "bigint"),
    ("decimal", None, None, "decimal(38,9)"), ("decimal", 10, 2, "decimal(10,2)"), ("decimal", 12, None, "decimal(12,9)"),
    ("decimal", None, 0, "decimal(38,0)"), ("text", 5, None, "string"), ("timestamp", 3, None, "timestamp"),
    ("bigint", 32, 4, "int"),  # a scale on an inferred non-decimal type is ignored, as dlt ignores it
])
def test_sized_type__as_dlts_databricks_destination_sizes_a_column(data_type, precision, scale, expected):
    from python_extract.normalize.schema import arrow_of_spark, arrow_type

    assert contract.sized_type(data_type, precision, scale, "here") == expected
    assert arrow_type(data_type, precision, scale) == arrow_of_spark(expected)


@pytest.mark.parametrize("columns, error, message", [
    ({"a": {"data_typ": "text"}}, TypeError, r"resource r: column a: unknown column hint data_typ \(did you mean "
                                             r"'data_type'\?\); expected primary_key"),
    ({"a": {"hard_delet": True}}, ConfigError, r"column a: unknown column hint hard_delet \(did you mean 'hard_delete'\?\)"),
    ({"a": {"data_type": "int"}}, ValueError, r"resource r: column a: data_type='int' \(did you mean 'bigint'\?\); "
                                              "expected one of text, bigint"),
    ({"a": {"data_type": "bigint", "precision": 65}}, ValueError, "column a: bigint precision=65 has no Spark integer type"),
    ({"a": {"data_type": "decimal", "precision": 39, "scale": 2}}, ValueError, r"column a: decimal\(39,2\) is not a Spark decimal"),
    ({"a": {"data_type": "decimal", "precision": 5}}, ValueError, r"column a: decimal\(5,9\) is not a Spark decimal"),
    ({"a": {"data_type": "text", "scale": 2}}, ValueError, "column a: scale=2 applies to decimal columns only, not text"),
    ({"a": {"precision": "10"}}, ValueError, "column a: precision='10'; expected an integer >= 1"),
    ({"a": {"scale": -1}}, ValueError, "column a: scale=-1; expected an integer >= 0"),
    ({"a": {"primary_key": "yes"}}, ValueError, "column a: primary_key='yes'; expected True or False"),
    ({"a": {"dedup_sort": "up"}}, ValueError, "column a: dedup_sort='up'; expected asc or desc"),
    ({"a": {"name": "b"}}, ValueError, "column a: name='b' is not the column's name"),
    ({"a": "text"}, TypeError, "column a: hints 'text'; expected a mapping"),
    ("a", TypeError, "resource r: columns='a'; expected a mapping of column name to hints"),
])
def test_check_columns__refuses_what_sparkload_does_not_build_naming_owner_and_column(columns, error, message):
    with pytest.raises(error, match=message):
        contract.check_columns(columns, "resource r")


def test_check_columns__takes_dlts_dict_and_list_forms():
    hints = {"a": {"name": "a", "data_type": "decimal", "precision": 10, "scale": 2}, "d": {"dedup_sort": "desc"}}
    assert contract.check_columns(hints, "r") == {"a": {"data_type": "decimal", "precision": 10, "scale": 2}, "d": {"dedup_sort": "desc"}}
    assert contract.check_columns([{"name": "a", "precision": 32}], "r") == {"a": {"precision": 32}}


def test_scaffold__a_model_config_uses_only_contract_keys():
    from python_extract.normalize.schema import Schema
    from python_extract.scaffold import _model_config

    schema = Schema("p")
    for strategy in contract.MERGE_STRATEGIES:
        schema.table(strategy, write_disposition="merge", merge_strategy=strategy)
        for hint in ("primary_key", "merge_key", "hard_delete", "dedup_sort"):
            schema.set_column_hints(strategy, hint, {hint: True})
        config = _model_config(schema.tables[strategy], None)
        assert config.pop("materialized") == "sparkload"
        assert config["strategy"] == strategy
        assert set(config) <= set(contract.MODEL_CONFIG_KEYS), set(config) - set(contract.MODEL_CONFIG_KEYS)


def test_scaffold__the_dict_forms_options_become_the_models_config(tmp_path):
    """A dlt pipeline ported by changing imports keeps its scd2 options: extracted into the schema (and
    stored with it), then written by the scaffold into the model."""
    from python_extract.extract.extractor import Extractor
    from python_extract.extract.resource import Resource
    from python_extract.hooks import Hooks
    from python_extract.normalize.schema import Schema
    from python_extract.packages import PackageStorage
    from python_extract.scaffold import _model_config
    from python_extract.state import new_state

    res = Resource([{"id": 1}], "dim", write_disposition={
        **SCD2, "validity_column_names": ["valid_from", "valid_to"], "active_record_timestamp": "9999-12-31"})
    schema = Schema("p")
    Extractor(PackageStorage(tmp_path), "raw", schema, new_state("p"), Hooks(), default_source="p").extract([res])
    stored = Schema.from_dict(schema.to_dict())
    assert _model_config(stored.tables["dim"], None) == {
        "materialized": "sparkload", "write_disposition": "merge", "strategy": "scd2",
        "validity_column_names": ["valid_from", "valid_to"], "active_record_timestamp": "9999-12-31"}
    plain = Schema("p")
    plain.table("t", write_disposition="merge", merge_strategy="upsert")
    assert "merge_options" not in plain.to_dict()["tables"]["t"]  # schemas stored before the options keep their hash


def test_resource__apply_hints_refuses_a_hint_the_contract_does_not_name():
    from python_extract.extract.resource import Resource

    res = Resource([{"id": 1}], "items")
    res.apply_hints(primary_key="id", write_disposition={"disposition": "merge", "strategy": "insert-only"})
    assert (res.primary_key, res.write_disposition, res.merge_strategy) == (["id"], "merge", "insert-only")
    res.apply_hints(write_disposition={**SCD2, "row_version_column_name": "row_hash"})
    assert (res.merge_strategy, res.merge_options) == ("scd2", {"row_version_column_name": "row_hash"})
    with pytest.raises(ConfigError, match=re.escape("resource items: unknown hint primary_keys (did you mean "
                                                    "'primary_key'?); expected table_name, write_disposition")):
        res.apply_hints(primary_keys="id")


# -- the strategy spec: what each strategy is, declared once and read by the macros
SPEC_MACRO = ROOT / "macros" / "helpers" / "strategy_spec.sql"


def render_macro(name: str, *args):
    """Call macro `name` of contract.sql or strategy_spec.sql, as dbt renders them (`context` holds both)."""
    ctx = {"return": _raise_return}
    ctx["context"] = ctx
    for path in (MACRO, SPEC_MACRO):
        module = compiled(path.read_text()).make_module(vars=ctx)
        for attr in dir(module):
            if attr.startswith(get_dbt_macro_name("")):
                ctx[attr[len(get_dbt_macro_name("")):]] = _returning(getattr(module, attr))
    return ctx[name](*args)


def _returning(macro):
    def call(*args):
        try:
            return macro(*args)
        except MacroReturn as returned:
            return returned.value
    return call


def test_strategies__every_strategy_and_own_disposition_has_one_spec_with_every_field():
    assert set(contract.STRATEGIES) == {*contract.MERGE_STRATEGIES, *(set(contract.WRITE_DISPOSITIONS) - {"merge"}),
                                        "child", "child_scd2"}
    for name, spec in contract.STRATEGIES.items():
        assert set(spec) == set(contract.StrategySpec.__annotations__), name
        assert set(spec["requires"]) | set(spec["ignores"]) | set(spec["prune_keys"]) <= set(contract.KEY_HINTS), name
        assert set(spec["options"]) <= set(contract.MODEL_CONFIG_KEYS), name
        assert spec["grouping"] in get_args(contract.Grouping) and spec["dedup_key"] in contract.KEY_HINTS, name
        assert not (spec["tombstones"] or spec["bitemporal"]) or spec["sequence_by"], name
    assert contract.STRATEGIES["scd2"]["options"] == list(contract.SCD2_MODEL_CONFIG_KEYS)
    assert [n for n in contract.MERGE_STRATEGIES if contract.STRATEGIES[n]["disposition"] == "merge"] == list(contract.MERGE_STRATEGIES)


def test_strategies__the_dict_forms_options_derive_from_the_spec():
    assert contract.MERGE_OPTIONS == {"deduplicated": "delete-insert", "validity_column_names": "scd2",
                                      "active_record_timestamp": "scd2", "boundary_timestamp": "scd2",
                                      "row_version_column_name": "scd2"}


def test_strategies__a_drifted_spec_is_caught():
    text = MACRO.read_text()
    drifted = text.replace("'grouping': 'per_load'", "'grouping': 'batch'")
    assert drifted != text
    assert render_contract(drifted)["strategies"] != contract.vocabulary()["strategies"]


@pytest.mark.parametrize("disposition", contract.WRITE_DISPOSITIONS)
@pytest.mark.parametrize("strategy", [None, *contract.MERGE_STRATEGIES])
@pytest.mark.parametrize("root_rewrites_ids", [None, False, True])
def test_strategies__both_halves_name_a_models_spec_alike(disposition, strategy, root_rewrites_ids):
    root = None if root_rewrites_ids is None else {"rewrites_ids": root_rewrites_ids}
    expected = contract.strategy_name(disposition, strategy, root_rewrites_ids)
    assert render_macro("sparkload_strategy_name", disposition, strategy, root) == expected
    cfg = {"write_disposition": disposition, "strategy": strategy, "root": root}
    assert render_macro("sparkload_strategy_spec", cfg) == contract.vocabulary()["strategies"].get(expected, {})
