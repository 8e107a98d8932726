"""dlt's `dlt.mark`: `with_table_name` marks a yielded item or page with the table it goes to, whatever the
resource's `table_name` says (the table takes the resource's hints, as in dlt); `with_hints` marks one with
hints (`make_hints`) that the extractor merges into the resource from then on, or, with
`create_table_variant=True`, gives only to the table the hints name, where the item goes."""
from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional

from ..contract import TABLE_HINTS
from ..errors import HintError, did_you_mean


class TableNamed(NamedTuple):
    """A yielded item or page (a dict, a list of them, an Arrow table) and the table it goes to."""
    data: Any
    table_name: str


def with_table_name(item: Any, table_name: str) -> TableNamed:
    if not isinstance(table_name, str) or not table_name:
        raise HintError(f"mark.with_table_name: table_name={table_name!r} is not a table name")
    return TableNamed(item, table_name)


class HintsMarked(NamedTuple):
    """A yielded item or page and the hints it brings (extract/tables.py applies them)."""
    data: Any
    hints: Dict[str, Any]
    create_table_variant: bool


def make_hints(table_name: Any = None, write_disposition: Any = None, columns: Any = None, primary_key: Any = None,
               merge_key: Any = None, **not_built: Any) -> Dict[str, Any]:
    """dlt's `make_hints`: the given table hints (the contract's TableHints) as a dict for `with_hints`. dlt's
    other arguments (parent_table_name, schema_contract, table_format, file_format, references, incremental,
    nested_hints) are refused by name when given, never ignored."""
    given = sorted(k for k, v in not_built.items() if v is not None)
    if given:
        raise HintError(f"mark.make_hints: {', '.join(given)} is not built in sparkload; it takes {', '.join(TABLE_HINTS)}")
    hints = {"table_name": table_name, "write_disposition": write_disposition, "columns": columns,
             "primary_key": primary_key, "merge_key": merge_key}
    return {k: v for k, v in hints.items() if v is not None}


def with_hints(item: Any, hints: Optional[Dict[str, Any]] = None, create_table_variant: bool = False) -> HintsMarked:
    unknown = sorted(set(hints or {}) - set(TABLE_HINTS))
    if unknown:
        named = ", ".join(f"{key}{did_you_mean(key, TABLE_HINTS)}" for key in unknown)
        raise HintError(f"mark.with_hints: unknown hint {named}; expected {', '.join(TABLE_HINTS)} (make_hints)")
    if create_table_variant and not (isinstance((hints or {}).get("table_name"), str) and hints["table_name"]):
        raise HintError("mark.with_hints(create_table_variant=True): the hints need a table_name (a string)")
    return HintsMarked(item, dict(hints or {}), bool(create_table_variant))
