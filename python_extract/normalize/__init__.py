"""Normalize stage: nested items to relational rows (root + child tables) with inferred column types."""
from .relational import normalize_item
from .schema import Schema

__all__ = ["Schema", "normalize_item"]
