"""The SQL database source (SQLAlchemy): reflected tables, cursor pushdown, chunked reads, mapped types."""
from ...lazy import lazy_face

# dlt's `from dlt.sources.sql_database import sql_database` (dlt_facades/sql_database.py)
__getattr__, __dir__ = lazy_face(__name__, dict.fromkeys(["sql_database", "sql_table"], "..dlt_facades.sql_database"))
