"""Spark's errors as a person reads them (dbt's messages, the `sparkload` command's one line): the message
a person acts on first, the Java stack trace left out.

A failing statement reaches dbt as the text of a Java exception chain: py4j's `Py4JJavaError` in this
process, the thrift server's `HiveSQLException` over the wire. A MERGE that raises a materialization's
message (`raise_error(...)`: a `java.lang.RuntimeException` on Spark 3.5) arrives wrapped in "Job aborted due to
stage failure" and 100-380 lines of frames. `concise` keeps every exception's own line, in order,
drops the frames, and puts the raised message first; the whole text stays in dbt's debug log (the
command's traceback with `-v`). `root_cause` is the last `Caused by:` of a chain, what went wrong at the bottom.

    >>> concise("An error occurred while calling o57.sql.\\n: org.apache.spark.SparkException: Job aborted"
    ...         " ...: org.apache.spark.SparkRuntimeException: [USER_RAISED_EXCEPTION] key 1 twice SQLSTATE: P0001"
    ...         "\\n\\tat org.apache.spark.Foo.bar(Foo.scala:1)")
    'key 1 twice\\nAn error occurred while calling o57.sql.\\n: org.apache.spark.SparkException: Job aborted ...: org.apache.spark.SparkRuntimeException: [USER_RAISED_EXCEPTION] key 1 twice SQLSTATE: P0001'
"""
from __future__ import annotations

import re
from typing import List

FRAME = re.compile(r"^\s*(at [\w$.<>/]+\(.*\)|\.\.\. \d+ (more|common frames omitted))\s*$")
# `raise_error(msg)`: a RuntimeException on Spark 3.5, [USER_RAISED_EXCEPTION] on Spark 4
RAISED = re.compile(r"(?:\[USER_RAISED_EXCEPTION\]|java\.lang\.RuntimeException:)\s*(.*?)(?:\s+SQLSTATE: \w+)?\s*$", re.M)
JVM_TRACE = "JVM stacktrace:"
MAX_LINES = 20  # beyond frames, a query plan can be long: the rest is in the debug log


def concise(text: str, raised_first: bool = True) -> str:
    """`text` without Java stack frames, the user-raised message (if any) as its first line
    (`raised_first=False`: only the frames left out, for a line that has its own first words)."""
    text = text.split(f"\n{JVM_TRACE}\n", 1)[0]
    lines: List[str] = []
    for line in text.splitlines():
        if FRAME.match(line) or (lines and line == lines[-1]):
            continue
        lines.append(line.rstrip())
    raised = RAISED.search(text)
    if raised_first and raised and raised.group(1):
        lines.insert(0, raised.group(1))
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"... ({len(lines) - MAX_LINES} more lines in the dbt debug log)"]
    return "\n".join(lines).strip()


CAUSED_BY = re.compile(r"^Caused by: [\w$.]+: (.*)$", re.M)


def root_cause(text: str) -> str:
    """The message of the last `Caused by:` in a Java exception text, or ''.

    >>> root_cause("x\\nCaused by: org.h2.jdbc.JdbcSQLNonTransientConnectionException: Database not found [90146-232]")
    'Database not found [90146-232]'
    """
    causes = CAUSED_BY.findall(text)
    return causes[-1].strip() if causes else ""


CALLING = re.compile(r"^An error occurred while calling [\w.]+\.?$")
QUALIFIED = re.compile(r"^:?\s*(?:[a-z_][\w$]*\.)+(?=[A-Z][\w$]*(?:Exception|Error)\b)")


def exception_line(error: BaseException) -> str:
    """The first exception line of `error`'s text, without py4j's "An error occurred while calling" and
    the Java package: what a one-line message says went wrong.

    >>> exception_line(Exception("An error occurred while calling o73.listColumns.\\n: org.apache.spark.sql.delta."
    ...                          "DeltaUnsupportedTableFeatureException: [X] table t needs f\\n\\tat org.A.b(A.scala:1)"))
    'DeltaUnsupportedTableFeatureException: [X] table t needs f'
    """
    lines = [line for line in concise(str(error), raised_first=False).splitlines() if line.strip() and not CALLING.match(line.strip())]
    return QUALIFIED.sub("", lines[0].strip()) if lines else type(error).__name__
