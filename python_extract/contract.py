"""The vocabulary the extractor and the dbt package share, declared once (as dlt's `common/schema/typing.py`).

What it declares:
- the write dispositions and merge strategies (`Literal`s; the tuples are derived from them), and what each
  strategy is (`STRATEGIES`: what it requires, ignores and takes, how it groups loads, what it supports),
  which the macros read instead of comparing strategy names (tests/materialization/test_macro_layout.py checks that);
- the hints a resource takes (`TableHints`, `ResourceHints`), the hints a column takes (`ColumnHints`)
  and the config keys of a `sparkload` model (`ModelConfig`), as `TypedDict`s whose keys are the lists;
- the `_dlt_*` columns of staging rows, the scd2 validity columns' default names, the child-table
  separator;
- the system tables, each with its row layout (a `TypedDict`: column -> Python type, `layout` gives the
  Spark SQL types), and the `_dlt_loads` status values;
- the maintenance log line the dbt operation prints and Python reads (its prefix and the report's keys).

`macros/helpers/contract.sql` returns `vocabulary()` for Jinja; tests/test_contract.py renders it and
compares, so the two cannot drift. Stdlib only (and errors.py, stdlib only too): the dbt adapter may import
this module. A misspelt or ill-typed hint is a `HintError` naming the closest valid name.
"""
from __future__ import annotations

import datetime as dt
import decimal
import typing
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union, get_args

from .errors import HintError, did_you_mean

# -- dispositions and strategies
WriteDisposition = Literal["append", "replace", "merge"]
MergeStrategy = Literal["delete-insert", "upsert", "scd2", "insert-only"]
DedupSortOrder = Literal["asc", "desc"]
TableFormat = Literal["delta", "iceberg"]  # the formats with row-level MERGE
DataType = Literal["text", "bigint", "double", "bool", "decimal", "timestamp", "date", "json", "binary"]
# dlt's schema contract: what may change in a table's schema, and what happens to data that would change it.
# Extractor-only: the dbt side never sees a contract, so vocabulary() leaves these out.
SchemaContractEntity = Literal["tables", "columns", "data_type"]
SchemaEvolutionMode = Literal["evolve", "freeze", "discard_row", "discard_value"]

WRITE_DISPOSITIONS: Tuple[str, ...] = get_args(WriteDisposition)
MERGE_STRATEGIES: Tuple[str, ...] = get_args(MergeStrategy)
DEDUP_SORT_ORDERS: Tuple[str, ...] = get_args(DedupSortOrder)
TABLE_FORMATS: Tuple[str, ...] = get_args(TableFormat)
DATA_TYPES: Tuple[str, ...] = get_args(DataType)
SCHEMA_CONTRACT_ENTITIES: Tuple[str, ...] = get_args(SchemaContractEntity)
SCHEMA_EVOLUTION_MODES: Tuple[str, ...] = get_args(SchemaEvolutionMode)
DEFAULT_WRITE_DISPOSITION: WriteDisposition = "append"
DEFAULT_MERGE_STRATEGY: MergeStrategy = "delete-insert"

Keys = Union[str, Sequence[str], None]


class WriteDispositionConfig(typing.TypedDict, total=False):
    """dlt's dict form of `write_disposition`: `{"disposition": "merge", "strategy": "scd2", ...}`, with the
    options of dlt's strategy dicts that sparkload has (MERGE_OPTIONS); each is a model config key of the
    same name and meaning, which the scaffold writes into the model."""
    disposition: WriteDisposition
    strategy: MergeStrategy
    deduplicated: bool
    validity_column_names: List[str]
    active_record_timestamp: Union[str, dt.date, dt.datetime, None]  # None: NULL marks active versions
    boundary_timestamp: Union[str, dt.date, dt.datetime, None]  # None: the load's own time
    row_version_column_name: str


# options of dlt's strategy dicts that sparkload does not implement: refused by name, never ignored
DLT_MERGE_OPTIONS_NOT_BUILT: Tuple[str, ...] = ("source_filter", "destination_scope", "skip_unchanged_rows")


# -- hints
class ColumnHints(typing.TypedDict, total=False):
    """A column's hints, as a resource's `columns={name: {...}}` gives them and the schema keeps them."""
    primary_key: bool
    merge_key: bool
    hard_delete: bool
    dedup_sort: Union[bool, DedupSortOrder]
    nullable: bool
    data_type: DataType
    precision: int  # bigint: its bits (8, 16, 32, 64); decimal: its digits (<= 38); other types keep none
    scale: int  # decimal: digits after the point (default 9, as DECIMAL_DEFAULT)
    partition: bool  # the staging table is partitioned by it; the scaffold's model gets partition_by
    cluster: bool  # dlt's Databricks CLUSTER BY: the scaffold's model gets cluster_by (the final table's layout)
    unique: bool  # kept in the schema; no constraint (as dlt's Databricks destination)
    timezone: bool  # kept in the schema; a timestamp is always UTC (docs/parity.md says why)


class TableHints(typing.TypedDict, total=False):
    """The hints of a resource's table (`apply_hints`, `pipeline.run(...)`, source configs)."""
    table_name: Any  # a string, or a function of the item that picks the table per item
    write_disposition: Union[WriteDisposition, WriteDispositionConfig]
    primary_key: Keys
    merge_key: Keys
    columns: Mapping[str, ColumnHints]
    max_table_nesting: int


class ResourceHints(TableHints, total=False):
    """What `@resource(...)` takes besides its name: the table hints and an incremental cursor."""
    incremental: Any


KEY_HINTS: Tuple[str, ...] = ("primary_key", "merge_key")  # the hints naming key columns (never NULL)
COLUMN_HINTS: Tuple[str, ...] = tuple(ColumnHints.__annotations__)
DECIMAL_DEFAULT: Tuple[int, int] = (38, 9)  # a decimal column's (precision, scale) when its hints give none, as dlt's
DECIMAL_MAX_PRECISION = 38  # Spark's
INTEGER_PRECISIONS: Tuple[Tuple[int, str], ...] = ((8, "tinyint"), (16, "smallint"), (32, "int"), (64, "bigint"))
TABLE_HINTS: Tuple[str, ...] = tuple(TableHints.__annotations__)
RESOURCE_HINTS: Tuple[str, ...] = tuple(ResourceHints.__annotations__)


# -- config of a sparkload model (what validate.sql accepts besides dbt's own keys)
class RootModelConfig(typing.TypedDict, total=False):
    """Keys a child model takes from its root model and may not set itself."""
    write_disposition: WriteDisposition
    strategy: MergeStrategy
    primary_key: Keys
    merge_key: Keys
    dedup_sort: Mapping[str, DedupSortOrder]
    hard_delete: str
    deduplicated: bool
    load_status_in: int
    load_status_out: int
    sequence_by: Keys  # beyond dlt: the source's order of changes (docs/beyond-dlt.md)
    tombstone_retention: str  # beyond dlt: how long a sequenced delete keeps its key from coming back


class Scd2ModelConfig(typing.TypedDict, total=False):
    """Keys that apply to strategy=scd2 only."""
    validity_column_names: List[str]
    active_record_timestamp: str
    boundary_timestamp: str
    row_version_column_name: str
    boundary_column: str  # beyond dlt: a load's validity boundary from its rows (snapshot replay)


class ModelConfig(RootModelConfig, Scd2ModelConfig, total=False):
    """The config keys of a `sparkload` model besides dbt's own (validate.sql refuses any other)."""
    loads_dataset: str
    root_model: str
    file_format: TableFormat
    partition_by: Keys
    cluster_by: Keys  # Delta liquid clustering, or Iceberg's sort order (docs/materialization.md)
    tblproperties: Mapping[str, str]
    maintenance: Mapping[str, Any]
    change_data_feed: bool  # Delta's Change Data Feed on the model's table (docs/materialization.md)


ROOT_MODEL_CONFIG_KEYS: Tuple[str, ...] = tuple(RootModelConfig.__annotations__)
SCD2_MODEL_CONFIG_KEYS: Tuple[str, ...] = tuple(Scd2ModelConfig.__annotations__)
MODEL_CONFIG_KEYS: Tuple[str, ...] = tuple(ModelConfig.__annotations__)  # the root keys, the scd2 keys, then its own

# -- what each strategy is (as dlt's `resolve_merge_strategy` and MERGE_STRATEGY_OPTIONS): declared once,
# read by the materialization and its validators (macros/strategies/<name>/ holds each one's statement)
Grouping = Literal["batch", "per_load", "newest_load"]
CountsIgnoredRows = Literal["always", "with_sequence_by", "never"]


class StrategySpec(typing.TypedDict):
    """One strategy: a merge strategy, a write disposition that is its own strategy (append, replace), or
    the statement of a child model (child; child_scd2 under a scd2 root whose version ids derive from content).

    requires: config keys it needs; ignores: keys it ignores as dlt does, each with why (warned, dropped);
    options: the keys only it takes; prune_keys: the key configs whose values prune the target, first
    non-empty wins; prune_keys_repeat: a pruning key may occur in many target rows; removes_rows: its
    statements replace or delete target rows by key, so a root's child models must follow them (replace
    rebuilds the table whole instead); grouping: one statement for the batch, one per load, or the newest
    load only; one_row_per_key: a key twice in a load needs dedup_sort; keeps_oldest: the oldest pending
    row of a key wins; counts_ignored_rows: each staged row changes at most one target row (the status line
    counts those that changed nothing); versions: the table keeps versions with validity columns (an update
    retires one); ids_by_content: version ids derive from the rows' content, so child models rewrite their
    parent ids; dedup_key: the key config dedup_sort orders within; sequence_by, tombstones (sequence_by with
    hard_delete), children, bitemporal (sequence_by as the time a version became true): what it supports."""
    disposition: WriteDisposition
    requires: List[str]
    ignores: Dict[str, str]
    options: List[str]
    prune_keys: List[str]
    prune_keys_repeat: bool
    removes_rows: bool
    grouping: Grouping
    one_row_per_key: bool
    keeps_oldest: bool
    counts_ignored_rows: CountsIgnoredRows
    versions: bool
    ids_by_content: bool
    dedup_key: str
    sequence_by: bool
    tombstones: bool
    children: bool
    bitemporal: bool


def _spec(disposition: WriteDisposition, **over: Any) -> StrategySpec:
    spec: Dict[str, Any] = dict(
        disposition=disposition, requires=[], ignores={}, options=[], prune_keys=[], prune_keys_repeat=False,
        removes_rows=False, grouping="batch", one_row_per_key=False, keeps_oldest=False, counts_ignored_rows="never",
        versions=False, ids_by_content=False, dedup_key="primary_key", sequence_by=False, tombstones=False,
        children=True, bitemporal=False)
    spec.update(over)
    return typing.cast(StrategySpec, spec)


STRATEGIES: Dict[str, StrategySpec] = {
    "append": _spec("append", counts_ignored_rows="always"),
    "replace": _spec("replace", grouping="newest_load"),
    "delete-insert": _spec(
        "merge", options=["deduplicated"], prune_keys=["merge_key", "primary_key"], prune_keys_repeat=True,
        removes_rows=True, counts_ignored_rows="with_sequence_by", sequence_by=True, tombstones=True),
    "upsert": _spec(
        "merge", requires=["primary_key"], prune_keys=["primary_key"], removes_rows=True, one_row_per_key=True,
        counts_ignored_rows="always", sequence_by=True, tombstones=True,
        ignores={"merge_key": "upsert updates by primary_key; use strategy=delete-insert to replace rows by merge_key"}),
    "scd2": _spec(
        "merge", options=list(SCD2_MODEL_CONFIG_KEYS), prune_keys=["merge_key", "primary_key"], prune_keys_repeat=True,
        grouping="per_load", versions=True, ids_by_content=True, dedup_key="merge_key", sequence_by=True, bitemporal=True,
        ignores={"primary_key": "scd2 tells versions apart by their content; set merge_key to the natural key for "
                                "incremental extracts"}),
    "insert-only": _spec(
        "merge", requires=["primary_key"], prune_keys=["primary_key"], one_row_per_key=True, keeps_oldest=True,
        counts_ignored_rows="always",
        ignores={"merge_key": "insert-only skips the records whose primary_key the table has"}),
    # a child model's statement follows its root's (a child of a replace root takes replace)
    "child": _spec("merge", children=False),
    "child_scd2": _spec("merge", children=False),
}
# the dict form's options, each with the strategy that takes it (as dlt's MERGE_STRATEGY_OPTIONS)
MERGE_OPTIONS: Dict[str, MergeStrategy] = {
    key: strategy for strategy in MERGE_STRATEGIES for key in STRATEGIES[strategy]["options"]
    if key in WriteDispositionConfig.__annotations__}


def strategy_name(disposition: str, strategy: Optional[str], root_rewrites_ids: Optional[bool] = None) -> str:
    """The STRATEGIES entry of a model: its merge strategy, else its disposition; a child model (whose root's
    version ids derive from content or not: `root_rewrites_ids`, None for a root model) takes child or
    child_scd2, except under a replace root. Mirrored by `sparkload_strategy_name` (macros/helpers/strategy_spec.sql).

    >>> strategy_name("merge", "upsert"), strategy_name("append", None), strategy_name("merge", None, True)
    ('upsert', 'append', 'child_scd2')
    """
    if root_rewrites_ids is not None and STRATEGIES.get(disposition, {}).get("grouping") != "newest_load":
        return "child_scd2" if root_rewrites_ids else "child"
    return strategy or disposition


# -- the `_dlt_*` columns of staging rows
DLT_PREFIX = "_dlt"
LOAD_ID = "_dlt_load_id"
ID = "_dlt_id"
PARENT_ID = "_dlt_parent_id"
LIST_IDX = "_dlt_list_idx"
ROOT_ID = "_dlt_root_id"
DLT_COLUMNS: Dict[str, DataType] = {ID: "text", LOAD_ID: "text", PARENT_ID: "text", LIST_IDX: "bigint", ROOT_ID: "text"}
VALID_FROM = "_dlt_valid_from"
VALID_TO = "_dlt_valid_to"
VALIDITY_COLUMN_NAMES: Tuple[str, str] = (VALID_FROM, VALID_TO)  # scd2's default validity_column_names
CHILD_TABLE_SEPARATOR = "__"  # a nested list `b` of table `a` lands in `a__b`
VARIANT_SEPARATOR = "__v_"  # a value that fits not its column's type goes to `<column>__v_<type>`


# -- system tables and their row layouts
class LoadsRow(typing.TypedDict):
    """`_dlt_loads`: one row per completed load, written last (dbt reads only loads that have one)."""
    load_id: str
    schema_name: str
    status: int
    inserted_at: dt.datetime
    schema_version_hash: str


class VersionRow(typing.TypedDict):
    """`_dlt_version`: one row per schema version."""
    version: int
    engine_version: int
    inserted_at: dt.datetime
    schema_name: str
    version_hash: str
    schema: str


class PipelineStateRow(typing.TypedDict):
    """`_dlt_pipeline_state`: the pipeline state committed with each load."""
    version: int
    engine_version: int
    pipeline_name: str
    state: str
    created_at: dt.datetime
    version_hash: str
    _dlt_load_id: str
    _dlt_id: str


class LoadTablesRow(typing.TypedDict):
    """`_sparkload_load_tables`: the tables a load's resources covered, also with 0 rows."""
    load_id: str
    table_name: str
    row_count: int


class AppliedLoadsRow(typing.TypedDict):
    """`_sparkload_applied_loads` (in a target schema): the loads each target applied; applied_at NULL for a
    load it skipped (dbt `--vars sparkload_skip_loads`: done for that target, never applied)."""
    target: str
    load_id: str
    applied_at: dt.datetime


class RemovedRootsRow(typing.TypedDict):
    """`_sparkload_removed_roots` (in a target schema): root rows a load replaced or deleted."""
    target: str
    load_id: str
    root_id: str


class Scd2IdsRow(typing.TypedDict):
    """`_sparkload_scd2_ids` (in a target schema): a scd2 root's version ids by staging id."""
    target: str
    load_id: str
    staging_id: str
    version_id: str


class TombstonesRow(typing.TypedDict):
    """`_sparkload_tombstones` (in a target schema): a sequenced delete per key of a target (sequence_by and
    hard_delete), so a late older row of the key stays deleted; `key` and `sequence` are JSON objects of the
    key and sequence_by columns, `loaded_at` the delete's load `inserted_at` (tombstone_retention counts from it)."""
    target: str
    key: str
    sequence: str
    load_id: str
    loaded_at: dt.datetime


class ExpiredLoadsRow(typing.TypedDict):
    """`_sparkload_expired_loads` (in a dataset, made by `sparkload pipeline expire`): the loads whose staging
    rows were deleted, so a model's full refresh that would rebuild without them refuses by name."""
    load_id: str
    expired_at: dt.datetime


class RefreshedTablesRow(typing.TypedDict):
    """`_sparkload_refreshed_tables` (in a dataset, made by the first `refresh=` that drops or truncates): a staging
    table that load `load_id` dropped or emptied (`refresh`: drop_sources, drop_resources or drop_data), so a
    model that applied older loads of it refuses until it is rebuilt (macros/helpers/refreshed.sql)."""
    load_id: str
    table_name: str
    refresh: str
    refreshed_at: dt.datetime


LOADS_TABLE = "_dlt_loads"
VERSION_TABLE = "_dlt_version"
STATE_TABLE = "_dlt_pipeline_state"
LOAD_TABLES_TABLE = "_sparkload_load_tables"
APPLIED_LOADS_TABLE = "_sparkload_applied_loads"
REMOVED_ROOTS_TABLE = "_sparkload_removed_roots"
SCD2_IDS_TABLE = "_sparkload_scd2_ids"
TOMBSTONES_TABLE = "_sparkload_tombstones"
EXPIRED_LOADS_TABLE = "_sparkload_expired_loads"
REFRESHED_TABLES_TABLE = "_sparkload_refreshed_tables"
# the extractor's tables in a dataset, in the order the load step creates them
DATASET_TABLES: Dict[str, type] = {LOADS_TABLE: LoadsRow, VERSION_TABLE: VersionRow, STATE_TABLE: PipelineStateRow,
                                   LOAD_TABLES_TABLE: LoadTablesRow}
# the materialization's tables in a target schema
TARGET_TABLES: Dict[str, type] = {APPLIED_LOADS_TABLE: AppliedLoadsRow, REMOVED_ROOTS_TABLE: RemovedRootsRow,
                                  SCD2_IDS_TABLE: Scd2IdsRow, TOMBSTONES_TABLE: TombstonesRow}
SYSTEM_TABLES: Dict[str, type] = {**DATASET_TABLES, **TARGET_TABLES, EXPIRED_LOADS_TABLE: ExpiredLoadsRow,
                                   REFRESHED_TABLES_TABLE: RefreshedTablesRow}


def layout(table: str) -> Dict[str, str]:
    """The columns of a system table with their Spark SQL types, in order.

    >>> layout("_sparkload_load_tables")
    {'load_id': 'string', 'table_name': 'string', 'row_count': 'bigint'}
    """
    spark = {kind: SPARK_BASE_TYPES[data_type] for kind, data_type in reversed(PYTHON_SCALARS)}  # the first entry wins
    return {column: spark[kind] for column, kind in typing.get_type_hints(SYSTEM_TABLES[table]).items()}


# -- `_dlt_loads.status`
LOAD_STATUS_COMPLETED = 0  # what dlt writes; models select `load_status_in` (default 0)
LOAD_STATUS_ABORTED = -1  # `sparkload pipeline loads NAME --abort LOAD_ID`: every model skips the load

# -- Iceberg table properties of the tables that take one small commit per load or per model run: the
# extractor's staging and loads tables (load/spark_loader.py) and the package's ledger (formats.sql). Each
# append adds a manifest, and every read plans over all of them (Iceberg merges them at 100 by default): at
# 70 commits a ledger read took 0.34-0.38 s with 70 manifests and 0.15-0.18 s with them merged at 5
# (docs/benchmarks.md, issue 37). Tables created before keep Iceberg's default (docs/materialization.md says how
# to set it or rewrite their manifests).
ICEBERG_COMMIT_PROPERTIES: Mapping[str, str] = {"commit.manifest.min-count-to-merge": "5"}


# -- the maintenance log: one line per table the operation `sparkload_maintain` logs (macros/operations/),
# `<prefix><report as JSON>`, which `sparkload lakehouse maintain` reads (maintenance/operation.py)
MAINTENANCE_LOG_PREFIX = "sparkload maintenance "


class MaintenanceAction(typing.TypedDict):
    """One step of a table's maintenance: what, why, and its first result row (None when it did not run)."""
    action: str  # expire_snapshots, remove_orphan_files, compact, ...
    why: str
    result: Optional[Dict[str, Any]]


class MaintenanceReport(typing.TypedDict):
    """What the log line carries for one table."""
    table: str  # schema.table
    format: TableFormat
    health: Dict[str, int]  # data files, delete files or deletion vectors, rows, ...
    dry_run: bool
    actions: List[MaintenanceAction]


MAINTENANCE_REPORT_KEYS: Tuple[str, ...] = tuple(MaintenanceReport.__annotations__)
MAINTENANCE_ACTION_KEYS: Tuple[str, ...] = tuple(MaintenanceAction.__annotations__)


def vocabulary() -> Dict[str, Any]:
    """All of the above as plain lists and dicts: what `sparkload_contract()` (contract.sql) returns."""
    return {
        "write_dispositions": list(WRITE_DISPOSITIONS),
        "merge_strategies": list(MERGE_STRATEGIES),
        "default_write_disposition": DEFAULT_WRITE_DISPOSITION,
        "default_merge_strategy": DEFAULT_MERGE_STRATEGY,
        "dedup_sort_orders": list(DEDUP_SORT_ORDERS),
        "table_formats": list(TABLE_FORMATS),
        "data_types": list(DATA_TYPES),
        "key_hints": list(KEY_HINTS),
        "column_hints": list(COLUMN_HINTS),
        "table_hints": list(TABLE_HINTS),
        "resource_hints": list(RESOURCE_HINTS),
        "root_model_config_keys": list(ROOT_MODEL_CONFIG_KEYS),
        "scd2_model_config_keys": list(SCD2_MODEL_CONFIG_KEYS),
        "model_config_keys": list(MODEL_CONFIG_KEYS),
        "strategies": {name: _plain(spec) for name, spec in STRATEGIES.items()},
        "dlt_prefix": DLT_PREFIX,
        "columns": {"load_id": LOAD_ID, "id": ID, "parent_id": PARENT_ID, "list_idx": LIST_IDX, "root_id": ROOT_ID},
        "validity_column_names": list(VALIDITY_COLUMN_NAMES),
        "child_table_separator": CHILD_TABLE_SEPARATOR,
        "variant_separator": VARIANT_SEPARATOR,
        "tables": {"loads": LOADS_TABLE, "version": VERSION_TABLE, "state": STATE_TABLE, "load_tables": LOAD_TABLES_TABLE,
                   "applied_loads": APPLIED_LOADS_TABLE, "removed_roots": REMOVED_ROOTS_TABLE, "scd2_ids": SCD2_IDS_TABLE,
                   "tombstones": TOMBSTONES_TABLE, "expired_loads": EXPIRED_LOADS_TABLE,
                   "refreshed_tables": REFRESHED_TABLES_TABLE},
        "layouts": {table: layout(table) for table in SYSTEM_TABLES},
        "load_status": {"completed": LOAD_STATUS_COMPLETED, "aborted": LOAD_STATUS_ABORTED},
        "iceberg_commit_properties": dict(ICEBERG_COMMIT_PROPERTIES),
        "maintenance_log": {"prefix": MAINTENANCE_LOG_PREFIX, "report_keys": list(MAINTENANCE_REPORT_KEYS),
                            "action_keys": list(MAINTENANCE_ACTION_KEYS)},
    }


def _plain(spec: StrategySpec) -> Dict[str, Any]:
    return {key: (dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v) for key, v in spec.items()}


def as_key_list(keys: Keys) -> List[str]:
    """A key hint as a list: `"id"` -> `["id"]`, `None` -> `[]`."""
    if keys is None:
        return []
    return [keys] if isinstance(keys, str) else list(keys)


def split_disposition(value: Any, owner: str) -> Tuple[WriteDisposition, Optional[MergeStrategy], Dict[str, Any]]:
    """`"merge"` -> ("merge", None, {}); `{"disposition": "merge", "strategy": "scd2",
    "validity_column_names": ["from", "to"]}` -> ("merge", "scd2", {"validity_column_names": ["from", "to"]}).

    The options (MERGE_OPTIONS) come back as model config values: date-times as ISO text, and an option
    set to None (dlt's default) left out. Raises `HintError` (a `ConfigError`) naming `owner` (e.g. "resource
    issues") and the closest valid name for an unknown disposition, strategy or key, a strategy with a
    disposition other than merge, an option of another strategy than the one chosen, or an option value of
    the wrong type."""
    if isinstance(value, Mapping):
        disposition, strategy = value.get("disposition"), value.get("strategy")
        options = {k: v for k, v in value.items() if k not in ("disposition", "strategy")}
        for key in options:  # first: a misspelt "disposition" key would otherwise read as a missing one
            if key not in MERGE_OPTIONS and key not in DLT_MERGE_OPTIONS_NOT_BUILT:
                _merge_option(owner, disposition, strategy, key, options[key])
    else:
        disposition, strategy, options = value, None, {}
    if disposition not in WRITE_DISPOSITIONS:
        shown = disposition if isinstance(value, Mapping) else value
        hint = did_you_mean(disposition, WRITE_DISPOSITIONS)
        if not hint and disposition in MERGE_STRATEGIES:
            hint = f" ({disposition} is a merge strategy: {{'disposition': 'merge', 'strategy': {disposition!r}}})"
        raise HintError(f"{owner}: write_disposition={shown!r}{hint}; expected one of {', '.join(WRITE_DISPOSITIONS)}")
    if strategy is not None and (disposition != "merge" or strategy not in MERGE_STRATEGIES):
        hint = did_you_mean(strategy, MERGE_STRATEGIES) if strategy not in MERGE_STRATEGIES else ""
        raise HintError(f"{owner}: merge strategy {strategy!r}{hint}; expected "
                        f"merge with one of {', '.join(MERGE_STRATEGIES)}")
    return disposition, strategy, {key: _merge_option(owner, disposition, strategy, key, v)
                                   for key, v in options.items() if v is not None}


def _merge_option(owner: str, disposition: str, strategy: Optional[str], key: str, value: Any) -> Any:
    where = f"{owner}: write_disposition key {key}"
    if key in DLT_MERGE_OPTIONS_NOT_BUILT:
        raise HintError(f"{where}: dlt's option is not built in sparkload; remove it")
    if key not in MERGE_OPTIONS:
        known = ("disposition", "strategy", *MERGE_OPTIONS)
        raise HintError(f"{where} is not known{did_you_mean(key, known)}; expected {', '.join(known)}")
    chosen = strategy or (DEFAULT_MERGE_STRATEGY if disposition == "merge" else None)
    if chosen != MERGE_OPTIONS[key]:
        raise HintError(f"{where} applies to merge strategy {MERGE_OPTIONS[key]} only, not {chosen or disposition}")
    if key == "validity_column_names":
        if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(c, str) and c for c in value)):
            raise HintError(f"{where}={value!r}; expected two column names, e.g. ['valid_from', 'valid_to']")
        return list(value)
    if key in ("active_record_timestamp", "boundary_timestamp"):
        if isinstance(value, (dt.date, dt.datetime)):
            return value.isoformat()
        if not isinstance(value, str):
            raise HintError(f"{where}={value!r}; expected a date-time (ISO text, date or datetime)")
        return value
    expected = bool if key == "deduplicated" else str
    if not isinstance(value, expected):
        raise HintError(f"{where}={value!r}; expected a {expected.__name__}")
    return value


def check_columns(columns: Any, owner: str) -> Dict[str, Dict[str, Any]]:
    """A resource's `columns` hint checked: a mapping of column name to `ColumnHints`. An unknown hint or a
    value of the wrong kind is a `HintError` naming `owner` (e.g. "resource issues"), the column and the
    closest valid name; dlt hints sparkload does not build are refused by name, never ignored."""
    if isinstance(columns, (list, tuple)) and all(isinstance(c, Mapping) and "name" in c for c in columns):
        columns = {c["name"]: {k: v for k, v in c.items() if k != "name"} for c in columns}  # dlt's list form
    if hasattr(columns, "model_fields"):  # dlt maps a Pydantic model to columns and a schema contract; not built here
        raise HintError(f"{owner}: columns={getattr(columns, '__name__', columns)!r} is a Pydantic model, which sparkload "
                        "does not take as columns; give a mapping of column name to hints (and schema_contract=)")
    if not isinstance(columns, Mapping):
        raise HintError(f"{owner}: columns={columns!r}; expected a mapping of column name to hints")
    checked = {}
    for column, hints in columns.items():
        where = f"{owner}: column {column}"
        if not isinstance(hints, Mapping):
            raise HintError(f"{where}: hints {hints!r}; expected a mapping, e.g. {{'data_type': 'bigint'}}")
        if hints.get("name", column) != column:
            raise HintError(f"{where}: name={hints['name']!r} is not the column's name")
        hints = {k: v for k, v in hints.items() if k != "name"}  # dlt's column schema repeats it
        unknown = sorted(set(hints) - set(COLUMN_HINTS))
        if unknown:
            named = ", ".join(f"{u}{did_you_mean(u, COLUMN_HINTS)}" for u in unknown)
            raise HintError(f"{where}: unknown column hint {named}; expected {', '.join(COLUMN_HINTS)}")
        data_type = hints.get("data_type")
        if data_type is not None and data_type not in DATA_TYPES:
            raise HintError(f"{where}: data_type={data_type!r}{did_you_mean(data_type, DATA_TYPES)}; expected one of {', '.join(DATA_TYPES)}")
        for key in ("primary_key", "merge_key", "hard_delete", "nullable", "partition", "cluster", "unique", "timezone"):
            if key in hints and not isinstance(hints[key], bool):
                raise HintError(f"{where}: {key}={hints[key]!r}; expected True or False")
        if "dedup_sort" in hints and hints["dedup_sort"] not in (*DEDUP_SORT_ORDERS, True, False):
            raise HintError(f"{where}: dedup_sort={hints['dedup_sort']!r}; expected {' or '.join(DEDUP_SORT_ORDERS)}")
        for key in ("precision", "scale"):
            value = hints.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < (key == "precision")):
                raise HintError(f"{where}: {key}={value!r}; expected an integer >= {int(key == 'precision')}")
        if data_type not in (None, "decimal") and hints.get("scale") is not None:
            raise HintError(f"{where}: scale={hints['scale']} applies to decimal columns only, not {data_type}")
        if data_type is not None:
            sized_type(data_type, hints.get("precision"), hints.get("scale"), where)
        checked[column] = dict(hints)
    return checked


def sized_type(data_type: str, precision: Optional[int], scale: Optional[int], where: str) -> str:
    """The Spark type of a column of `data_type` with its `precision` and `scale` hints, as dlt's Databricks
    destination maps them: a bigint's precision (bits) picks tinyint/smallint/int/bigint; a decimal is
    decimal(precision, scale), each defaulting to DECIMAL_DEFAULT; other types have no size in Spark (text,
    binary and timestamp precision are kept in the schema and change nothing; a scale on another type than
    decimal, which only an inferred type can give, is ignored as dlt ignores it). `HintError` naming `where`
    for a size Spark has no type for."""
    if data_type == "bigint":
        if precision is None:
            return "bigint"
        for bits, spark in INTEGER_PRECISIONS:
            if precision <= bits:
                return spark
        raise HintError(f"{where}: bigint precision={precision} has no Spark integer type (at most 64 bits)")
    if data_type == "decimal":
        p = DECIMAL_DEFAULT[0] if precision is None else precision
        s = DECIMAL_DEFAULT[1] if scale is None else scale
        if not 1 <= p <= DECIMAL_MAX_PRECISION or s > p:
            raise HintError(f"{where}: decimal({p},{s}) is not a Spark decimal: precision 1 to "
                             f"{DECIMAL_MAX_PRECISION}, scale at most the precision (defaults {DECIMAL_DEFAULT})")
        return f"decimal({p},{s})"
    return SPARK_BASE_TYPES[data_type]


# -- data types: the one type map; the others derive from it (normalize/schema.py, normalize/coerce.py,
# normalize/arrow.py, extract/pydantic_columns.py, load/spark_loader.py, sources/sql_database/source.py, `layout` above)
# a dlt data type's Spark SQL type (sized by `sized_type`)
SPARK_BASE_TYPES: Dict[str, str] = {
    "text": "string", "bigint": "bigint", "double": "double", "bool": "boolean", "decimal": "decimal(38,9)",
    "timestamp": "timestamp", "date": "date", "json": "string", "binary": "binary",
}
# a Spark SQL type's Arrow type, as the pyarrow factory and its arguments (stdlib only here: normalize/schema.py
# calls them); a decimal(p,s) is decimal128(p, s)
SPARK_ARROW_TYPES: Dict[str, Tuple[str, Tuple[Any, ...]]] = {
    "string": ("string", ()), "tinyint": ("int8", ()), "smallint": ("int16", ()), "int": ("int32", ()),
    "bigint": ("int64", ()), "double": ("float64", ()), "boolean": ("bool_", ()), "timestamp": ("timestamp", ("us", "UTC")),
    "date": ("date32", ()), "binary": ("binary", ()),
}
# a Python value's dlt data type, by its type; a subclass takes the first entry it is an instance of (bool
# before int, datetime before date). "time" is no column type: a time value lands as text (normalize/coerce.py)
PYTHON_DATA_TYPES: Tuple[Tuple[type, str], ...] = (
    (bool, "bool"), (dict, "json"), (list, "json"), (tuple, "json"), (decimal.Decimal, "decimal"),
    (dt.datetime, "timestamp"), (dt.date, "date"), (dt.time, "time"), (str, "text"), (float, "double"),
    (int, "bigint"), (bytes, "binary"),
)
# the Python types whose values a column of their data type takes as they are (no conversion, no JSON)
PYTHON_SCALARS: Tuple[Tuple[type, str], ...] = tuple((kind, data_type) for kind, data_type in PYTHON_DATA_TYPES
                                                    if data_type in SPARK_BASE_TYPES and data_type != "json")
