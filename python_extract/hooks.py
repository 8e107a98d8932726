"""Documented hook points of a pipeline run: callbacks registered with `pipeline.hooks.register`.

    extract_done      (package_dir)         rows of a package are extracted and normalized; not sealed
    package_sealed    (package)             the package is in normalized/ (state committed locally)
    table_landed      (package, table)      one table of the package is in its staging table (the tables, the
                                            state row and the schema version land at once)
    tables_landed     (package)             every table landed, and the state row is written
    state_written     (package)             (a package with state) the same moment; `_dlt_loads` next
    load_completed    (package)             the `_dlt_loads` row is written; the package moves to loaded/
    progress          (resource, tables, rows, pages, done)  at the start of a resource pass, every 10,000
                                                    rows, 1,000 yields or second, and at its end (done=True);
                                                    `rows`: the pass's rows so far in every table (an item not yet
                                                    normalized counts one), `tables`: the load's rows per table

Progress displays (the CLI) and crash tests (a callback that kills its own process) use them.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Dict, List

EVENTS = ("extract_done", "package_sealed", "table_landed", "tables_landed", "state_written", "load_completed", "progress")


class Hooks:
    def __init__(self) -> None:
        self._callbacks: Dict[str, List[Callable[..., Any]]] = defaultdict(list)

    def register(self, event: str, callback: Callable[..., Any]) -> None:
        if event not in EVENTS:
            raise ValueError(f"unknown hook {event!r}; expected one of {', '.join(EVENTS)}")
        self._callbacks[event].append(callback)

    def emit(self, event: str, **kwargs: Any) -> None:
        for callback in self._callbacks.get(event, ()):
            callback(**kwargs)
