"""The extractor: runs resources and streams their items, normalized and typed, into load packages.

For each resource in turn: bind its cursor arguments (`Incremental`, `DateWindows`) to its state, then run
one pass per call of the resource (extract/pipe.py): its yields go through the pipe's steps (extract/steps.py:
the user's maps and filters, marks, the incremental cursors, which may close the generator early when
`row_order` allows, and `add_limit`) into the extractor of their item type (extract/extractors.py: Python
objects or Arrow tables), which normalizes, types and writes them to the current package. Which table an
item goes to and the hints it takes is extract/tables.py. A resource with `write_disposition="replace"`
starts from empty state (dlt). Date windows seal a package after every window that produced rows, carrying
the state after that window; everything else goes into one package sealed at the end with the final state.
A package is sealed only when it has rows or the state changed.

Errors: anything raised while extracting becomes `PipelineStepFailed("extract", ...)` naming the load and
table; the unsealed package is discarded, packages already sealed stay for the load step.
"""
from __future__ import annotations

import json
import logging
import tempfile
from typing import IO, Any, Dict, Iterator, List, Optional

from ..errors import PipelineStepFailed
from ..hooks import Hooks
from ..normalize import Schema
from ..normalize.not_null import NotNullCheck
from ..normalize.schema_contract import ContractGate
from ..packages import LoadPackage, PackageStorage, PackageWriter, new_load_id
from ..state import State, resource_state, snapshot
from . import current
from .incremental import Incremental
from .pipe import ResourcePass
from .resource import Resource, ResourceState
from .steps import Cursors, Recorder
from .tables import Tables
from .windows import DateWindows

log = logging.getLogger("sparkload.extract")


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
        self.tables = Tables(schema, self.contracts, self.not_null)

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
            self.seal()
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
            self._pass(res, rstate, incrementals, dict(states))
            return
        (arg, spec), = windows.items()
        saved = rstate.setdefault("windows", {})
        for window in spec.windows(saved.get(arg)):
            rows = self._pass(res, rstate, incrementals, {**states, arg: window})
            saved[arg] = DateWindows.checkpoint(window)
            if rows:
                self.seal()

    def _pass(self, res: Resource, rstate: Dict[str, Any], incrementals: Dict[str, Incremental],
              bound: Dict[str, Any]) -> int:
        """One call of the resource (one window) through its pipe (extract/pipe.py); returns the rows written."""
        bound_cursors = {k: inc.bind(rstate, res.name, res.primary_key) for k, inc in incrementals.items()}
        cursors = list(bound_cursors.values())
        if res.incremental is not None:
            cursors.append(res.incremental.bind(rstate, res.name, res.primary_key))
        parent_cursors: List[Incremental] = []  # a transformer's pass commits its parent's cursors too
        if res.is_transformer:
            bound = {**bound, "parent_pages": self._parent_pages(res, parent_cursors)}
        recorder = None
        if res.name in self._tees:  # one file for all of the parent's passes (its windows)
            tee = self._tees[res.name] = self._tees[res.name] or tempfile.TemporaryFile(prefix="sparkload-tee-")
            recorder = Recorder(tee)
        one = ResourcePass(self, res, Cursors(cursors), Cursors(parent_cursors), recorder)
        return one.run(lambda: res.pages(**bound_cursors, **bound))

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
            return Recorder.replay(tee)
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
        cursors = Cursors(own)
        kept = (page for page in map(cursors.page, pages) if page is not None)
        return parent._limited(kept) if parent.limit is not None else kept

    def seal_state(self) -> None:
        """Seal a package carrying the current state even if it looks unchanged (a reset)."""
        self._committed = ""
        self.seal()

    def seal(self) -> None:
        """Seal the open package, or one carrying the state alone when it changed."""
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
