"""Which table an item goes to, and the hints that table takes: the resource's (when the table is new), a
`mark.with_hints` mark's, and the schema contract's verdict on a new table. One per extraction: the tables
whose hints it applied are remembered across resources (dlt applies a resource's contract to its table once).
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from ..contract import KEY_HINTS, as_key_list, check_columns, split_disposition
from ..normalize import Schema
from ..normalize.naming import normalize_path
from ..normalize.not_null import NotNullCheck
from ..normalize.schema_contract import ContractGate
from .mark import HintsMarked
from .resource import Resource


class Tables:
    def __init__(self, schema: Schema, contracts: ContractGate, not_null: NotNullCheck):
        self.schema, self.contracts, self.not_null = schema, contracts, not_null
        self._seen: set = set()  # tables whose resource hints this extraction applied (schema contract)

    def table(self, res: Resource, item: Any, name: Optional[str] = None) -> str:
        """The table of `item` (or the one `name`s: mark.with_table_name), added to the schema with the
        resource's hints when new."""
        table = normalize_path(name or (res.table_for(item) if item is not None else res.table_for({})))
        if table in self.contracts.filtered_tables:  # the contract discards it: it stays out of the schema
            return table
        first = table not in self._seen
        existed = table in self.schema.tables
        if not existed:
            self.schema.table(table, write_disposition=res.write_disposition, merge_strategy=res.merge_strategy,
                              merge_options=dict(res.merge_options), resource=res.name)
            self.apply_hints(table, {"primary_key": res.primary_key, "merge_key": res.merge_key, "columns": res.columns})
        if first:  # the resource's contract goes onto its table, which keeps it (dlt's table hint); then it is checked
            self._seen.add(table)
            self._check_contract(res, table, item, existed)
        return table

    def _check_contract(self, res: Resource, table: str, item: Any, existed: bool) -> None:
        tables = self.schema.tables
        if res.schema_contract is not None:
            tables[table].schema_contract = res.schema_contract
        if not existed:  # dlt decides on a new table before its hints typed any column
            tables[table].columns, hinted = {}, tables[table].columns
        allowed = False
        try:
            allowed = self.contracts.table(table, item)
        finally:
            if not existed:
                tables[table].columns = hinted
            if not allowed and not existed:  # a discarded or frozen new table never enters the schema
                del tables[table]

    def apply_hints(self, table: str, hints: Dict[str, Any]) -> None:
        """Key, column and write disposition hints onto `table` of the schema."""
        for hint in KEY_HINTS:
            for key in as_key_list(hints.get(hint)):
                self.schema.set_column_hints(table, normalize_path(key), {hint: True, "nullable": False})
        for column, column_hints in (hints.get("columns") or {}).items():
            self.schema.set_column_hints(table, normalize_path(column), column_hints)
        if hints.get("write_disposition") is not None:
            meta = self.schema.tables[table]
            meta.write_disposition, meta.merge_strategy, meta.merge_options = split_disposition(
                hints["write_disposition"], f"table {table}")
        self.not_null.forget(table)

    def with_hints(self, res: Resource, mark: HintsMarked) -> Optional[str]:
        """dlt's merge of a `with_hints` mark: with `create_table_variant` the hints go to the table they name
        (added with the resource's hints first), which takes this yield (returned); otherwise they merge into
        the resource (columns added to its columns, the rest replaced) and onto its table, which takes this
        yield and the following ones (None: the resource's table)."""
        hints = dict(mark.hints)
        if hints.get("columns") is not None:
            hints["columns"] = check_columns(hints["columns"], f"resource {res.name}: mark.with_hints")
        if mark.create_table_variant:
            table = self.table(res, None, hints["table_name"])
            self.apply_hints(table, hints)
            return table
        if hints.get("columns") is not None:
            hints["columns"] = {**res.columns, **hints["columns"]}
        res.apply_hints(**hints)
        data = mark.data if isinstance(mark.data, dict) else None
        self.apply_hints(self.table(res, data), hints)
        return None
