"""dlt-style sources: a function returning (or yielding) resources that share a name, config and secrets.

    @source
    def github(org: str, api_key: str = secrets.value):
        yield issues(org, api_key)
        yield events(org, api_key)

`github("acme")` is a `Source`; `.with_resources("issues")` selects, `.resources["issues"]` reaches one.
Arguments defaulting to `config.value` / `secrets.value` are looked up under `sources.<source name>`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

from ..errors import HintError, did_you_mean
from ..normalize.schema_contract import check_contract
from .config import with_config
from .resource import Resource


class Source:
    def __init__(self, name: str, resources: Iterable[Resource], max_table_nesting: Optional[int] = None,
                 schema_contract: Any = None):
        self.name = name
        self.resources: Dict[str, Resource] = {}
        self._schema_contract = check_contract(schema_contract, f"source {name}")
        for res in resources:
            if not isinstance(res, Resource):
                raise HintError(f"source {name}: expected resources, got {type(res).__name__}")
            res.source_name = name
            res.source_schema_contract = self._schema_contract
            if max_table_nesting is not None and res.max_table_nesting is None:
                res.max_table_nesting = max_table_nesting
            self.resources[res.name] = res
        self._selected: List[str] = list(self.resources)

    def with_resources(self, *names: str) -> "Source":
        unknown = [n for n in names if n not in self.resources]
        if unknown:
            named = ", ".join(f"{n}{did_you_mean(n, self.resources)}" for n in unknown)
            raise HintError(f"source {self.name}: no resource {named}; it has {', '.join(self.resources)}")
        clone = Source(self.name, [], schema_contract=self._schema_contract)
        clone.resources, clone._selected = self.resources, list(names)
        return clone

    @property
    def schema_contract(self) -> Any:
        """dlt's source-level contract: what its resources' tables follow unless a resource (or the run) sets one."""
        return self._schema_contract

    @schema_contract.setter
    def schema_contract(self, settings: Any) -> None:
        self._schema_contract = check_contract(settings, f"source {self.name}")
        for res in self.resources.values():
            res.source_schema_contract = self._schema_contract

    def add_limit(self, max_items: Optional[int] = None, max_time: Optional[float] = None,
                  count_rows: bool = False) -> "Source":
        """dlt's: `add_limit` on each selected resource; returns the source."""
        for res in self.selected_resources:
            res.add_limit(max_items, max_time, count_rows)
        return self

    @property
    def selected_resources(self) -> List[Resource]:
        return [self.resources[n] for n in self._selected]

    def __iter__(self) -> Iterator[Any]:
        for res in self.selected_resources:
            yield from res


def source(fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None, max_table_nesting: Optional[int] = None,
           schema_contract: Any = None) -> Any:
    """Decorator making a function that returns resources into a `Source` factory; `schema_contract` (dlt's) is
    what its resources' tables follow unless a resource sets its own (normalize/schema_contract.py)."""
    check_contract(schema_contract, f"source {name or getattr(fn, '__name__', '')}")
    def wrap(f: Callable[..., Any]) -> Callable[..., Source]:
        src_name = name or f.__name__
        configured = with_config(f, src_name)

        @functools.wraps(f)
        def build(*args: Any, **kwargs: Any) -> Source:
            produced = configured(*args, **kwargs)
            if isinstance(produced, Resource):
                produced = [produced]
            resources = [r if isinstance(r, Resource) else Resource(r, getattr(r, "__name__", "data")) for r in produced]
            for res in resources:
                res._data = with_config(res._data, src_name) if callable(res._data) and inspect.isfunction(res._data) else res._data
            return Source(src_name, resources, max_table_nesting, schema_contract)

        return build

    return wrap if fn is None else wrap(fn)
