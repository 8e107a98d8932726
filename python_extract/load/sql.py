"""Quoting for the few statements the loader writes itself (DDL and deletes of its own load)."""
from __future__ import annotations


def ident(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def qualified(dataset: str, table: str) -> str:
    return f"{ident(dataset)}.{ident(table)}"


def literal(value: str) -> str:
    """A Spark SQL string literal; backslash is Spark's escape character."""
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def tblproperties(properties: dict) -> str:
    """The ` tblproperties (...)` clause of a create statement, or nothing for no properties."""
    pairs = ", ".join(f"{literal(k)} = {literal(v)}" for k, v in properties.items())
    return f" tblproperties ({pairs})" if pairs else ""
