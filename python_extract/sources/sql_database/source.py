"""The SQL database source: one resource per table of a SQLAlchemy database.

Tables are reflected (all of a schema, or those listed); each table's primary key is the resource's
unless configured. With an `incremental` block the cursor is pushed down into the query:
`WHERE cursor >= start [AND cursor < end] ORDER BY cursor` (`>` with `range_start: open`, `<=` with
`range_end: closed`), and the rows still pass through the dlt cursor for boundary deduplication and
state. Rows are read with a server-side cursor in chunks of `chunk_size`, never the whole table.
Column types come from the database, so the staging table gets bigint/decimal/timestamp/... rather than
guesses from values.
"""
from __future__ import annotations

import datetime as dt
import decimal
from typing import Any, Dict, Iterator, List, Optional

from ... import timeutil
from ...contract import PYTHON_DATA_TYPES, TABLE_HINTS
from ...errors import ConfigError, did_you_mean
from ...extract import Source, incremental
from ...extract.resource import Resource



def data_type(sa_type: Any) -> Optional[str]:
    """Our column data type of a SQLAlchemy type (None: infer from values): the contract's data type
    (`PYTHON_DATA_TYPES`) of the Python type the values of its family take.

    >>> import sqlalchemy as sa
    >>> data_type(sa.SmallInteger()), data_type(sa.Numeric(10, 2)), data_type(sa.Time())
    ('bigint', 'decimal', None)
    """
    import sqlalchemy as sa

    # the families typed by the database, tried in order (a Float is a Numeric), each with its values' Python type:
    # the family's, not a column's own `python_type` (a Numeric(asdecimal=False) stays decimal, JSON's is `object`)
    families = ((sa.Boolean, bool), (sa.Integer, int), (sa.Float, float), (sa.Numeric, decimal.Decimal),
                (sa.DateTime, dt.datetime), (sa.Date, dt.date), (sa.JSON, dict), (sa.String, str))
    for family, kind in families:
        if isinstance(sa_type, family):
            return next(name for base, name in PYTHON_DATA_TYPES if issubclass(kind, base))
    return None


def _bound(value: Any, column: Any) -> Any:
    """A cursor bound in the column's Python type (ISO strings become datetimes or dates)."""
    import sqlalchemy as sa

    if isinstance(value, str) and isinstance(column.type, (sa.DateTime, sa.Date)):
        parsed = timeutil.parse(value)
        if isinstance(column.type, sa.Date) and not isinstance(column.type, sa.DateTime):
            return parsed.date()
        naive = not getattr(column.type, "timezone", False)
        return timeutil.from_epoch(parsed.timestamp()).replace(tzinfo=None) if naive else parsed
    return value


class SqlDatabaseSource:
    def __init__(self, config: Dict[str, Any], name: str = "sql_database"):
        import sqlalchemy as sa

        self.config, self.name = config, name
        where = f"source {name}"
        try:
            self.engine = sa.create_engine(config["credentials"])
            self.metadata = sa.MetaData(schema=config.get("schema"))
            found = sa.inspect(self.engine).get_table_names(schema=config.get("schema"))
        except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as e:  # its text would show the URL, a secret
            raise ConfigError(f"{where}: credentials: not a SQLAlchemy URL of an installed dialect "
                              f"({type(e).__name__}), e.g. postgresql+psycopg2://user@host/db") from None
        except sa.exc.OperationalError as e:
            raise ConfigError(f"{where}: credentials: the database cannot be opened: "
                              f"{' '.join(str(e.orig).split())[:200]}") from None
        for key, names in (("tables", config.get("tables") or []), ("table_options", config.get("table_options") or {})):
            for table in names:
                if table not in found:
                    raise ConfigError(f"{where}: {key}: no table {table!r}{did_you_mean(table, found)} in the database; "
                                      f"it has {', '.join(found[:20]) or 'none'}")
        self.metadata.reflect(bind=self.engine, only=config.get("tables"))

    def resource(self, table: Any) -> Resource:
        options: Dict[str, Any] = dict((self.config.get("table_options") or {}).get(table.name, {}))
        chunk_size = int(options.get("chunk_size", self.config.get("chunk_size", 10_000)))
        inc = options.get("incremental")
        columns = {c.name: {"data_type": data_type(c.type), "nullable": c.nullable}
                   for c in table.columns if data_type(c.type)}
        options.setdefault("primary_key", [c.name for c in table.primary_key.columns] or None)

        def chunks(query: Any) -> Iterator[List[Dict[str, Any]]]:
            with self.engine.connect() as conn:
                result = conn.execution_options(stream_results=True, max_row_buffer=chunk_size).execute(query)
                while True:
                    rows = result.fetchmany(chunk_size)
                    if not rows:
                        return
                    yield [dict(r._mapping) for r in rows]

        if inc:
            if inc["cursor_path"] not in table.columns:
                names = list(table.columns.keys())
                raise ConfigError(f"source {self.name}: table_options.{table.name}.incremental.cursor_path: no column "
                                  f"{inc['cursor_path']!r}{did_you_mean(inc['cursor_path'], names)}; it has {', '.join(names)}")
            column = table.columns[inc["cursor_path"]]

            def read(cursor=incremental(
                inc["cursor_path"], initial_value=inc.get("initial_value"), end_value=inc.get("end_value"),
                range_start=inc.get("range_start", "closed"), range_end=inc.get("range_end", "open"),
                lag=inc.get("lag"), row_order="asc",
            )):
                query = table.select().order_by(column)
                if cursor.start_value is not None:
                    start = _bound(cursor.start_value, column)
                    query = query.where(column > start if cursor.range_start == "open" else column >= start)
                if cursor.end_value is not None:
                    end = _bound(cursor.end_value, column)
                    query = query.where(column <= end if cursor.range_end == "closed" else column < end)
                yield from chunks(query)
        else:
            def read():
                yield from chunks(table.select())

        hints = {k: options[k] for k in TABLE_HINTS if options.get(k) is not None}
        hints.setdefault("write_disposition", "merge" if inc else "replace")
        return Resource(read, table.name, columns=columns, **hints)

    def source(self) -> Source:
        return Source(self.name, [self.resource(t) for t in self.metadata.sorted_tables])
