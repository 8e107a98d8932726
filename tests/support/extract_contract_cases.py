"""Schema contract cases for the differential against dlt 1.31 (test_schema_contract_parity.py): the loads of
one resource, and where its contract is set at each load. A case passes when both sides land the same
tables after every load, and a load that fails fails on both with the same DataValidationError (table,
column, entity, mode)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

L1 = [{"id": 1, "a": "x"}]
L2 = [{"id": 2, "a": "y", "b": 5}, {"id": 3, "a": "z"}]
L3 = [{"id": 4, "a": "q", "b": 6}]
V1 = [{"id": 1, "n": 1}]
V2 = [{"id": 2, "n": "abc"}, {"id": 3, "n": "7"}, {"id": 4, "n": 8}]
K1 = [{"id": 1, "kids": [{"k": 1}]}]


@dataclass
class ContractCase:
    name: str
    loads: List[List[Dict[str, Any]]]
    resource: List[Any] = field(default_factory=list)  # the resource's contract per load (None: not set)
    source: Optional[Any] = None  # the source's, at every load (the case runs as a source)
    run: Optional[Any] = None  # run(schema_contract=...), at every load

    def at(self, load: int) -> Any:
        return self.resource[load] if load < len(self.resource) else None

    @property
    def alone(self) -> bool:
        """Run in a pipeline of its own: a source, a run-wide contract, or a load that fails."""
        return self.source is not None or self.run is not None or self.name.startswith("fails_")


def each(contract: Any, loads: int) -> List[Any]:
    return [contract] * loads


CASES = [
    # columns: a new column of a table that had data
    ContractCase("fails_columns_freeze", [L1, L2, L3], each({"columns": "freeze"}, 3)),
    ContractCase("columns_discard_row", [L1, L2, L3], each({"columns": "discard_row"}, 3)),
    ContractCase("columns_discard_value", [L1, L2, L3], each({"columns": "discard_value"}, 3)),
    ContractCase("columns_evolve", [L1, L2, L3], each({"columns": "evolve"}, 3)),
    ContractCase("columns_frozen_new_table_takes_every_column_of_its_first_load",
                 [[{"id": 1}, {"id": 2, "b": 1}], [{"id": 3, "c": 1}]], each({"columns": "discard_value"}, 2)),
    ContractCase("columns_frozen_null_in_a_new_column_is_no_new_column", [L1, [{"id": 2, "b": None}]],
                 each({"columns": "discard_row"}, 2)),
    ContractCase("columns_discard_value_in_a_child_table", [K1, [{"id": 2, "kids": [{"k": 2, "z": 3}]}]],
                 each({"columns": "discard_value"}, 2)),
    ContractCase("columns_discard_row_drops_the_child_rows_too",
                 [K1, [{"id": 2, "b": 1, "kids": [{"k": 2}]}, {"id": 3, "kids": [{"k": 3}]}]],
                 each({"columns": "discard_row"}, 2)),
    ContractCase("columns_discard_value_in_a_nested_dict", [[{"id": 1, "o": {"x": 1}}], [{"id": 2, "o": {"x": 2, "y": 3}}]],
                 each({"columns": "discard_value"}, 2)),
    ContractCase("fails_columns_contract_kept_by_the_table", [L1, L2], [{"columns": "freeze"}, None]),
    ContractCase("columns_contract_set_at_load_2", [L1, L2], [None, {"columns": "discard_row"}]),
    # data_type: a variant column (a value its column's type cannot take; "7" can: it is coerced)
    ContractCase("fails_data_type_freeze", [V1, V2], each({"data_type": "freeze"}, 2)),
    ContractCase("data_type_discard_row", [V1, V2], each({"data_type": "discard_row"}, 2)),
    ContractCase("data_type_discard_value", [V1, V2], each({"data_type": "discard_value"}, 2)),
    ContractCase("data_type_applies_in_a_new_tables_first_load", [[{"id": 1, "n": 1}, {"id": 2, "n": "abc"}]],
                 [{"data_type": "discard_row"}]),
    ContractCase("data_type_discard_row_in_a_child_table", [K1, [{"id": 2, "kids": [{"k": "x"}, {"k": 4}]}]],
                 each({"data_type": "discard_row"}, 2)),
    # tables: a new table, root or child
    ContractCase("fails_tables_freeze_on_a_new_table", [L1, L2], each({"tables": "freeze"}, 2)),
    ContractCase("fails_tables_freeze_on_an_empty_page", [[]], [{"tables": "freeze"}]),
    ContractCase("tables_discard_row_on_a_new_table", [L1, L2], each({"tables": "discard_row"}, 2)),
    ContractCase("tables_discard_value_on_a_new_table", [L1, L2], each({"tables": "discard_value"}, 2)),
    ContractCase("fails_tables_freeze_on_a_new_child_table", [L1, [{"id": 2, "kids": [{"k": 1}]}]], [None, {"tables": "freeze"}]),
    ContractCase("tables_discard_row_on_a_new_child_table_keeps_the_parent_rows",
                 [L1, [{"id": 2, "a": "y", "kids": [{"k": 1}, {"k": 2}]}, {"id": 3, "a": "z"}]], [None, {"tables": "discard_row"}]),
    ContractCase("tables_freeze_on_tables_that_exist", [K1, [{"id": 2, "kids": [{"k": 2}]}]], [None, {"tables": "freeze"}]),
    # the shorthand, and precedence: run > resource > source
    ContractCase("fails_shorthand_freeze_freezes_columns", [L1, L2], [None, "freeze"]),
    ContractCase("shorthand_discard_value", [L1, L2, V2], [None, "discard_value", "discard_value"]),
    ContractCase("fails_source_contract", [L1, L2], source={"columns": "freeze"}),
    ContractCase("resource_contract_wins_over_the_source", [L1, L2], each({"data_type": "freeze"}, 2),
                 source={"columns": "freeze"}),
    ContractCase("run_contract_wins_over_the_resource", [L1, L2], each({"columns": "freeze"}, 2),
                 run={"columns": "discard_value"}),
    ContractCase("run_contract_alone", [L1, L2], run={"columns": "discard_row"}),
    ContractCase("fails_run_contract_over_a_source", [L1, L2], source={"columns": "evolve"}, run="freeze"),
]
