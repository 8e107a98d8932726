"""dlt-style resources: a generator (or any iterable) of items plus the hints of the table it fills.

Items are dicts, or lists of dicts (pages), which are flattened. Hints: `table_name`, `primary_key`,
`merge_key`, `write_disposition` (recorded in the schema for the dbt side; landing always appends),
`columns` and `max_table_nesting`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

Keys = Union[str, Sequence[str], None]
WRITE_DISPOSITIONS = ("append", "replace", "merge")


def as_key_list(keys: Keys) -> List[str]:
    if keys is None:
        return []
    return [keys] if isinstance(keys, str) else list(keys)


class Resource:
    """An iterable of items with table hints; calling it binds arguments of the wrapped generator."""

    def __init__(
        self,
        data: Union[Callable[..., Iterable[Any]], Iterable[Any]],
        name: str,
        table_name: Optional[str] = None,
        write_disposition: str = "append",
        primary_key: Keys = None,
        merge_key: Keys = None,
        columns: Optional[Dict[str, Dict[str, Any]]] = None,
        max_table_nesting: Optional[int] = None,
    ):
        if write_disposition not in WRITE_DISPOSITIONS:
            raise ValueError(
                f"resource {name}: write_disposition={write_disposition!r}; expected one of {', '.join(WRITE_DISPOSITIONS)}"
            )
        self._data = data
        self.name = name
        self.table_name = table_name or name
        self.write_disposition = write_disposition
        self.primary_key = as_key_list(primary_key)
        self.merge_key = as_key_list(merge_key)
        self.columns = columns or {}
        self.max_table_nesting = max_table_nesting

    def __call__(self, *args: Any, **kwargs: Any) -> "Resource":
        if not callable(self._data):
            raise TypeError(f"resource {self.name} wraps data, not a function; it takes no arguments")
        bound = functools.partial(self._data, *args, **kwargs)
        clone = Resource.__new__(Resource)
        clone.__dict__.update(self.__dict__, _data=bound)
        return clone

    def apply_hints(self, **hints: Any) -> "Resource":
        for key in ("primary_key", "merge_key"):
            if hints.get(key) is not None:
                hints[key] = as_key_list(hints[key])
        for key, value in hints.items():
            if value is not None:
                setattr(self, key, value)
        return self

    def __iter__(self) -> Iterator[Any]:
        source = self._data() if callable(self._data) else self._data
        for item in source:
            if isinstance(item, list):
                yield from item
            else:
                yield item


def resource(
    data: Optional[Callable[..., Iterable[Any]]] = None,
    *,
    name: Optional[str] = None,
    table_name: Optional[str] = None,
    write_disposition: str = "append",
    primary_key: Keys = None,
    merge_key: Keys = None,
    columns: Optional[Dict[str, Dict[str, Any]]] = None,
    max_table_nesting: Optional[int] = None,
) -> Any:
    """Decorator (or function) making a `Resource` of a generator function or an iterable.

    >>> @resource(primary_key="id", write_disposition="merge")
    ... def customers():
    ...     yield {"id": 1, "name": "Ann"}
    >>> [c["name"] for c in customers]
    ['Ann']
    """
    def wrap(fn: Any) -> Resource:
        res_name = name or getattr(fn, "__name__", None) or table_name or "data"
        res = Resource(fn, res_name, table_name, write_disposition, primary_key, merge_key, columns, max_table_nesting)
        if inspect.isfunction(fn):
            functools.update_wrapper(res, fn, updated=())
        return res

    return wrap if data is None else wrap(data)
