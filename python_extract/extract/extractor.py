"""The extractor: runs resources and streams their items, normalised and typed, into load packages.

For each resource in turn: bind its cursor arguments (`Incremental`, `DateWindows`) to its state,
iterate its items through the incremental filter (closing the generator early when `row_order`
allows), normalise each item into root and child rows, type them with the schema and write them to
the current package. A resource with `write_disposition="replace"` starts from empty state (dlt).
Date windows seal a package after every window that produced rows, carrying the state after that
window; everything else goes into one package sealed at the end with the final state. A package is
sealed only when it has rows or the state changed.

Errors: anything raised while extracting becomes `PipelineStepFailed("extract", ...)` naming the load
and table; the unsealed package is discarded, packages already sealed stay for the load step.
"""
from __future__ import annotations

import copy
import json
import logging
import pickle
import tempfile
import time
from typing import IO, Any, Dict, Iterator, List, Optional

from ..contract import KEY_HINTS, as_key_list, check_columns, split_disposition
from ..errors import HintError, PipelineStepFailed, SparkloadError
from ..hooks import Hooks
from ..normalize import Schema, normalize_item
from ..normalize.arrow_batch import normalize_batch
from ..normalize.naming import normalize_identifier, normalize_path
from ..normalize.not_null import NotNullCheck
from ..normalize.schema_contract import EVOLVE, ContractGate, DiscardRow
from ..packages import LoadPackage, PackageStorage, PackageWriter, new_load_id
from ..state import State, resource_state, snapshot
from . import current
from .checkpoint import CHECKPOINT
from .incremental import Incremental
from .mark import HintsMarked, TableNamed
from .resource import Resource, ResourceState
from .windows import DateWindows

log = logging.getLogger("sparkload.extract")
PROGRESS_EVERY = 10_000
PROGRESS_SECONDS = 1.0  # a slow source (an API page a second) still reports while it runs
BATCH_ITEMS = 10_000


class Extractor:
    def __init__(self, storage: PackageStorage, dataset: str, schema: Schema, state: State, hooks: Hooks,
                 default_source: str, batch_rows: Optional[int] = None):
        self.storage, self.dataset, self.schema, self.state, self.hooks = storage, dataset, schema, state, hooks
        self.default_source = default_source
        self.batch_rows = batch_rows
        self.sealed: List[LoadPackage] = []
        self._writer: Optional[PackageWriter] = None
        self._committed = json.dumps(snapshot(state), sort_keys=True)
        self.not_null = NotNullCheck(schema)
        self._tees: Dict[str, Optional[IO[bytes]]] = {}  # a parent's name -> what its run kept for its transformers
        self.contracts = ContractGate(schema)
        self._seen_tables: set = set()  # tables whose resource hints this extraction applied (schema contract)

    @property
    def writer(self) -> PackageWriter:
        if self._writer is None:
            kwargs = {"batch_rows": self.batch_rows} if self.batch_rows else {}
            self._writer = self.storage.writer(new_load_id(), self.dataset, self.schema, **kwargs)
        return self._writer

    def extract(self, resources: List[Resource]) -> List[LoadPackage]:
        """Extract every resource; returns the sealed packages in load order. A transformer whose parent
        runs too is fed what the parent's run kept (recorded to a temporary file as it passes, so the parent
        runs once and its cursors move once, as in dlt); the parent runs first."""
        resources = _parents_first(resources)
        names = {r.name for r in resources}
        self._tees = {
            r.parent.name: None for r in resources if r.is_transformer and r.parent is not None and r.parent.name in names}
        self.schema.variant_gate = self.contracts.variant
        try:
            for res in resources:
                self._extract_resource(res)
            self._seal()
        except BaseException:
            if self._writer is not None:
                self._writer.discard()
                self._writer = None
            raise
        finally:
            self.schema.variant_gate = None
            for tee in self._tees.values():
                if tee is not None:
                    tee.close()
        return self.sealed

    def _extract_resource(self, res: Resource) -> None:
        source = res.source_name or self.default_source
        rstate = resource_state(self.state, source, res.name)
        self.contracts.source_contract = res.source_schema_contract
        with current.extracting(source, res.name, self.state["sources"][source], rstate):
            self._extract_resource_with(res, rstate)

    def _extract_resource_with(self, res: Resource, rstate: Dict[str, Any]) -> None:
        if res.write_disposition == "replace":
            rstate.clear()
        cursors = res.cursor_arguments()
        windows = {k: v for k, v in cursors.items() if isinstance(v, DateWindows)}
        incrementals = {k: v for k, v in cursors.items() if isinstance(v, Incremental)}
        states = {k: rstate.setdefault("custom", {}) for k, v in cursors.items() if isinstance(v, ResourceState)}
        if len(windows) > 1:
            raise PipelineStepFailed("extract", f"resource {res.name} has {len(windows)} date_windows arguments; one is supported")
        if not windows:
            self._extract_pass(res, rstate, incrementals, dict(states))
            return
        (arg, spec), = windows.items()
        saved = rstate.setdefault("windows", {})
        for window in spec.windows(saved.get(arg)):
            rows = self._extract_pass(res, rstate, incrementals, {**states, arg: window})
            saved[arg] = DateWindows.checkpoint(window)
            if rows:
                self._seal()

    def _extract_pass(self, res: Resource, rstate: Dict[str, Any], incrementals: Dict[str, Incremental],
                      bound: Dict[str, Any]) -> int:
        """One call of the resource (one window); returns the rows written."""
        bound_cursors = {k: inc.bind(rstate, res.name, res.primary_key) for k, inc in incrementals.items()}
        filters = list(bound_cursors.values())
        if res.incremental is not None:
            filters.append(res.incremental.bind(rstate, res.name, res.primary_key))
        parent_filters: List[Incremental] = []
        if res.is_transformer:
            bound = {**bound, "parent_pages": self._parent_pages(res, parent_filters)}
        tee: Optional[IO[bytes]] = None
        if res.name in self._tees:  # one file for all of the parent's passes (its windows)
            tee = self._tees[res.name] = self._tees[res.name] or tempfile.TemporaryFile(prefix="sparkload-tee-")
        writer = self.writer
        load_id = writer.load_id
        table = None
        written = pages = yields = reported = 0
        self.hooks.emit("progress", resource=res.name, tables=dict(writer.counts), rows=0, pages=0, done=False)
        reported_at = time.monotonic()
        rows_before = sum(writer.counts.values())  # the load's rows of earlier resources: not this pass's
        batches: Dict[str, List[Any]] = {}
        passes = filters[0] if len(filters) == 1 else (lambda item: self._passes(filters, item))
        closable = [f for f in filters if f.row_order]
        limit = min(BATCH_ITEMS, writer.batch_rows)
        static_table = None  # the table of every item when the resource's table name is not a function
        limit_ = res.limit
        counter = limit_.counter() if limit_ is not None else None
        try:
            pages_iter = res.pages(**bound_cursors, **bound)
            for page in pages_iter:
                if page is None:  # dlt drops a yielded None (a None inside a yielded list is an item)
                    continue
                marked = None
                if type(page) is HintsMarked:  # mark.with_hints: the resource's hints from now on, or a variant's
                    marked, page, static_table = self._with_hints(res, page), page.data, None
                    if page is None:
                        continue
                if type(page) is TableNamed:  # mark.with_table_name: this yield's table, not the resource's
                    marked, page = self._table(res, None, page.table_name), page.data
                    if page is None:
                        continue
                if limit_ is not None and limit_.max_items == 0:  # dlt: a limit of 0 takes nothing
                    getattr(pages_iter, "close", lambda: None)()
                    break
                kept_before = written + sum(map(len, batches.values()))
                page_type = type(page)
                empty = limit_ is not None and (  # an empty list or Arrow table
                    (page_type is list and not page) or (_is_arrow(page) and page.num_rows == 0))
                pages += page_type is not dict  # a page is a list of items or an Arrow table
                if page_type is list and not page and res.schema_contract is not None and not callable(res.table_name):
                    marked or self._table(res, None)  # dlt checks a frozen new table on an empty page too
                yields += 1
                closing = False
                kept_page: Optional[List[Any]] = [] if tee is not None else None  # what a transformer is fed
                for item in page if page_type is list or isinstance(page, list) else (page,):
                    if type(item) is not dict:
                        if item is CHECKPOINT:
                            written += self._flush_batches(writer, res, batches)
                            self.not_null.raise_if_any()
                            for f in filters:
                                f.commit()
                            rows_before -= sum(writer.counts.values())  # the sealed rows stay counted
                            self._seal()
                            writer = self.writer
                            load_id = writer.load_id
                            continue
                        if _is_arrow(item):
                            table = marked or self._table(res, None)
                            written += self._write_arrow(writer, res, table, item, filters, kept_page)
                            if closable and any(f.can_close() for f in closable):
                                closing = True
                                break
                            continue
                    if not filters or passes(item):
                        if kept_page is not None:  # a copy: normalisation changes the item in place
                            kept_page.append(copy.deepcopy(item))
                        table = marked or static_table or self._table(res, item)
                        if static_table is None and marked is None and not callable(res.table_name):
                            static_table = table
                        batch = batches.get(table)
                        if batch is None:
                            batch = batches[table] = []
                        batch.append(item)
                        if len(batch) >= limit:
                            written += self._write_batch(writer, res, table, batches.pop(table))
                    if closable and any(f.can_close() for f in closable):
                        closing = True
                        break
                if kept_page:
                    pickle.dump(kept_page if page_type is list or isinstance(page, list) else kept_page[0], tee)
                if counter is not None and not closing:
                    # dlt counts after the cursors: a yield they left something of, or one that came empty
                    kept = written + sum(map(len, batches.values())) - kept_before
                    closing = counter.reached(kept, counts=kept > 0 or empty)
                if closing:
                    getattr(pages_iter, "close", lambda: None)()
                    break
                if yields % 1000 == 0 or written - reported >= PROGRESS_EVERY or time.monotonic() - reported_at >= PROGRESS_SECONDS:
                    reported, reported_at = written, time.monotonic()
                    rows = sum(writer.counts.values()) - rows_before + sum(map(len, batches.values()))
                    self.hooks.emit("progress", resource=res.name, tables=dict(writer.counts), rows=rows, pages=pages,
                                    done=False)
            written += self._flush_batches(writer, res, batches)
            self.not_null.raise_if_any()
            for f in filters + parent_filters:
                f.commit()
        except PipelineStepFailed:
            raise
        except SparkloadError as e:
            raise PipelineStepFailed("extract", str(e), load_id=load_id, table=getattr(e, "table", None) or table or res.name) from e
        except Exception as e:  # noqa: BLE001 - named with the step, the load and the table
            raise PipelineStepFailed("extract", f"resource {res.name}: {type(e).__name__}: {e}", load_id=load_id, table=table or res.name) from e
        self.hooks.emit("progress", resource=res.name, tables=dict(writer.counts), rows=sum(writer.counts.values()) - rows_before,
                        pages=pages, done=True)
        return written

    @staticmethod
    def _passes(filters: List[Incremental], item: Any) -> bool:
        for f in filters:
            if not f(item):
                return False
        return True

    def _table(self, res: Resource, item: Any, name: Optional[str] = None) -> str:
        """The table of `item` (or the one `name`s: mark.with_table_name), added to the schema with the
        resource's hints when new."""
        table = normalize_path(name or (res.table_for(item) if item is not None else res.table_for({})))
        if table in self.contracts.filtered_tables:  # the contract discards it: it stays out of the schema
            return table
        first = table not in self._seen_tables
        existed = table in self.schema.tables
        if not existed:
            self.schema.table(table, write_disposition=res.write_disposition, merge_strategy=res.merge_strategy,
                              merge_options=dict(res.merge_options), resource=res.name)
            self._apply_hints(table, {"primary_key": res.primary_key, "merge_key": res.merge_key, "columns": res.columns})
        if first:  # the resource's contract goes onto its table, which keeps it (dlt's table hint); then it is checked
            self._seen_tables.add(table)
            if res.schema_contract is not None:
                self.schema.tables[table].schema_contract = res.schema_contract
            if not existed:  # dlt decides on a new table before its hints typed any column
                self.schema.tables[table].columns, hinted = {}, self.schema.tables[table].columns
            allowed = False
            try:
                allowed = self.contracts.table(table, item)
            finally:
                if not existed:
                    self.schema.tables[table].columns = hinted
                if not allowed and not existed:  # a discarded or frozen new table never enters the schema
                    del self.schema.tables[table]
        return table

    def _apply_hints(self, table: str, hints: Dict[str, Any]) -> None:
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

    def _with_hints(self, res: Resource, mark: HintsMarked) -> Optional[str]:
        """dlt's merge of a `with_hints` mark: with `create_table_variant` the hints go to the table they name
        (added with the resource's hints first), which takes this yield (returned); otherwise they merge into
        the resource (columns added to its columns, the rest replaced) and onto its table, which takes this
        yield and the following ones (None: the resource's table)."""
        hints = dict(mark.hints)
        if hints.get("columns") is not None:
            hints["columns"] = check_columns(hints["columns"], f"resource {res.name}: mark.with_hints")
        if mark.create_table_variant:
            table = self._table(res, None, hints["table_name"])
            self._apply_hints(table, hints)
            return table
        if hints.get("columns") is not None:
            hints["columns"] = {**res.columns, **hints["columns"]}
        res.apply_hints(**hints)
        data = mark.data if isinstance(mark.data, dict) else None
        self._apply_hints(self._table(res, data), hints)
        return None

    def _flush_batches(self, writer: PackageWriter, res: Resource, batches: Dict[str, List[Any]]) -> int:
        written = sum(self._write_batch(writer, res, table, batch) for table, batch in batches.items())
        batches.clear()
        return written

    def _write_batch(self, writer: PackageWriter, res: Resource, table: str, items: List[Any]) -> int:
        """Normalise `items` of root `table` in Arrow at once; row by row where Arrow cannot (see
        normalize/arrow_batch.py); row by row through the schema contract where a contract applies. Returns the
        root rows written."""
        if table in self.contracts.filtered_tables:  # the schema contract discards the table's rows
            return 0
        if self.contracts.resolve(table) != EVOLVE:
            for item in items:
                self._write_item(writer, res, table, item, writer.load_id, self.contracts)
            return len(items)
        if res.max_table_nesting is None:
            def child(name: str, parent: str) -> None:
                if name not in self.schema.tables:
                    self.schema.table(name, write_disposition=res.write_disposition, parent=parent, resource=res.name)

            tables = normalize_batch(items, table, writer.load_id, self.schema, child)
            if tables is not None:
                for name, data in tables.items():
                    self.not_null.arrow(name, data, lambda column: name != table or _had_column(items, column))
                    writer.write_arrow(name, data)
                return len(items)
        for item in items:
            self._write_item(writer, res, table, item, writer.load_id)
        return len(items)

    def _write_item(self, writer: PackageWriter, res: Resource, table: str, item: Any, load_id: str,
                    contracts: Optional[ContractGate] = None) -> int:
        schema = self.schema
        tables = schema.tables
        written = 0
        not_null = self.not_null
        dropped: set = set()  # rows the schema contract discarded: their child rows go too, as in dlt
        for t, row in normalize_item(item, table, load_id, res.max_table_nesting, schema.is_json):
            if contracts is not None:
                if row.get("_dlt_parent_id") in dropped or not contracts.table(t, row):
                    dropped.add(row["_dlt_id"])
                    continue
            if t not in tables:
                schema.table(t, write_disposition=res.write_disposition, parent=t.rsplit("__", 1)[0], resource=res.name)
            if contracts is not None:
                try:
                    row = contracts.row(t, row)
                    absent = not_null.absent(t, row)
                    row = schema.coerce_row(t, row)
                except DiscardRow:
                    dropped.add(row["_dlt_id"])
                    continue
            else:
                absent = not_null.absent(t, row)
                row = schema.coerce_row(t, row)
            not_null.row(t, row, absent)
            writer.write(t, row)
            if t == table:
                written += 1
        return written

    def _write_arrow(self, writer: PackageWriter, res: Resource, table: str, data: Any, filters: List[Incremental],
                     kept_page: Optional[List[Any]] = None) -> int:
        from ..normalize.arrow import normalize_arrow

        if self.contracts.resolve(table) != EVOLVE:
            raise HintError(f"resource {res.name} table {table}: schema_contract={self.contracts.resolve(table)} on Arrow "
                            "tables is not built in sparkload; yield dicts, or drop the contract for this resource")
        for f in filters:
            data = f.filter_arrow(data)
        if data.num_rows and kept_page is not None:
            kept_page.append(data)
        if data.num_rows:
            # nested columns are encoded as JSON text on the package writer's threads (encode_nested)
            normalized = normalize_arrow(data, self.schema, table, writer.load_id, encode=False)
            self.not_null.arrow(table, normalized)
            writer.write_arrow(table, normalized)
        return data.num_rows

    def _parent_pages(self, res: Resource, parent_filters: List[Incremental]) -> Iterator[Any]:
        """What a transformer is fed: what its parent's run kept in this extract, or else the parent's pages
        through the parent's own cursors, bound to the parent's state (appended to `parent_filters`, which
        the transformer's pass commits) and its limit."""
        parent = res.parent
        if parent is None:
            raise PipelineStepFailed("extract", f"transformer {res.name} has no data: give it data_from=, or pipe a "
                                     f"resource into it (resource | {res.name})", table=res.name)
        tee = self._tees.get(parent.name)
        if tee is not None:
            return _replay(tee)
        source = parent.source_name or self.default_source
        pstate = resource_state(self.state, source, parent.name)
        bound: Dict[str, Any] = {}
        own: List[Incremental] = []  # the parent's cursors (parent_filters also gathers a chain's)
        for arg, value in parent.cursor_arguments().items():
            if isinstance(value, Incremental):
                bound[arg] = value.bind(pstate, parent.name, parent.primary_key)
                own.append(bound[arg])
            elif isinstance(value, ResourceState):
                bound[arg] = pstate.setdefault("custom", {})
            else:
                raise PipelineStepFailed("extract", f"transformer {res.name}: its parent {parent.name} has date windows; "
                                         "run the parent too (then the transformer is fed what its windows kept)",
                                         table=res.name)
        if parent.incremental is not None:
            own.append(parent.incremental.bind(pstate, parent.name, parent.primary_key))
        parent_filters.extend(own)
        if parent.is_transformer:  # a chain: the grandparent through its own cursors in turn
            bound["parent_pages"] = self._parent_pages(parent, parent_filters)
        pages = current.stepped_as(parent.pages(**bound), source, parent.name, self.state["sources"][source], pstate)
        kept = (page for page in map(lambda page: _filtered(page, own), pages) if page is not None)
        return parent._limited(kept) if parent.limit is not None else kept

    def seal_state(self) -> None:
        """Seal a package carrying the current state even if it looks unchanged (a reset)."""
        self._committed = ""
        self._seal()

    def _seal(self) -> None:
        current = json.dumps(snapshot(self.state), sort_keys=True)
        changed = current != self._committed
        if self._writer is None and not changed:
            return
        writer = self.writer
        self.hooks.emit("extract_done", package_dir=writer.root)
        package = writer.seal(json.loads(current) if changed else None)
        self._writer = None
        self._committed = current
        if package is not None:
            self.sealed.append(package)
            self.hooks.emit("package_sealed", package=package)


def _is_arrow(item: Any) -> bool:
    return type(item).__module__.startswith("pyarrow") and hasattr(item, "num_rows")


def _parents_first(resources: List[Resource]) -> List[Resource]:
    """`resources` with each transformer after its parent when the parent runs too (dlt's order)."""
    ordered: List[Resource] = []
    by_name = {r.name: r for r in resources}

    def add(res: Resource, seen: tuple) -> None:
        if res in ordered or res.name in seen:
            return
        parent = res.parent if res.is_transformer else None
        if parent is not None and parent.name in by_name:
            add(by_name[parent.name], seen + (res.name,))
        ordered.append(res)

    for res in resources:
        add(res, ())
    return ordered


def _filtered(page: Any, filters: List[Incremental]) -> Any:
    """A parent's page through its cursors: a list keeps the items they pass (None when none does), an
    item itself or None, an Arrow table the rows they keep."""
    if not filters or page is None:
        return page
    if isinstance(page, list):
        kept = [item for item in page if all(f(item) for f in filters)]
        return kept or None
    if _is_arrow(page):
        for f in filters:
            page = f.filter_arrow(page)
        return page if page.num_rows else None
    return page if all(f(page) for f in filters) else None


def _replay(tee: IO[bytes]) -> Iterator[Any]:
    """The pages a parent's run recorded, in order."""
    tee.seek(0)
    while True:
        try:
            yield pickle.load(tee)
        except EOFError:
            return


def _had_column(items: List[Dict[str, Any]], column: str) -> bool:
    """Whether a key of `items` becomes `column` (asked only when a required column came out absent: a failing load).
    A nested column (`a__b`) counts as had: its NULLs are told apart from a missing key only row by row."""
    return "__" in column or any(normalize_identifier(key) == column for item in items for key in item)
