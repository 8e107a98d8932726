"""dlt's schema contracts: which schema changes a table takes, and what happens to data that would make others.

A contract is a mode per entity: `tables` (a new table, root or child), `columns` (a new column of a table that
already had data) and `data_type` (a variant column `<col>__v_<type>`: a value its column's type cannot take).
Modes: `evolve` (take the change), `freeze` (fail the load with `DataValidationError`), `discard_row` (drop the
row, and its child rows), `discard_value` (drop the value; for a table: its rows). `"freeze"` is shorthand for
freezing all three; a dict sets some and leaves the others `evolve`, as dlt's `expand_schema_contract_settings`.

Where a table's contract comes from, first hit wins (dlt's precedence): `run(schema_contract=...)` (applied as a
hint of every resource it runs), the resource's own `schema_contract`, the one its table kept in the schema
from an earlier load, its parent table's (a child table inherits), the source's `schema_contract`, `evolve`.
A table first seen in this extraction takes every column of it (dlt's "evolve columns once").

Reads: the schema (normalize/schema.py); raises `DataValidationError` (normalize/exceptions.py), `HintError`
for a contract that is not one.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Set

from ..contract import DLT_COLUMNS, SCHEMA_CONTRACT_ENTITIES, SCHEMA_EVOLUTION_MODES
from ..errors import HintError, did_you_mean
from .exceptions import DataValidationError

Contract = Dict[str, str]
EVOLVE: Contract = {entity: "evolve" for entity in SCHEMA_CONTRACT_ENTITIES}


def check_contract(settings: Any, owner: str) -> Any:
    """`settings` as given (a mode, or a dict of entity -> mode), after checking it; None stays None.

    >>> check_contract({"columns": "freeze"}, "resource r")
    {'columns': 'freeze'}
    """
    if settings is None:
        return None
    if isinstance(settings, str):
        if settings not in SCHEMA_EVOLUTION_MODES:
            raise HintError(f"{owner}: schema_contract={settings!r}{did_you_mean(settings, SCHEMA_EVOLUTION_MODES)}; "
                            f"expected one of {', '.join(SCHEMA_EVOLUTION_MODES)}, or a dict of "
                            f"{', '.join(SCHEMA_CONTRACT_ENTITIES)} to one of them")
        return settings
    if not isinstance(settings, dict):
        if hasattr(settings, "model_fields"):
            raise HintError(f"{owner}: schema_contract={settings!r}: a Pydantic model is taken by dlt as `columns`, which "
                            "sparkload does not build; give a mode or a dict")
        raise HintError(f"{owner}: schema_contract={settings!r}; expected one of {', '.join(SCHEMA_EVOLUTION_MODES)} or "
                        f"a dict of {', '.join(SCHEMA_CONTRACT_ENTITIES)} to one of them")
    for entity, mode in settings.items():
        if entity not in SCHEMA_CONTRACT_ENTITIES:
            raise HintError(f"{owner}: schema_contract key {entity!r}{did_you_mean(entity, SCHEMA_CONTRACT_ENTITIES)}; "
                            f"expected {', '.join(SCHEMA_CONTRACT_ENTITIES)}")
        if mode not in SCHEMA_EVOLUTION_MODES:
            raise HintError(f"{owner}: schema_contract {entity}={mode!r}{did_you_mean(mode, SCHEMA_EVOLUTION_MODES)}; "
                            f"expected one of {', '.join(SCHEMA_EVOLUTION_MODES)}")
    return dict(settings)


def expand(settings: Any) -> Contract:
    """A checked contract with every entity set (dlt's expansion: unset entities evolve).

    >>> expand("freeze")["data_type"], expand({"tables": "freeze"})["columns"]
    ('freeze', 'evolve')
    """
    if isinstance(settings, str):
        return {entity: settings for entity in SCHEMA_CONTRACT_ENTITIES}
    return {**EVOLVE, **(settings or {})}


class DiscardRow(Exception):
    """A row (and its child rows) the contract drops; caught by the extractor, never seen by users."""


class ContractGate:
    """Applies each table's contract to the rows of one extraction, before the schema types them.

    `new_tables` are the tables first seen in this extraction, which take new columns whatever their contract
    (dlt's evolve-columns-once); `source_contract` is the contract of the source whose resource runs now."""

    def __init__(self, schema: Any):
        self.schema = schema
        self.new_tables: Set[str] = set()
        self.filtered_tables: Set[str] = set()
        self.source_contract: Any = None

    def resolve(self, table: str) -> Contract:
        """The table's contract: the nearest one it or its parents kept in the schema, else the source's."""
        return expand(_kept(self.schema, table, self.source_contract))

    def is_new(self, table: str) -> bool:
        """dlt's `is_new_table`: not in the schema, or without a column that has a data type."""
        meta = self.schema.tables.get(table)
        return meta is None or not any(c.get("data_type") for c in meta.columns.values())

    def table(self, table: str, data_item: Any) -> bool:
        """Whether rows of `table` may land (False: the contract discards the table's rows); a frozen new
        table raises. Records a new table as taking every column of this extraction."""
        if table in self.filtered_tables:
            return False
        if table in self.new_tables or not self.is_new(table):
            return True
        contract = self.resolve(table)
        mode = contract["tables"]
        if mode == "freeze":
            raise DataValidationError(self.schema.name, table, None, "tables", "freeze", None, contract, data_item,
                                      f"can't add table {table} because tables are frozen")
        if mode != "evolve":
            self.filtered_tables.add(table)
            return False
        self.new_tables.add(table)
        return True

    def row(self, table: str, row: Dict[str, Any]) -> Dict[str, Any]:
        """`row` with the values the contract discards removed; raises `DiscardRow` or `DataValidationError`."""
        if table in self.new_tables:
            return row
        meta = self.schema.tables[table]
        columns = meta.columns
        new = [name for name, value in row.items() if value is not None and name not in DLT_COLUMNS
               and not (columns.get(name) or {}).get("data_type")]
        if not new:
            return row
        contract = self.resolve(table)
        mode = contract["columns"]
        if mode == "evolve":
            return row
        if mode == "freeze":
            raise DataValidationError(self.schema.name, table, new[0], "columns", "freeze", _columns(meta), contract, row,
                                      f"can't add column {new[0]} to table {table} because columns are frozen")
        if mode == "discard_row":
            raise DiscardRow()
        for name in new:
            del row[name]
        return row

    def variant(self, table: str, column: str, variant: str, value: Any) -> bool:
        """Whether a new variant column `variant` of `column` may take `value` (False: drop the value);
        raises `DiscardRow` or `DataValidationError`. The schema asks this before it adds a variant."""
        contract = self.resolve(table)
        mode = contract["data_type"]
        if mode == "evolve":
            return True
        if mode == "freeze":
            meta = self.schema.tables[table]
            raise DataValidationError(self.schema.name, table, variant, "data_type", "freeze", _columns(meta), contract,
                                      {variant: value}, f"can't add variant column {variant} for column {column} of "
                                      f"table {table} because data types are frozen")
        if mode == "discard_row":
            raise DiscardRow()
        return False


def _columns(meta: Any) -> Dict[str, Any]:
    return {"name": meta.name, "columns": {name: dict(c) for name, c in meta.columns.items()}}


def _kept(schema: Any, table: str, default: Any) -> Any:
    name: Optional[str] = table
    while name:
        meta = schema.tables.get(name)
        if meta is not None and meta.schema_contract is not None:
            return meta.schema_contract
        name = meta.parent if meta is not None else (name.rsplit("__", 1)[0] if "__" in name else None)
    return default
