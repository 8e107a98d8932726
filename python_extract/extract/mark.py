"""dlt's `dlt.mark.with_table_name`: a yielded item or page marked with the table it goes to, whatever the
resource's `table_name` says (the table takes the resource's hints, as in dlt)."""
from __future__ import annotations

from typing import Any, NamedTuple


class TableNamed(NamedTuple):
    """A yielded item or page (a dict, a list of them, an Arrow table) and the table it goes to."""
    data: Any
    table_name: str


def with_table_name(item: Any, table_name: str) -> TableNamed:
    if not isinstance(table_name, str) or not table_name:
        raise ValueError(f"mark.with_table_name: table_name={table_name!r} is not a table name")
    return TableNamed(item, table_name)
