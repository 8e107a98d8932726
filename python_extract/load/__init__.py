"""Load stage: load packages into the lakehouse's staging tables and `_dlt_loads`."""
from .spark_loader import LOADS_TABLE, complete_load, land_table, load_package

__all__ = ["LOADS_TABLE", "complete_load", "land_table", "load_package"]
