"""A Pydantic model as a resource's `columns`, as dlt 1.31 maps it (judged by
tests/parity_extract/test_pydantic_parity.py).

- Columns: each field becomes a column hint. int -> bigint, float -> double, str (and str enums) -> text, bool,
  Decimal -> decimal, datetime -> timestamp, date, bytes -> binary; a list, dict, nested model or any other
  type -> json (kept whole in one column). A field whose type admits None is nullable; every other is not.
- Schema contract (unless the resource sets one): `tables: evolve`, `data_type: freeze`, and for columns the
  model's `extra`: "allow" -> evolve, "forbid" -> freeze, "ignore" (Pydantic's default) -> discard_value.
  `frozen` changes nothing, as in dlt.
- Items: each dict is validated by the model and replaced by its dump (so "2" lands as 2 in an int field, a
  default fills a missing field, an ignored extra key is dropped). A value the model refuses is dlt's
  `DataValidationError` (data_type freeze, naming table and column); with `discard_row` the item is dropped;
  an extra key with columns freeze is the same error for `columns`.

Errors: `HintError` for a contract mode of data_type this mapping does not build (evolve, discard_value).
"""
from __future__ import annotations

import enum
import types
import typing
from typing import Any, Dict, Iterator, Optional

from ..contract import PYTHON_SCALARS
from ..errors import HintError

_EXTRA_MODES = {"allow": "evolve", "forbid": "freeze", "ignore": "discard_value", None: "discard_value"}


def is_model(value: Any) -> bool:
    """Whether `value` is a Pydantic model class (without importing pydantic when it is not)."""
    return isinstance(value, type) and hasattr(value, "model_fields") and hasattr(value, "model_validate")


def _data_type(annotation: Any) -> tuple:
    """(dlt data type, nullable) of a field's annotation."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (_data_type(rest[0])[0] if len(rest) == 1 else "json"), True
    if typing.get_origin(annotation) is typing.Annotated:
        return _data_type(args[0])
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return ("text" if issubclass(annotation, str) else "bigint" if issubclass(annotation, int) else "json"), False
        for kind, name in PYTHON_SCALARS:
            if issubclass(annotation, kind):
                return name, False
    return "json", False


def columns_of(model: Any) -> Dict[str, Dict[str, Any]]:
    """The column hints of `model`'s fields (by alias where one is set), in field order."""
    out = {}
    for name, info in model.model_fields.items():
        data_type, nullable = _data_type(info.annotation)
        out[info.alias or name] = {"data_type": data_type, "nullable": nullable}
    return out


def contract_of(model: Any) -> Dict[str, str]:
    """The schema contract dlt derives from `model`'s config."""
    return {"tables": "evolve", "columns": _EXTRA_MODES.get(model.model_config.get("extra"), "discard_value"),
            "data_type": "freeze"}


class ModelValidator:
    """Each dict item of a resource through `model`, under the resource's column and data_type modes."""

    def __init__(self, model: Any, contract: Any, owner: str, table: str):
        from pydantic import ConfigDict

        expanded = contract if isinstance(contract, dict) else {k: contract for k in ("tables", "columns", "data_type")}
        self.column_mode = expanded.get("columns", "evolve")
        self.data_mode = expanded.get("data_type", "evolve")
        if self.data_mode not in ("freeze", "discard_row"):
            raise HintError(f"{owner}: columns={model.__name__} (a Pydantic model) with schema_contract data_type="
                            f"{self.data_mode}: not built; use freeze (dlt's default for a model) or discard_row")
        extra = {"evolve": "allow", "freeze": "forbid"}.get(self.column_mode, "ignore")
        self.model = model
        if model.model_config.get("extra") != extra:
            self.model = type(model.__name__, (model,), {"model_config": ConfigDict(**{**model.model_config, "extra": extra}),
                                                         "__module__": model.__module__})
        self.drops_rows_with_extra = self.column_mode == "discard_row"
        self.table = table

    def item(self, item: Any) -> Optional[Any]:
        from pydantic import ValidationError

        if not isinstance(item, dict):
            return item
        if self.drops_rows_with_extra and set(item) - set(self.model.model_fields):
            return None
        try:
            return self.model.model_validate(item).model_dump(by_alias=True)
        except ValidationError as e:
            first = e.errors()[0]
            entity = "columns" if first["type"] == "extra_forbidden" else "data_type"
            if entity == "data_type" and self.data_mode == "discard_row":
                return None
            from ..normalize.exceptions import DataValidationError

            column = ".".join(str(p) for p in first["loc"]) or None
            raise DataValidationError("", self.table, column, entity, "freeze", None,
                                      {"columns": self.column_mode, "data_type": self.data_mode}, item,
                                      extended_info=first["msg"]) from None

    def pages(self, pages: Iterator[Any]) -> Iterator[Any]:
        for page in pages:
            if isinstance(page, list):
                yield [v for v in (self.item(i) for i in page) if v is not None]
            elif isinstance(page, dict):
                checked = self.item(page)
                if checked is not None:
                    yield checked
            else:
                yield page
