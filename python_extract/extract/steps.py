"""The steps of a resource's pipe in a pipeline run, each one concern. A yield leaves the resource's function
through the user's `add_map` / `add_filter` / `add_yield_map` steps, in the order they were added
(resource.py), then passes, in dlt's order: `unmark` (a `mark.with_hints` / `with_table_name` wrapper taken off),
`Cursors` (the bound incremental cursors keep or drop each item and may close the resource), `LimitStep`
(`add_limit`, counted after the cursors). `Recorder` keeps what passed for the resource's transformers and
`Progress` reports. The pass that runs them is extract/pipe.py; the item extractors are extract/extractors.py.
"""
from __future__ import annotations

import copy
import pickle
import time
from typing import IO, Any, Callable, Iterator, List, Optional, Tuple

from ..hooks import Hooks
from ..packages import PackageWriter
from .extractors import is_arrow
from .incremental import Incremental
from .mark import HintsMarked, TableNamed
from .resource import Limit, Resource

PROGRESS_EVERY = 10_000
PROGRESS_SECONDS = 1.0  # a slow source (an API page a second) still reports while it runs


class Cursors:
    """The incremental cursors bound for one pass: a function argument's and the resource's `incremental`."""

    def __init__(self, bound: List[Incremental]):
        self.bound = bound
        self.closable = [f for f in bound if f.row_order]
        # the hot path calls `keeps` once per item: the one cursor itself when there is one, None when none
        self.keeps: Optional[Callable[[Any], bool]] = None if not bound else bound[0] if len(bound) == 1 else self._all

    def _all(self, item: Any) -> bool:
        for f in self.bound:
            if not f(item):
                return False
        return True

    def can_close(self) -> bool:
        """True when a cursor's `row_order` says no later row can pass: the pass closes the resource."""
        return any(f.can_close() for f in self.closable)

    def arrow(self, data: Any) -> Any:
        for f in self.bound:
            data = f.filter_arrow(data)
        return data

    def page(self, page: Any) -> Any:
        """A page through the cursors: a list keeps the items they pass (None when none does), an item itself or
        None, an Arrow table the rows they keep (None when none)."""
        if not self.bound or page is None:
            return page
        if isinstance(page, list):
            kept = [item for item in page if all(f(item) for f in self.bound)]
            return kept or None
        if is_arrow(page):
            page = self.arrow(page)
            return page if page.num_rows else None
        return page if all(f(page) for f in self.bound) else None

    def commit(self) -> None:
        for f in self.bound:
            f.commit()


class LimitStep:
    """dlt's `add_limit` in a pipeline: counted per yield after the cursors (a yield they left something of,
    or one that came empty), rows with `count_rows`."""

    def __init__(self, limit: Optional[Limit]):
        self.limit = limit
        self.counter = limit.counter() if limit is not None else None
        self.takes_nothing = limit is not None and limit.max_items == 0  # dlt: a limit of 0 takes nothing

    def counts_empty(self, page: Any) -> bool:
        """Whether `page` is an empty list or Arrow table (counted as a yield though nothing of it is kept)."""
        return self.counter is not None and (
            (type(page) is list and not page) or (is_arrow(page) and page.num_rows == 0))

    def reached(self, kept: int, empty: bool) -> bool:
        return self.counter is not None and self.counter.reached(kept, counts=kept > 0 or empty)


def unmark(page: Any, tables: Any, res: Resource) -> Tuple[bool, Optional[str], Any]:
    """A yield without its marks: (whether a `with_hints` mark changed the resource's hints, the table a mark
    sends it to or None, the data). `tables` (extract/tables.py) applies the hints as dlt merges them."""
    hinted, marked = False, None
    if type(page) is HintsMarked:
        hinted, marked, page = True, tables.with_hints(res, page), page.data
        if page is None:
            return hinted, marked, None
    if type(page) is TableNamed:
        marked, page = tables.table(res, None, page.table_name), page.data
    return hinted, marked, page


class Recorder:
    """What a parent's pass kept, page by page, for its transformers (dlt runs a parent once and feeds both):
    pickled to a temporary file as it passes (one file for all the parent's passes) and replayed in order."""

    def __init__(self, file: IO[bytes]):
        self.file = file
        self.kept: List[Any] = []

    def keep(self, item: Any) -> None:
        self.kept.append(copy.deepcopy(item))  # a copy: normalization changes the item in place

    def keep_arrow(self, data: Any) -> None:
        if data.num_rows:
            self.kept.append(data)

    def end_page(self, as_list: bool) -> None:
        if self.kept:
            pickle.dump(self.kept if as_list else self.kept[0], self.file)
        self.kept = []

    @staticmethod
    def replay(file: IO[bytes]) -> Iterator[Any]:
        file.seek(0)
        while True:
            try:
                yield pickle.load(file)
            except EOFError:
                return


class Progress:
    """`progress` hook events of one pass: at its start, every 1000 yields, PROGRESS_EVERY rows or
    PROGRESS_SECONDS, and at its end. Rows are this pass's, in the open package and in earlier ones it sealed."""

    def __init__(self, hooks: Hooks, resource: str, writer: PackageWriter):
        self.hooks, self.resource = hooks, resource
        self.rows_before = sum(writer.counts.values())  # the load's rows of earlier resources: not this pass's
        self.reported, self.reported_at = 0, time.monotonic()
        hooks.emit("progress", resource=resource, tables=dict(writer.counts), rows=0, pages=0, done=False)

    def sealing(self, writer: PackageWriter) -> None:
        self.rows_before -= sum(writer.counts.values())  # the sealed rows stay counted

    def due(self, yields: int, written: int) -> bool:
        return yields % 1000 == 0 or written - self.reported >= PROGRESS_EVERY or \
            time.monotonic() - self.reported_at >= PROGRESS_SECONDS

    def report(self, writer: PackageWriter, written: int, pending: int, pages: int) -> None:
        self.reported, self.reported_at = written, time.monotonic()
        self._emit(writer, sum(writer.counts.values()) - self.rows_before + pending, pages, False)

    def done(self, writer: PackageWriter, pages: int) -> None:
        self._emit(writer, sum(writer.counts.values()) - self.rows_before, pages, True)

    def _emit(self, writer: PackageWriter, rows: int, pages: int, done: bool) -> None:
        self.hooks.emit("progress", resource=self.resource, tables=dict(writer.counts), rows=rows, pages=pages, done=done)
