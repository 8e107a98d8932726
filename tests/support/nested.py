"""Customers with nested orders and order lines (child tables), and a reader of a child table against its root:
shared by the nested-table tests of tests/materialization."""
from __future__ import annotations

from .tables import rows_of

FLAG = {"deleted": {"data_type": "bool"}}
LOAD_1 = [
    {"id": 1, "name": "a", "deleted": False, "orders": [{"sku": "A", "lines": [{"q": 1}, {"q": 2}]}, {"sku": "B"}]},
    {"id": 2, "name": "b", "deleted": False, "orders": [{"sku": "C", "lines": [{"q": 3}]}]},
]
LOAD_2 = [  # customer 1 replaced (new orders), customer 2 deleted
    {"id": 1, "name": "a2", "orders": [{"sku": "D"}]},
    {"id": 2, "deleted": True},
]
LOAD_3 = [{"id": 3, "name": "c", "orders": [{"sku": "E", "lines": [{"q": 5}]}]}]


def children(spark, root: str, child: str, column: str, key: str = "id"):
    """(root key, child value) per child row, and how many child rows have no root row (orphans)."""
    joined = spark.sql(f"select r.{key}, c.{column} from {child} c join {root} r on c._dlt_root_id = r._dlt_id").collect()
    total = spark.sql(f"select count(*) n from {child}").first()["n"]
    return rows_of(*[tuple(r) for r in joined]), total - len(joined)
