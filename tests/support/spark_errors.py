"""A Spark error as the Python side of a dbt run receives it (Py4J's text: the raised message inside a
Java stack trace), for the tests of what dbt and the CLI show of it."""
from __future__ import annotations

WRAPPED = """An error occurred while calling o57.sql.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed 1 times, most recent failure: Lost task 0.0 (TID 3) (localhost executor driver): java.lang.RuntimeException: sparkload model m: id=1 occurs more than once in load 17. The table is unchanged.
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.raiseError(QueryExecutionErrors.scala:2736)
\tat org.apache.spark.sql.catalyst.expressions.RaiseError.eval(misc.scala:92)
\tat java.base/java.lang.Thread.run(Thread.java:840)

Driver stacktrace:
\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2856)
Caused by: java.lang.RuntimeException: sparkload model m: id=1 occurs more than once in load 17. The table is unchanged.
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.raiseError(QueryExecutionErrors.scala:2736)
\t... 19 more
"""
