"""Reading a pipeline's staging data back, as dlt's `pipeline.dataset()` and `pipeline.sql_client()` do, through
the lakehouse's Spark session.

    dataset = pipeline.dataset()
    dataset.issues.df()                                   # or dataset["issues"]: a Relation of the whole table
    dataset.issues.select("id", "title").limit(10).fetchall()
    dataset("select count(*) from issues").fetchone()     # unqualified names are the dataset's tables
    dataset.row_counts().df()                             # table_name, row_count per data table
    with pipeline.sql_client() as client:
        client.execute_sql("select id from issues where id > ?", 10)

A `Relation` is a query, run when its data is asked for: `df()` (pandas), `arrow()`, `fetchall()`,
`fetchmany(n)`, `fetchone()`, `fetchscalar()`, `iter_df(chunk_size)`, `iter_arrow(chunk_size)`,
`iter_fetch(chunk_size)`; `select`, `limit`, `head`, `order_by`, `where` return a new one. Timestamps come back
in UTC (the session's time zone). Reads only; raises `DatasetError` (a `ConfigError`) for a table or column the
dataset does not have, naming it and the closest one.
"""
from __future__ import annotations

import datetime as dt
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from .contract import DLT_PREFIX, LOAD_ID, LOADS_TABLE
from .errors import ConfigError, did_you_mean

if TYPE_CHECKING:
    from .pipeline import Pipeline

DIALECT = "spark"
OPERATORS = ("=", "!=", "<>", "<", "<=", ">", ">=", "in", "not in", "like", "is null", "is not null")


class DatasetError(ConfigError, KeyError):
    """A table or column the dataset does not have (also a KeyError, as dlt's `dataset["t"]` raises)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def qualify(query: str, dataset: str) -> str:
    """`query` (Spark SQL) with every table it names without a schema read from `dataset`.

    >>> qualify("select * from items", "raw")
    'SELECT * FROM `raw`.`items`'
    """
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(query, read=DIALECT)
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not table.args.get("db") and table.name not in ctes:
            table.set("db", exp.to_identifier(dataset, quoted=True))
            table.set("this", exp.to_identifier(table.name, quoted=True))
    return tree.sql(dialect=DIALECT)


class Relation:
    """A query over the dataset (dlt's `Relation`); nothing runs until its data is asked for."""

    def __init__(self, dataset: "Dataset", sql: str, columns: Optional[List[str]] = None):
        self._dataset, self._sql, self._columns = dataset, sql, columns

    # -- building
    def _wrapped(self, select: str = "*", tail: str = "", columns: Optional[List[str]] = None) -> "Relation":
        return Relation(self._dataset, f"SELECT {select} FROM ({self._sql}) AS `_q`{tail}", columns or self._columns)

    def select(self, *columns: str) -> "Relation":
        """Only these columns, in this order: `dataset.items.select("id", "name")`."""
        self._check(columns)
        return self._wrapped(", ".join(map(_quoted, columns)), columns=list(columns))

    def __getitem__(self, columns: Sequence[str]) -> "Relation":
        return self.select(*([columns] if isinstance(columns, str) else columns))

    def limit(self, limit: int) -> "Relation":
        """At most `limit` rows: `dataset.items.limit(10)`."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise DatasetError(f"limit({limit!r}): expected a whole number >= 0")
        return self._wrapped(tail=f" LIMIT {limit}")

    def head(self, limit: int = 5) -> "Relation":
        return self.limit(limit)

    def order_by(self, column_name: str, direction: str = "asc") -> "Relation":
        self._check([column_name])
        if direction not in ("asc", "desc"):
            raise DatasetError(f"order_by({column_name!r}, {direction!r}): direction is asc or desc")
        return self._wrapped(tail=f" ORDER BY {_quoted(column_name)} {direction.upper()}")

    def where(self, column_name: str, operator: str, value: Any = None) -> "Relation":
        """Rows where `column_name <operator> value`: `dataset.items.where("id", ">", 10)`."""
        import sqlglot
        from sqlglot import exp

        self._check([column_name])
        if operator not in OPERATORS:
            raise DatasetError(f"where({column_name!r}, {operator!r}): operator{did_you_mean(operator, OPERATORS)}; "
                               f"expected one of {', '.join(OPERATORS)}")
        if operator.endswith("null"):
            condition = f"{_quoted(column_name)} {operator.upper()}"
        elif operator.endswith("in"):
            values = ", ".join(exp.convert(v).sql(dialect=DIALECT) for v in value)
            condition = f"{_quoted(column_name)} {operator.upper()} ({values})"
        else:
            condition = f"{_quoted(column_name)} {operator} {exp.convert(value).sql(dialect=DIALECT)}"
        sqlglot.parse_one(condition, read=DIALECT)
        return self._wrapped(tail=f" WHERE {condition}")

    filter = where

    def _check(self, columns: Sequence[str]) -> None:
        known = self.columns
        missing = [c for c in columns if c not in known]
        if missing:
            raise DatasetError(f"dataset {self._dataset.dataset_name}: no column {missing[0]!r}"
                               f"{did_you_mean(missing[0], known)} in this relation; it has {', '.join(known)}")

    # -- what it is
    @property
    def columns(self) -> List[str]:
        if self._columns is None:
            self._columns = list(self._frame().columns)
        return list(self._columns)

    def to_sql(self, pretty: bool = False) -> str:
        import sqlglot

        return sqlglot.transpile(self._sql, read=DIALECT, write=DIALECT, pretty=pretty)[0]

    def __str__(self) -> str:
        return self.to_sql(pretty=True)

    # -- its data
    def _frame(self) -> Any:
        return self._dataset.spark.sql(self._sql)

    def df(self, chunk_size: Optional[int] = None) -> Any:
        """The rows as a pandas DataFrame (the first `chunk_size` rows when given, as dlt's)."""
        table = self.arrow(chunk_size)
        return table.to_pandas()

    def arrow(self, chunk_size: Optional[int] = None) -> Any:
        """The rows as an Arrow table (timestamps in UTC)."""
        import pyarrow as pa

        frame = self._frame() if chunk_size is None else self._frame().limit(chunk_size)
        batches = frame._collect_as_arrow()  # pyspark 3.5's Arrow collect (`toArrow` is Spark 4's)
        schema = _arrow_schema(frame)
        return pa.Table.from_batches(batches, schema=schema) if batches else schema.empty_table()

    def fetchall(self) -> List[Tuple[Any, ...]]:
        return _rows(self.arrow())

    def fetchmany(self, chunk_size: int) -> List[Tuple[Any, ...]]:
        return _rows(self.arrow(chunk_size))

    def fetchone(self) -> Optional[Tuple[Any, ...]]:
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchscalar(self) -> Any:
        row = self.fetchone()
        return row[0] if row else None

    def iter_arrow(self, chunk_size: int) -> Iterator[Any]:
        """The rows in Arrow tables of at most `chunk_size` rows, streamed from Spark a partition at a time."""
        import pyarrow as pa

        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise DatasetError(f"chunk_size={chunk_size!r}: expected a whole number >= 1")
        frame = self._frame()
        schema = _arrow_schema(frame)
        instants = [f.name for f in schema if pa.types.is_timestamp(f.type)]
        pending: List[Dict[str, Any]] = []
        for row in frame.toLocalIterator():
            values = row.asDict()
            for name in instants:  # pyspark gives a timestamp as a naive datetime in the process's local time
                if values[name] is not None and values[name].tzinfo is None:
                    values[name] = values[name].astimezone(dt.timezone.utc)
            pending.append(values)
            if len(pending) == chunk_size:
                yield pa.Table.from_pylist(pending, schema=schema)
                pending = []
        if pending:
            yield pa.Table.from_pylist(pending, schema=schema)

    def iter_df(self, chunk_size: int) -> Iterator[Any]:
        for table in self.iter_arrow(chunk_size):
            yield table.to_pandas()

    def iter_fetch(self, chunk_size: int) -> Iterator[List[Tuple[Any, ...]]]:
        for table in self.iter_arrow(chunk_size):
            yield _rows(table)


def _rows(table: Any) -> List[Tuple[Any, ...]]:
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return list(zip(*columns)) if columns else [() for _ in range(table.num_rows)]


def _arrow_schema(frame: Any) -> Any:
    """The Arrow schema of a Spark DataFrame, timestamps as UTC instants."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(frame.schema)
    return pa.schema([pa.field(f.name, pa.timestamp("us", tz="UTC")) if pa.types.is_timestamp(f.type) else f
                      for f in schema])


class Dataset:
    """A pipeline's staging dataset (dlt's `Dataset`): its tables as `Relation`s, and SQL over them."""

    def __init__(self, pipeline: "Pipeline"):
        self._pipeline = pipeline
        self.dataset_name = pipeline.dataset_name

    @property
    def spark(self) -> Any:
        return self._pipeline.spark

    @property
    def tables(self) -> List[str]:
        """The data tables that exist in the lakehouse, in the schema's order (dlt's: with data seen)."""
        from .load import destination

        schema = destination.read_schema(self.spark, self.dataset_name, self._pipeline.pipeline_name)
        names = list(schema.tables) if schema is not None else []
        listed = {row.tableName for row in self.spark.sql(f"SHOW TABLES IN {_quoted(self.dataset_name)}").collect()}
        return [t for t in names if t in listed]

    def table(self, table_name: str) -> Relation:
        tables = self.tables
        if table_name not in tables and not table_name.startswith(DLT_PREFIX):
            raise DatasetError(f"dataset {self.dataset_name}: no table {table_name!r}{did_you_mean(table_name, tables)}; "
                               f"it has {', '.join(tables) or 'no tables yet'}")
        return Relation(self, f"SELECT * FROM {_quoted(self.dataset_name)}.{_quoted(table_name)}")

    def __getitem__(self, table_name: str) -> Relation:
        return self.table(table_name)

    def __getattr__(self, name: str) -> Relation:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.table(name)
        except DatasetError as e:
            raise AttributeError(str(e)) from None

    def query(self, query: str) -> Relation:
        """A SQL query (Spark SQL) as a relation; tables it names without a schema are the dataset's."""
        return Relation(self, qualify(query, self.dataset_name))

    def __call__(self, query: str) -> Relation:
        return self.query(query)

    def row_counts(self, *, data_tables: bool = True, dlt_tables: bool = False, table_names: Optional[List[str]] = None,
                   load_id: Optional[str] = None) -> Relation:
        """A relation of `table_name`, `row_count` per table (dlt's): the data tables, or `table_names`; with
        `load_id`, the rows of that load (every sparkload row, child rows too, carries its load id)."""
        selected = list(table_names or [])
        if not selected:
            selected = (self.tables if data_tables else []) + (self._dlt_tables() if dlt_tables else [])
        if load_id is not None:
            selected = [t for t in selected if LOAD_ID in self.spark.table(f"{_quoted(self.dataset_name)}.{_quoted(t)}").columns]
        from sqlglot import exp

        parts = []
        for table in selected:
            where = f" WHERE {_quoted(LOAD_ID)} = {exp.convert(load_id).sql(dialect=DIALECT)}" if load_id is not None else ""
            parts.append(f"SELECT {exp.convert(table).sql(dialect=DIALECT)} AS `table_name`, COUNT(*) AS `row_count` "
                         f"FROM {_quoted(self.dataset_name)}.{_quoted(table)}{where}")
        if not parts:
            return Relation(self, "SELECT CAST(NULL AS STRING) AS `table_name`, CAST(NULL AS BIGINT) AS `row_count` "
                                  "WHERE FALSE", ["table_name", "row_count"])
        return Relation(self, " UNION ALL ".join(parts), ["table_name", "row_count"])

    def _dlt_tables(self) -> List[str]:
        listed = [row.tableName for row in self.spark.sql(f"SHOW TABLES IN {_quoted(self.dataset_name)}").collect()]
        return sorted(t for t in listed if t.startswith(DLT_PREFIX))

    def load_ids(self) -> List[str]:
        """The completed loads' ids, newest first (dlt's)."""
        loads = self.spark.sql(f"SELECT `load_id` FROM {_quoted(self.dataset_name)}.{_quoted(LOADS_TABLE)} "
                               "WHERE `status` = 0 ORDER BY `load_id` DESC").collect()
        return [row.load_id for row in loads]

    def latest_load_id(self) -> Optional[str]:
        ids = self.load_ids()
        return ids[0] if ids else None

    def __enter__(self) -> "Dataset":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class SqlClient:
    """dlt's `sql_client()`, over the lakehouse's Spark session: `execute_sql` runs a statement and returns its
    rows (tuples; None for a statement without any); `%s` (dlt's) or `?` marks a positional argument. Tables
    named without a schema are the dataset's."""

    def __init__(self, pipeline: "Pipeline"):
        self._pipeline = pipeline
        self.dataset_name = pipeline.dataset_name

    def execute_sql(self, sql: str, *args: Any) -> Optional[List[Tuple[Any, ...]]]:
        with self.execute_query(sql, *args) as cursor:
            rows = cursor.fetchall()
        return rows if cursor.columns else None

    @contextmanager
    def execute_query(self, query: str, *args: Any) -> Iterator[Relation]:
        """The query's rows as a `Relation` (a cursor: `fetchall`, `df`, `arrow`, ...)."""
        spark = self._pipeline.spark
        if args:  # dlt's clients take the DB-API's %s markers; Spark's positional marker is ?
            query = query.replace("%s", "?")
        frame = spark.sql(qualify(query, self.dataset_name), args=list(args) if args else None)
        view = _Evaluated(Dataset(self._pipeline), frame)
        yield view

    def make_qualified_table_name(self, table_name: str, escape: bool = True) -> str:
        return f"{_quoted(self.dataset_name)}.{_quoted(table_name)}" if escape else f"{self.dataset_name}.{table_name}"

    def has_dataset(self) -> bool:
        return self._pipeline.spark.catalog.databaseExists(self.dataset_name)

    def __enter__(self) -> "SqlClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class _Evaluated(Relation):
    """A relation over a DataFrame already run (a statement's result), read once per fetch."""

    def __init__(self, dataset: Dataset, frame: Any):
        super().__init__(dataset, "", list(frame.columns))
        self._df = frame

    def _frame(self) -> Any:
        return self._df
