"""Seeds through a DataFrame: `dbt seed` on an in-process SparkSession (`method: embedded` or
`session`) loads the CSV rows dbt parsed as one DataFrame, not as SQL literals.

dbt-spark's seed path formats every value into an `insert ... values` statement; on a session cursor
that formatting is `'{value}'`, so a blank cell became the string 'None' and a `'` broke the
statement, and Spark parsed one literal per value. Here each value travels as a string (or None for
NULL) and is cast by Spark to the column's type, the cast dbt-spark's SQL applies (`cast(? as type)`),
so the stored values are exactly those dbt read: NULLs, quotes, backslashes and unicode included.

Over a server (thrift, http, odbc) the same text values travel as bound parameters of `insert into
... select <the same casts> from values (...)`, one statement per batch of dbt's seed batch size:
dbt-spark's own statement casts each bound value, where Spark's cast turns a value that does not fit
into NULL silently, and its bindings turn decimals into floats and timestamps into milliseconds.

A value that does not fit its column type (possible only with a `column_types` override) is an error
naming the seed, the column and the value; nothing is inserted (over a server: nothing of its batch).
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, List, Optional, Sequence

from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.sparkload.errors import concise


def _as_text(value: Any) -> Optional[str]:
    """The exact text of a value dbt's CSV reader produced, as Spark's string-to-type cast reads it."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")  # never exponent notation: cast('1E+2' as bigint) is NULL
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def load_rows(spark, table: str, seed: str, column_names: Sequence[str], column_types: Sequence[str],
              rows: Sequence[Sequence[Any]]) -> int:
    """Append `rows` to `table` (whose columns are `column_names` in this order) cast to `column_types`,
    in one Spark job: a value the cast would turn into NULL fails the job, so nothing is written.

    >>> load_rows(spark, "`analytics`.`countries`", "countries", ["id", "name"], ["bigint", "string"],
    ...           [(1, "Norway"), (2, None)])
    2
    """
    from pyspark.sql.types import StringType, StructField, StructType

    raw = [f"c{i}" for i in range(len(column_names))]
    frame = spark.createDataFrame(
        text_rows(rows),
        StructType([StructField(name, StringType()) for name in raw]),
    )
    try:
        frame.selectExpr(*[_checked_cast(r, name, type_, seed) for r, name, type_ in zip(raw, column_names, column_types)]
                         ).write.insertInto(table)
    except Exception as e:  # noqa: BLE001 - Spark's error, its Java trace trimmed, the seed's message first
        raise DbtRuntimeError(concise(str(e))) from e
    return len(rows)


def text_rows(rows: Sequence[Sequence[Any]]) -> List[List[Optional[str]]]:
    """The rows dbt read, each value as the exact text Spark's cast reads (None for NULL)."""
    return [[_as_text(v) for v in row] for row in rows]


def bound_insert(table: str, seed: str, column_names: Sequence[str], column_types: Sequence[str], rows: int,
                 binding_char: str) -> str:
    """`insert into table select <checked casts> from values (<binding_char>, ...), ... as v(c0, ...)` for
    `rows` rows of text values bound as parameters.

    >>> bound_insert("`s`.`t`", "t", ["id"], ["int"], 2, "?")[:60]
    'insert into `s`.`t` select if(`c0` is not null and cast(`c0`'
    """
    raw = [f"c{i}" for i in range(len(column_names))]
    select = ", ".join(_checked_cast(r, name, type_, seed) for r, name, type_ in zip(raw, column_names, column_types))
    head = f"insert into {table} select {select} from values "
    if binding_char == "%s":  # the parameters are %-formatted into the statement: keep its own % signs
        head = head.replace("%", "%%")
    row = "(" + ", ".join([binding_char] * len(raw)) + ")"
    return head + ", ".join([row] * rows) + f" as v({', '.join(raw)})"


def _checked_cast(raw: str, name: str, type_: str, seed: str) -> str:
    """`cast(raw as type_)`, raising a message naming the seed, column and value where that is NULL
    for a value that is not."""
    before = _literal(f"seed {seed}: column {name} has value '")
    after = _literal(f"', which is not a {type_}; fix the CSV or the seed's column_types")
    cast = f"cast(`{raw}` as {type_})"
    return (f"if(`{raw}` is not null and {cast} is null, "
            f"cast(raise_error(concat({before}, `{raw}`, {after})) as {type_}), {cast})")


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
