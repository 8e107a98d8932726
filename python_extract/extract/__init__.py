"""Extract stage: resources that yield items with table hints."""
from .resource import Resource, resource

__all__ = ["Resource", "resource"]
