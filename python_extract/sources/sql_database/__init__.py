"""The SQL database source (SQLAlchemy): reflected tables, cursor pushdown, chunked reads, mapped types."""


def __getattr__(name: str):  # dlt's `from dlt.sources.sql_database import sql_database` (dlt_facades/sql_database.py)
    if name in ("sql_database", "sql_table"):
        from ..dlt_facades import sql_database

        return getattr(sql_database, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
