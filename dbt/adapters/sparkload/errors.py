"""Spark's errors as dbt shows them: `concise` (python_extract/lakehouse/java_errors.py, shared with the
`sparkload` command) keeps the materialization's message first and leaves out the Java stack trace."""
from python_extract.lakehouse.java_errors import concise

__all__ = ["concise"]
