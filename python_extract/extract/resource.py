"""dlt-style resources: a generator function (or any iterable) of items plus the hints of its table.

Items are dicts, lists of dicts (pages, flattened) or Arrow tables. The hints are the contract's
`ResourceHints` (python_extract/contract.py): `table_name` (a string, or a function of the item that
picks the table per item), `primary_key`, `merge_key`, `write_disposition` (`append` | `replace` |
`merge`, or dlt's `{"disposition": "merge", "strategy": "upsert"}`; recorded in the schema for the dbt
side, landing always appends), `columns` (per column: the contract's `ColumnHints`),
`max_table_nesting`, `incremental`.

A function argument whose default is an `Incremental` or a `DateWindows` is bound at run time to the
resource's stored state (see extract/extractor.py); an argument defaulting to `config.value` or
`secrets.value` is read from the config providers (extract/config.py).
"""
from __future__ import annotations

import functools
import inspect
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from ..contract import (
    DEFAULT_WRITE_DISPOSITION, KEY_HINTS, RESOURCE_HINTS, ColumnHints, Keys, as_key_list, check_columns, split_disposition,
)
from ..errors import HintError, did_you_mean
from ..normalize.schema_contract import check_contract
from .config import with_config
from .incremental import Incremental
from .mark import HintsMarked, TableNamed
from .pydantic_columns import ModelValidator, columns_of, contract_of, is_model
from .windows import DateWindows

TableName = Union[str, Callable[[Any], str]]



def _key_list(keys: Any, hint: str, owner: str) -> List[str]:
    """`as_key_list`, refusing what is not a column name or a list of them (a HintError naming the hint)."""
    if keys is None or isinstance(keys, str) or (isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys)):
        return as_key_list(keys)
    raise HintError(f"{owner}: {hint}={repr(keys)[:80]} ({type(keys).__name__}); expected a column name or a list of "
                    "column names")


def _table_name(value: Any, owner: str) -> Any:
    """A `table_name` hint: None, a non-empty string or a function of the item (a HintError naming it)."""
    if value is None or callable(value) or (isinstance(value, str) and value):
        return value
    raise HintError(f"{owner}: table_name={repr(value)[:80]} ({type(value).__name__}); expected a table name or a "
                    "function of the item returning one")


def _nesting(value: Any, owner: str) -> Any:
    """A `max_table_nesting` hint: None or a whole number >= 0 (a HintError naming it)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise HintError(f"{owner}: max_table_nesting={repr(value)[:80]} ({type(value).__name__}); expected a whole "
                    "number >= 0")


class ResourceState:
    """Default of a resource argument that receives the resource's own state dict, committed with the
    data like cursors are; for sources that keep cursors of their own (e.g. one per parent record)."""


@dataclass(frozen=True)
class Limit:
    """dlt's add_limit: at most `max_items` yields (rows with `count_rows`) or `max_time` seconds."""
    max_items: Optional[int]
    max_time: Optional[float]
    count_rows: bool

    def counter(self) -> "LimitCounter":
        return LimitCounter(self)


class LimitCounter:
    """One run's count against a `Limit`, from when it was made. What a yield counts is the caller's: a
    resource iterated directly counts every yield, a pipeline only what its cursors left (as dlt does)."""

    def __init__(self, limit: Limit):
        self.limit, self.counted, self.opened = limit, 0, time.monotonic()

    def reached(self, rows: int, counts: bool = True) -> bool:
        """Count a yield of `rows` rows (when `count_rows`; else one yield, if `counts`): is the limit reached?"""
        limit = self.limit
        self.counted += rows if limit.count_rows else int(counts)
        return (limit.max_items is not None and self.counted >= limit.max_items) or (
            limit.max_time is not None and time.monotonic() - self.opened > limit.max_time)


class Resource:
    """An iterable of items with table hints; calling it binds arguments of the wrapped function."""

    def __init__(
        self,
        data: Union[Callable[..., Iterable[Any]], Iterable[Any]],
        name: str,
        table_name: Optional[TableName] = None,
        write_disposition: Any = DEFAULT_WRITE_DISPOSITION,
        primary_key: Keys = None,
        merge_key: Keys = None,
        columns: Optional[Dict[str, ColumnHints]] = None,
        max_table_nesting: Optional[int] = None,
        incremental: Optional[Incremental] = None,
        section: Optional[str] = None,
        schema_contract: Any = None,
    ):
        self.write_disposition, self.merge_strategy, self.merge_options = split_disposition(write_disposition, f"resource {name}")
        self._data = with_config(data, section or name) if callable(data) else data
        self._args: Tuple[Any, ...] = ()
        self._kwargs: Dict[str, Any] = {}
        self.name = name
        self.table_name: TableName = _table_name(table_name, f"resource {name}") or name
        self.primary_key = _key_list(primary_key, "primary_key", f"resource {name}")
        self.merge_key = _key_list(merge_key, "merge_key", f"resource {name}")
        self.schema_contract = check_contract(schema_contract, f"resource {name}")  # normalize/schema_contract.py
        self.validator: Optional[ModelValidator] = None  # a Pydantic model's, when `columns` is one
        self.columns = check_columns(self._take_columns(columns, schema_contract) or {}, f"resource {name}")
        self.max_table_nesting = _nesting(max_table_nesting, f"resource {name}")
        self.incremental = incremental
        self.source_schema_contract: Any = None  # its source's, which its own overrides
        self.source_name: Optional[str] = None
        self._steps: List[Tuple[str, Callable[[Any], Any]]] = []  # add_map / add_filter / add_yield_map, in order
        self.limit: Optional[Limit] = None  # add_limit: a pipe step after the cursors (extract/steps.py, as in dlt)
        self.is_transformer = False  # dlt's transformer: its function takes each yield of `parent` first
        self.parent: Optional["Resource"] = None  # a transformer's data: `data_from=`, or `parent | transformer`

    def _take_columns(self, columns: Any, schema_contract: Any) -> Any:
        """`columns` as check_columns takes them. A Pydantic model gives its fields' hints, validates each item and,
        unless `schema_contract` is given, sets the contract dlt derives from it (extract/pydantic_columns.py)."""
        if not is_model(columns):
            self.validator = None
            return columns
        owner = f"resource {self.name}"
        contract = schema_contract if schema_contract is not None else contract_of(columns)
        self.schema_contract = check_contract(contract, owner)
        table = self.table_name if isinstance(self.table_name, str) else self.name
        self.validator = ModelValidator(columns, contract, owner, table)
        return columns_of(columns)

    def __call__(self, *args: Any, **kwargs: Any) -> "Resource":
        if not callable(self._data):
            raise HintError(f"resource {self.name} wraps data, not a function; it takes no arguments")
        clone = self._copy()
        clone._args, clone._kwargs = args, kwargs
        return clone

    def _copy(self) -> "Resource":
        clone = Resource.__new__(Resource)
        clone.__dict__.update(self.__dict__)
        clone._steps = list(self._steps)
        return clone

    def with_name(self, new_name: str) -> "Resource":
        """dlt's: a copy under another name (the key of its state); its table follows the name unless set."""
        clone = self._copy()
        clone.name = new_name
        if self.table_name == self.name:
            clone.table_name = new_name
        return clone

    def __or__(self, transformer: "Resource") -> "Resource":
        """`parent | transformer` (dlt's pipe): the transformer, now fed with this resource's yields. As in
        dlt it is bound in place and returned (a called transformer, `parent | t(arg=1)`, is a new one)."""
        if not isinstance(transformer, Resource) or not transformer.is_transformer:
            raise HintError(f"resource {self.name} | {transformer!r}: only a transformer (@transformer) takes a "
                            "resource's data")
        transformer.parent = self
        return transformer

    # -- dlt's item transforms: each returns the resource itself, as dlt's do
    def add_map(self, item_map: Callable[[Any], Any], insert_at: Optional[int] = None) -> "Resource":
        """Replace each item by `item_map(item)` (an Arrow table is one item), before the cursors see it."""
        return self._add_step("map", item_map, insert_at)

    def add_filter(self, item_filter: Callable[[Any], bool], insert_at: Optional[int] = None) -> "Resource":
        """Keep the items for which `item_filter(item)` is true, before the cursors see them."""
        return self._add_step("filter", item_filter, insert_at)

    def add_yield_map(self, item_map: Callable[[Any], Iterable[Any]], insert_at: Optional[int] = None) -> "Resource":
        """Replace each item by the items `item_map(item)` yields, before the cursors see them."""
        return self._add_step("yield_map", item_map, insert_at)

    def add_limit(self, max_items: Optional[int] = None, max_time: Optional[float] = None,
                  count_rows: bool = False) -> "Resource":
        """Stop the resource after `max_items` yields (pages, as dlt counts them; rows with `count_rows`) or
        `max_time` seconds, counted after the cursors; replaces an earlier limit. Returns the resource."""
        for name, value in (("max_items", max_items), ("max_time", max_time)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise HintError(f"resource {self.name}: add_limit {name}={value!r} is not a number >= 0")
        self.limit = Limit(max_items, max_time, bool(count_rows))
        return self

    def _add_step(self, kind: str, fn: Callable[[Any], Any], insert_at: Optional[int]) -> "Resource":
        if not callable(fn):
            raise HintError(f"resource {self.name}: add_{kind} takes a function, not {fn!r}")
        self._steps.insert(len(self._steps) if insert_at is None else insert_at, (kind, fn))
        return self

    def _transformed(self, pages: Iterator[Any]) -> Iterator[Any]:
        """`pages` through the item transforms, as dlt's pipe steps: a page (a list) or a single item a filter
        drops entirely is not yielded; an empty page stays one."""
        try:
            yield from self._each_transformed(pages)
        finally:  # closing this generator (a limit, a closed cursor) closes the resource's
            getattr(pages, "close", lambda: None)()

    def _each_transformed(self, pages: Iterator[Any]) -> Iterator[Any]:
        for page in pages:
            if type(page) in (TableNamed, HintsMarked):  # the transforms see the data; the mark stays on what is left
                page = page._replace(data=next(self._each_transformed(iter([page.data])), None))
                if page.data is not None:
                    yield page
                continue
            for kind, fn in self._steps:
                if page is None:
                    break
                if isinstance(page, list):
                    if kind == "map":
                        page = [fn(item) for item in page]
                    elif kind == "filter":  # a page it empties is dropped, as dlt's FilterItem does
                        page = [item for item in page if fn(item)] or (None if page else [])
                    else:
                        page = [out for item in page for out in fn(item)]
                elif kind == "map":
                    page = fn(page)
                elif kind == "filter":
                    page = page if fn(page) else None
                else:
                    page = list(fn(page))
            if page is not None:
                yield page

    def apply_hints(self, schema_contract: Any = None, **hints: Any) -> "Resource":
        """Set the hints (the contract's `ResourceHints`, and dlt's `schema_contract`) given as not-None keyword
        arguments (as dlt's `apply_hints`); returns self. An unknown hint is a `HintError` naming the closest one."""
        unknown_hints(hints, f"resource {self.name}")
        if schema_contract is not None:
            self.schema_contract = check_contract(schema_contract, f"resource {self.name}")
        for key in KEY_HINTS:
            if hints.get(key) is not None:
                hints[key] = _key_list(hints[key], key, f"resource {self.name}")
        if hints.get("columns") is not None:
            hints["columns"] = check_columns(self._take_columns(hints["columns"], schema_contract), f"resource {self.name}")
        _table_name(hints.get("table_name"), f"resource {self.name}")
        _nesting(hints.get("max_table_nesting"), f"resource {self.name}")
        if hints.get("write_disposition") is not None:
            self.write_disposition, self.merge_strategy, self.merge_options = split_disposition(
                hints.pop("write_disposition"), f"resource {self.name}")
        for key, value in hints.items():
            if value is not None:
                setattr(self, key, value)
        return self

    def table_for(self, item: Any) -> str:
        return self.table_name(item) if callable(self.table_name) else self.table_name

    # -- run-time binding of cursor arguments
    def cursor_arguments(self) -> Dict[str, Any]:
        """Arguments of the wrapped function that are `Incremental`, `DateWindows` or `ResourceState`."""
        if not callable(self._data):
            return {}
        try:
            signature = inspect.signature(self._data)
        except (TypeError, ValueError):
            return {}
        bound = signature.bind_partial(*self._item_placeholder(), *self._args, **self._kwargs).arguments
        found = {}
        for name, param in signature.parameters.items():
            value = bound.get(name, param.default)
            if isinstance(value, (Incremental, DateWindows, ResourceState)):
                found[name] = value
        return found

    def _item_placeholder(self) -> Tuple[Any, ...]:
        return (None,) if self.is_transformer else ()

    def pages(self, parent_pages: Optional[Iterable[Any]] = None, **bound: Any) -> Iterator[Any]:
        """What the resource yields (items, lists of items or Arrow tables), with cursor arguments
        replaced by `bound`. A transformer's are what its function yields for each of `parent_pages` (by
        default its parent's pages, through the parent's transforms: a pipeline passes them through the
        parent's cursors too)."""
        if self.is_transformer:
            pages = self._transformer_pages(self._parent_pages() if parent_pages is None else parent_pages, bound)
            pages = self._transformed(pages) if self._steps else pages
            return self.validator.pages(pages) if self.validator is not None else pages
        if not callable(self._data):
            pages = iter(self._data)
        elif not bound:
            pages = iter(self._data(*self._args, **self._kwargs))
        else:
            arguments = inspect.signature(self._data).bind_partial(*self._args, **self._kwargs).arguments
            arguments.update(bound)
            pages = iter(self._data(**arguments))
        pages = self._transformed(pages) if self._steps else pages
        return self.validator.pages(pages) if self.validator is not None else pages

    def _parent_pages(self) -> Iterator[Any]:
        if self.parent is None:
            raise HintError(f"transformer {self.name} has no data: give it data_from=, or pipe a resource into it "
                            f"(resource | {self.name})")
        return self.parent.pages()

    def _transformer_pages(self, parent_pages: Iterable[Any], bound: Dict[str, Any]) -> Iterator[Any]:
        signature = inspect.signature(self._data)
        calls = ((self._data, signature.bind_partial(page, *self._args, **self._kwargs).arguments) for page in parent_pages)
        outputs = (fn(**{**arguments, **bound}) for fn, arguments in calls)
        if getattr(self._data, DEFERRED, False):
            outputs = _in_parallel(self._data, (({**arguments, **bound}) for _, arguments in calls))
        try:
            for out in outputs:
                if inspect.isgenerator(out) or (isinstance(out, Iterator) and not isinstance(out, (dict, list))):
                    yield from out
                elif out is not None:  # a transformer may return its item, as in dlt
                    yield out
        finally:
            getattr(parent_pages, "close", lambda: None)()

    def items(self, **bound: Any) -> Iterator[Any]:
        """The items, pages flattened; a resource iterated directly stops at its `add_limit`, as dlt's does
        (a pipeline applies the limit after the cursors instead: see extract/steps.py, `LimitStep`)."""
        pages = self.pages(**bound)
        for page in self._limited(pages) if self.limit is not None else pages:
            if isinstance(page, list):
                yield from page
            else:
                yield page

    def __iter__(self) -> Iterator[Any]:
        return self.items()

    def _limited(self, pages: Iterator[Any]) -> Iterator[Any]:
        """`pages` up to the limit: `max_items` yields (rows with `count_rows`), then closed; or `max_time`."""
        counter = self.limit.counter()
        try:
            if self.limit.max_items == 0:
                return
            for page in pages:
                yield page
                if counter.reached(len(page) if isinstance(page, list) else getattr(page, "num_rows", 1)):
                    return
        finally:
            getattr(pages, "close", lambda: None)()


def resource(
    data: Optional[Any] = None,
    *,
    name: Optional[str] = None,
    table_name: Optional[TableName] = None,
    write_disposition: Any = DEFAULT_WRITE_DISPOSITION,
    primary_key: Keys = None,
    merge_key: Keys = None,
    columns: Optional[Dict[str, ColumnHints]] = None,
    max_table_nesting: Optional[int] = None,
    incremental: Optional[Incremental] = None,
    schema_contract: Any = None,
    **unknown: Any,
) -> Any:
    """Decorator (or function) making a `Resource` of a generator function or an iterable; a misspelt
    hint is a `HintError` naming the closest one (`unknown` only collects such mistakes).

    >>> @resource(primary_key="id", write_disposition="merge")
    ... def customers():
    ...     yield {"id": 1, "name": "Ann"}
    >>> [c["name"] for c in customers]
    ['Ann']
    """
    def wrap(fn: Any) -> Resource:
        res_name = name or getattr(fn, "__name__", None) or (table_name if isinstance(table_name, str) else None) or "data"
        _file_format(unknown.pop("file_format", None), f"resource {res_name}")
        unknown_hints(unknown, f"resource {res_name}")
        res = Resource(fn, res_name, table_name, write_disposition, primary_key, merge_key, columns,
                       max_table_nesting, incremental, schema_contract=schema_contract)
        if inspect.isfunction(fn):
            functools.update_wrapper(res, fn, updated=())
        return res

    return wrap if data is None else wrap(data)


def transformer(f: Optional[Callable[..., Any]] = None, *, data_from: Optional[Resource] = None, **hints: Any) -> Any:
    """dlt's transformer: a resource whose function takes each yield (an item or a page) of another
    resource first, and yields its own items; `data_from=` names the resource, or `resource | transformer`
    pipes one in. `hints`: `resource`'s (name, table_name, write_disposition, ...). Its table holds what it
    yields; the parent's table is loaded only when the parent itself is run too (then the parent runs once
    and feeds both, as in dlt).

    >>> @resource
    ... def issues():
    ...     yield [{"id": 1}, {"id": 2}]
    >>> @transformer(data_from=issues)
    ... def comments(page):
    ...     for issue in page:
    ...         yield {"issue_id": issue["id"], "text": "hi"}
    >>> [c["issue_id"] for c in comments]
    [1, 2]
    """
    if data_from is not None and not isinstance(data_from, Resource):
        raise HintError(f"transformer data_from={data_from!r}: expected a resource")

    def wrap(fn: Callable[..., Any]) -> Resource:
        if not callable(fn) or not inspect.signature(fn).parameters:
            raise HintError(f"transformer {getattr(fn, '__name__', fn)!r}: a function taking the parent's item first")
        res = resource(fn, **hints)
        res.is_transformer, res.parent = True, data_from
        return res

    return wrap if f is None else wrap(f)


FILE_FORMATS = (None, "preferred", "parquet")  # dlt's `file_format` values that sparkload's packages already are


def _file_format(value: Any, owner: str) -> None:
    """dlt's `file_format` hint: its load package files' format. sparkload's are always Parquet, so "parquet" (and
    dlt's "preferred") are taken as they are; another is a HintError naming it."""
    if value not in FILE_FORMATS:
        raise HintError(f"{owner}: file_format={value!r}: sparkload's load packages are always Parquet; "
                        "remove file_format or set it to 'parquet'")


def unknown_hints(hints: Dict[str, Any], owner: str) -> None:
    """Refuse keys of `hints` that are not resource hints, naming `owner` and the closest hint."""
    known = (*RESOURCE_HINTS, "schema_contract")  # dlt's contract: a resource's, not a dbt model's (contract.py)
    unknown = [key for key in hints if key not in known]
    if unknown:
        named = ", ".join(f"{key}{did_you_mean(key, known)}" for key in unknown)
        raise HintError(f"{owner}: unknown hint {named}; expected {', '.join(known)}")


DEFERRED = "_sparkload_deferred"
DEFER_WORKERS = 5  # dlt's default extract workers


def defer(f: Callable[..., Any]) -> Callable[..., Any]:
    """dlt's `@defer`: a transformer function whose calls run in a pool of DEFER_WORKERS threads (an API
    request per parent item, in parallel); its results come in the order of the parent's yields."""
    @functools.wraps(f)
    def deferred(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    setattr(deferred, DEFERRED, True)
    return deferred


def _in_parallel(fn: Callable[..., Any], arguments: Iterable[Dict[str, Any]]) -> Iterator[Any]:
    """`fn(**a)` for each of `arguments` on DEFER_WORKERS threads, at most twice as many calls in flight,
    results in order; the first error raised as the call's."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=DEFER_WORKERS, thread_name_prefix="sparkload-defer") as pool:
        pending: Any = deque()
        try:
            for a in arguments:
                pending.append(pool.submit(fn, **a))
                if len(pending) >= 2 * DEFER_WORKERS:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
