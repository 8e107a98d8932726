"""One pass of a resource: one call of its function (one date window) through its pipe steps (extract/steps.py:
marks, cursors, limit; the user's maps and filters ran inside the resource before them) into the item extractor
of each item's type (extract/extractors.py: Python objects or Arrow tables), with checkpoints sealing the open
package on the way.

Errors: anything raised in the pass becomes `PipelineStepFailed("extract", ...)` naming the load and the table.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

from ..errors import PipelineStepFailed, SparkloadError
from ..packages import PackageWriter
from .checkpoint import CHECKPOINT
from .extractors import ArrowExtractor, ObjectExtractor, is_arrow
from .mark import HintsMarked, TableNamed
from .resource import Resource
from .steps import Cursors, LimitStep, Progress, Recorder, unmark

if TYPE_CHECKING:
    from .extractor import Extractor


class ResourcePass:
    """A resource's pipe for one call: each yield through `unmark` -> `Cursors` -> `LimitStep`, each item to
    `ObjectExtractor` or `ArrowExtractor`, what passed to the `Recorder` when transformers are fed from it;
    `CHECKPOINT` seals the package (the extraction's `seal`) and the pass goes on in a new one."""

    def __init__(self, extraction: "Extractor", res: Resource, cursors: Cursors, parent_cursors: Cursors,
                 recorder: Optional[Recorder]):
        self.extraction, self.res, self.tables = extraction, res, extraction.tables
        self.cursors, self.parent_cursors, self.recorder = cursors, parent_cursors, recorder
        self.limit = LimitStep(res.limit)
        writer = extraction.writer
        self.objects = ObjectExtractor(res, writer, extraction.schema, extraction.contracts, extraction.not_null)
        self.arrow = ArrowExtractor(res, writer, extraction.schema, extraction.contracts, extraction.not_null)
        self.progress = Progress(extraction.hooks, res.name, writer)
        self.table: Optional[str] = None  # the table written last: named by an error
        self.static_table: Optional[str] = None  # every item's table when the resource's table name is not a function
        self.written = self.pages = self.yields = 0

    @property
    def writer(self) -> PackageWriter:
        return self.objects.writer

    def run(self, open_pages: Callable[[], Iterator[Any]]) -> int:
        """Take every yield of `open_pages()` (closing it when a step says so); returns the root rows written."""
        res = self.res
        try:
            pages = open_pages()
            for page in pages:
                if page is not None and self._take(page):  # dlt drops a yielded None (a None in a list is an item)
                    getattr(pages, "close", lambda: None)()
                    break
            self.written += self.objects.flush()
            self.extraction.not_null.raise_if_any()
            self.cursors.commit()
            self.parent_cursors.commit()
        except PipelineStepFailed:
            raise
        except SparkloadError as e:
            raise PipelineStepFailed("extract", str(e), load_id=self.writer.load_id,
                                     table=getattr(e, "table", None) or self.table or res.name) from e
        except Exception as e:  # noqa: BLE001 - named with the step, the load and the table
            raise PipelineStepFailed("extract", f"resource {res.name}: {type(e).__name__}: {e}",
                                     load_id=self.writer.load_id, table=self.table or res.name) from e
        self.progress.done(self.writer, self.pages)
        return self.written

    def _take(self, page: Any) -> bool:
        """One yield through the steps; True when the resource is to be closed."""
        res, marked = self.res, None
        if type(page) in (HintsMarked, TableNamed):
            hinted, marked, page = unmark(page, self.tables, res)
            if hinted:  # the resource's table may have changed
                self.static_table = None
            if page is None:
                return False
        if self.limit.takes_nothing:
            return True
        counting = self.limit.counter is not None
        kept_before = self.written + self.objects.pending if counting else 0
        empty = counting and self.limit.counts_empty(page)
        page_type = type(page)
        self.pages += page_type is not dict  # a page is a list of items or an Arrow table
        if page_type is list and not page and res.schema_contract is not None and not callable(res.table_name):
            marked or self.tables.table(res, None)  # dlt checks a frozen new table on an empty page too
        self.yields += 1
        as_list = page_type is list or isinstance(page, list)
        closing = self._items(page if as_list else (page,), marked)
        if self.recorder is not None:
            self.recorder.end_page(as_list)
        if counting and not closing:
            closing = self.limit.reached(self.written + self.objects.pending - kept_before, empty)
        if closing:
            return True
        if self.progress.due(self.yields, self.written):
            self.progress.report(self.writer, self.written, self.objects.pending, self.pages)
        return False

    def _items(self, items: Iterable[Any], marked: Optional[str]) -> bool:
        """The items of one yield to their extractors; True when a cursor closes the resource."""
        res, tables, objects, recorder, cursors = self.res, self.tables, self.objects, self.recorder, self.cursors
        keeps, closable = cursors.keeps, cursors.closable
        fixed_name = not callable(res.table_name)
        for item in items:
            if type(item) is not dict:
                if item is CHECKPOINT:
                    self._checkpoint()
                    continue
                if is_arrow(item):
                    self._arrow_item(item, marked)
                    if closable and cursors.can_close():
                        return True
                    continue
            if keeps is None or keeps(item):
                if recorder is not None:
                    recorder.keep(item)
                table = self.table = marked or self.static_table or tables.table(res, item)
                if self.static_table is None and marked is None and fixed_name:
                    self.static_table = table
                self.written += objects.add(table, item)
            if closable and cursors.can_close():
                return True
        return False

    def _arrow_item(self, data: Any, marked: Optional[str]) -> None:
        table = self.table = marked or self.tables.table(self.res, None)
        self.arrow.refuse_contract(table)
        data = self.cursors.arrow(data)
        if self.recorder is not None:
            self.recorder.keep_arrow(data)
        self.written += self.arrow.write(table, data)

    def _checkpoint(self) -> None:
        """`CHECKPOINT`: the rows so far and the state as it is now are one load; the pass goes on in a new one."""
        self.written += self.objects.flush()
        self.extraction.not_null.raise_if_any()
        self.cursors.commit()
        self.progress.sealing(self.writer)
        self.extraction.seal()
        self.objects.writer = self.arrow.writer = self.extraction.writer
