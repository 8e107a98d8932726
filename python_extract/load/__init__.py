"""Load stage: load packages into the lakehouse's staging tables, `_dlt_pipeline_state` and `_dlt_loads`."""
from .destination import LOADS_TABLE, STATE_TABLE, VERSION_TABLE, complete_load, ensure_dataset
from .spark_loader import land_table, load_package, unland_package

__all__ = ["LOADS_TABLE", "STATE_TABLE", "VERSION_TABLE", "complete_load", "ensure_dataset", "land_table", "load_package", "unland_package"]
