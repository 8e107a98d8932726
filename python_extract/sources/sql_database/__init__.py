"""The SQL database source (SQLAlchemy): reflected tables, cursor pushdown, chunked reads, mapped types."""
