"""Lakehouse operations: table maintenance (`maintain`) and staging retention (`expire_loads`)."""
from .catalog import lakehouse_tables
from .operation import MaintenanceError, describe, maintain
from .retention import ExpireReport, expire_loads, parse_duration

__all__ = ["ExpireReport", "MaintenanceError", "describe", "expire_loads", "lakehouse_tables", "maintain", "parse_duration"]
