"""Building blocks of source plugin configs: each plugin declares its `config:` block as pydantic models
and publishes the JSON Schema generated from them (`json_schema`), which `registry.resolve_config`
checks a pipeline YAML against before anything runs.

- `ConfigModel`: the base of every config model; an unknown key is an error (`extra="forbid"`), and
  an attribute's docstring becomes its description in the schema.
- `Secret`: a string field that must be an environment reference (`${NAME}`), never a literal.
- `TableHints`: the table hints every resource of a source plugin accepts, derived from `contract.TableHints`.
- `component_models`: one model per component dataclass (paginator, auth), its init fields being its
  YAML keys and `type` naming the class, as a union discriminated by `type`.
"""
from __future__ import annotations

import collections.abc
import dataclasses
import typing
from typing import Any, Dict, List, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model
from pydantic.json_schema import GenerateJsonSchema

from .. import contract

Keys = Union[str, List[str]]
Secret = typing.Annotated[str, Field(json_schema_extra={"secret": True})]
# the dict form is checked by the resource (contract.split_disposition); pydantic reads typing.TypedDict
# (contract.WriteDispositionConfig) only from Python 3.12
WriteDisposition = Union[contract.WriteDisposition, Dict[str, Any]]


class ConfigModel(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


def _as_config(kind: Any) -> Any:
    """A contract hint's type as a YAML config value takes it: never None (null is not a valid value) nor a
    function (`table_name` is a name), lists for sequences, a dict for a TypedDict (pydantic reads
    typing.TypedDict only from Python 3.12; the resource checks the dict form, contract.split_disposition)."""
    if kind is Any:
        return str
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is Union:
        kept = tuple(_as_config(a) for a in args if a is not type(None))
        return Union[kept] if len(kept) > 1 else kept[0]
    if origin in (list, collections.abc.Sequence):
        return List[_as_config(args[0])]
    if typing.is_typeddict(kind):
        return Dict[str, Any]
    return kind


# what the config adds to a hint: its description in the schema, its bounds
_FIELDS = {
    "write_disposition": Field(None, description="append | replace | merge, or {disposition: merge, strategy: "
                                                 "delete-insert | upsert | scd2 | insert-only}"),
    "max_table_nesting": Field(None, ge=0),
}
# the order an unknown-key error lists them in (a hint missing here comes last)
_ORDER = ("table_name", "primary_key", "merge_key", "write_disposition", "max_table_nesting")
_HINTS = typing.get_type_hints(contract.TableHints)
# contract.TableHints as config keys, derived from it (the one definition); `columns` is declared by each
# plugin that takes it
TableHints = create_model(
    "TableHints", __base__=ConfigModel, __doc__="contract.TableHints as config keys; `columns` is declared by each plugin that takes it.",
    **{name: (_as_config(_HINTS[name]), _FIELDS.get(name))
       for name in sorted(_HINTS, key=lambda n: _ORDER.index(n) if n in _ORDER else len(_ORDER)) if name != "columns"},
)



class _Schema(GenerateJsonSchema):
    """Omits `default: null` of keys that are optional but not nullable: null is not a valid value."""

    def default_schema(self, schema: Any) -> Dict[str, Any]:
        if schema.get("default", 0) is None:
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


def json_schema(model: type, dialect: bool = True) -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a config model, as `SourcePlugin.config_schema`."""
    schema = model.model_json_schema(schema_generator=_Schema)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema} if dialect else schema


def component_models(classes: Dict[str, type], secrets: tuple = ()) -> Any:
    """A union, discriminated by `type`, of one model per component dataclass: `type` is the class's
    name in `classes`, the other keys its init fields with their annotations and defaults."""
    models, by_type = [], []
    for name, cls in sorted(classes.items()):
        hints = typing.get_type_hints(cls)
        fields: Dict[str, Any] = {"type": (Literal[name], ...)}
        for f in dataclasses.fields(cls):
            if f.init:
                default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
                kind = Secret if f.name in secrets else hints[f.name]
                fields[f.name] = (kind, default)
        model = create_model(f"{cls.__name__}Config", __base__=ConfigModel, __doc__=cls.__doc__, **fields)
        models.append(model)
        by_type.append({"if": {"properties": {"type": {"const": name}}}, "then": json_schema(model, dialect=False)})
    # if/then per type instead of pydantic's oneOf + `discriminator` (an OpenAPI keyword JSON Schema
    # validators ignore), so an error names the field, not "not valid under any of the given schemas"
    schema = {"type": "object", "required": ["type"], "properties": {"type": {"enum": sorted(classes)}}, "allOf": by_type}
    return typing.Annotated[Union[tuple(models)], Field(discriminator="type"), WithJsonSchema(schema)]
