"""The `sparkload` adapter: dbt-spark plus the embedded lakehouse and what Jinja asks of it.

Where it departs from dbt-spark, because the lakehouse's Iceberg catalog (Spark's default catalog, a
v2 catalog) answers differently from Hive's:
- relations: `SHOW TABLES` of a v2 catalog leaves views out, so views are listed with `SHOW VIEWS`
  beside it; a schema that does not exist lists as empty; when the v2 catalog is Iceberg's `SparkCatalog`
  (the Iceberg lakehouse's), every table it lists is an Iceberg table, so no table is described to learn
  its provider (dbt-spark sends a `describe table extended` per table: 50 statements for 50 tables in
  every run's cache fill); a table's columns are described when dbt asks for them; a lookup of a cached
  relation (`get_relation`) goes by the cache's key, not through every cached relation of its schema;
- `drop_schema`: a catalog that refuses `drop ... cascade` on a non-empty schema gets the schema's
  relations dropped first; on a Delta lakehouse's Hive metastore (H2), the error Hive 2.3 raises after it
  dropped the schema (its ACID bookkeeping knows no H2) is taken as done once the schema is gone;
- seeds go through a DataFrame on an in-process session, as bound text values cast by one checked
  `insert ... select` per batch over a server (seeds.py).
"""
from __future__ import annotations

import functools
import re
import threading
from dataclasses import replace
from typing import Any, Dict, Iterable, List, Optional

from dbt.adapters.base import BaseRelation
from dbt.adapters.base.meta import available
from dbt.adapters.contracts.relation import RelationType
from dbt.adapters.reference_keys import _ReferenceKey, lowercase
from dbt.adapters.spark.column import SparkColumn
from dbt.adapters.spark.impl import (
    LIST_RELATIONS_MACRO_NAME, LIST_RELATIONS_SHOW_TABLES_MACRO_NAME, SCHEMA_NOT_FOUND_MESSAGES, SparkAdapter,
)
from dbt_common.exceptions import DbtRuntimeError

from dbt.adapters.sparkload.connections import SparkloadConnectionManager, runs_in_process

LIST_VIEWS_MACRO_NAME = "sparkload__list_views_without_caching"
FETCH_CONF_MACRO_NAME = "sparkload__fetch_conf"
# a v2 catalog of this class holds Iceberg tables only (Iceberg's SparkSessionCatalog, which may also hold
# others, lists through the v1 path); the lakehouse's Iceberg catalog is one (python_extract/lakehouse/session.py)
ICEBERG_CATALOG_CLASS = "org.apache.iceberg.spark.SparkCatalog"
ICEBERG_INFORMATION = "Provider: iceberg\n"
CATALOG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SHOW_TABLES_LIKE_MACRO_NAME = "sparkload__show_tables_like"
V2_CATALOG_MESSAGE = "SHOW TABLE EXTENDED is not supported for v2 tables"
NOT_EMPTY_MESSAGES = ("NamespaceNotEmptyException", "[SCHEMA_NOT_EMPTY]", "is not empty")
# Hive 2.3's metastore runs AcidEventListener.onDropDatabase after it committed a schema's drop: its TxnHandler
# knows five database products, not H2 (the Delta lakehouse's metastore database: docs/lakehouse.md), and
# deletes from ACID tables DataNucleus never created
VIEW_OWNER = re.compile(r"'sparkload\.owner' = '((?:[^'\\]|\\.)*)'")  # in an Iceberg view's `View Properties`
DROPPED_BUT_H2_MESSAGES = ("Unrecognized database product name <H2>", "Table \"TXN_COMPONENTS\" not found")
# a commit the table format refused because a concurrent commit changed the same files: Delta's conflicts
# (io.delta.exceptions.Concurrent*Exception), Iceberg's failed commit or validation
COMMIT_CONFLICT_MESSAGES = ("io.delta.exceptions.Concurrent", "org.apache.iceberg.exceptions.CommitFailedException",
                            "org.apache.iceberg.exceptions.ValidationException")


# the schema tree's names (Spark's DataType.typeName) of the types whose SQL name differs
TREE_TYPE_NAMES = {"long": "bigint", "integer": "int", "short": "smallint", "byte": "tinyint"}


@functools.lru_cache(maxsize=None)
def _empty_table():
    from dbt_common.clients.agate_helper import empty_table

    return empty_table()


def _says_line(line: str) -> bool:
    return any(m in line for m in COMMIT_CONFLICT_MESSAGES)


def _says(error: DbtRuntimeError, messages) -> bool:
    text = getattr(error, "msg", "") or str(error)
    return any(m in text for m in messages)


class SparkloadAdapter(SparkAdapter):
    ConnectionManager = SparkloadConnectionManager
    _run_cache: Dict[str, Dict[str, Any]] = {}
    _run_cache_lock = threading.Lock()
    _iceberg_catalogs: Dict[tuple, bool] = {}  # per server: whether its default catalog is Iceberg's SparkCatalog

    def _connected(self):
        """The credentials this thread's connection uses."""
        return self.connections.get_thread_connection().credentials

    @available
    def lakehouse_table_format(self) -> Optional[str]:
        """The embedded lakehouse's table format (delta or iceberg): its session's, or with `warm: true` the
        format the lakehouse pinned at its first start (the warm server serves that lakehouse, checked when
        connecting); None for server connections."""
        creds = self._connected()
        # asked by every sparkload model (fetch_sparkload_default_file_format); a lakehouse's pinned format does
        # not change while this adapter (one dbt invocation) lives, so once known it is read no more (issue 37);
        # None (a lakehouse not started yet, or no lakehouse) is asked again
        known = self.__dict__.setdefault("_lakehouse_formats", {})
        key = (getattr(creds, "lakehouse_dir", None), bool(getattr(creds, "warm", False)), getattr(creds, "method", None))
        if known.get(key) is None:
            known[key] = self._read_lakehouse_table_format(creds)
        return known[key]

    def _read_lakehouse_table_format(self, creds) -> Optional[str]:
        if getattr(creds, "warm", False):
            from python_extract.lakehouse.config import pinned_format

            return pinned_format(creds.lakehouse_config())
        if not runs_in_process(creds):
            return None
        from python_extract.lakehouse.session import session_format

        return session_format(self.connections.spark_session(creds))

    def get_relation(self, database: str, schema: str, identifier: str) -> Optional[BaseRelation]:
        """dbt's answer, found by key: dbt-core lists the schema's cached relations (a pass over every relation
        of the cache) and tests each against the name, so a run of N models that each look up their table
        made N x N tests (issue 37: 2 lookups a sparkload model). The cache keys a relation by its lowercased
        names, so the one relation that can match is that key's; it is then tested as dbt tests it (quoting,
        the error for a name that differs only in case). A schema not cached, or a lookup without a name,
        goes dbt's way."""
        if not self.Relation.get_default_include_policy().database:
            database = None  # type: ignore[assignment]  # as dbt-spark's get_relation
        if identifier is None or (database, schema) not in self.cache:
            return super().get_relation(database, schema, identifier)
        cached = self.cache.relations.get(_ReferenceKey(lowercase(database), lowercase(schema), lowercase(identifier)))
        if cached is None:
            return None
        return cached.inner if cached.inner.matches(**self._make_match_kwargs(database, schema, identifier)) else None

    @available
    def sparkload_empty_table(self):
        """One empty agate table for every result without rows (helpers: `store_raw_result` of a model's
        report): dbt builds a new one for each, 0.4 ms apiece (issue 37). agate tables are immutable."""
        return _empty_table()

    @available
    def sparkload_try_compaction(self, sql: str) -> Optional[str]:
        """Run a compaction of one of sparkload's own tables (helpers/run_loads.sql: the ledgers a run wrote
        to). A commit the format refuses because a concurrent commit changed the same files (two runs
        compacting one ledger at once) returns the error's line naming the conflict (else its first line),
        which the caller logs, instead of failing a model whose data is committed; any other error raises."""
        try:
            self.execute(sql)
        except DbtRuntimeError as error:
            if not _says(error, COMMIT_CONFLICT_MESSAGES):
                raise
            lines = (getattr(error, "msg", "") or str(error)).strip().splitlines()
            return next((line for line in lines if _says_line(line)), lines[0]).strip()
        return None

    @available
    def raise_sparkload_error(self, message: str) -> None:
        """A sparkload model's refusal (validate.sql, `_sparkload_raise`) as a runtime error: dbt shows its one
        message, where a compiler error gets dbt's macro stack appended (`> in macro ...`, 6-8 lines)."""
        raise DbtRuntimeError(message)

    @available
    def sparkload_run_cache(self, invocation_id: str) -> Dict[str, Any]:
        """A dict every model of one dbt invocation shares (helpers/run_loads.sql keeps what a run read once
        there); a new invocation gets an empty one. Jinja decides what it holds and when it is stale."""
        with self._run_cache_lock:
            if invocation_id not in self._run_cache:
                self._run_cache.clear()
                self._run_cache[invocation_id] = {}
            return self._run_cache[invocation_id]

    @available
    def sparkload_run_count(self, invocation_id: str, key: str) -> int:
        """Add one to the counter `key` of the run's shared dict and return it; one at a time across dbt's threads."""
        cache = self.sparkload_run_cache(invocation_id)
        with self._run_cache_lock:
            cache[key] = cache.get(key, 0) + 1
            return cache[key]

    @available
    def in_process_session(self) -> bool:
        """True when statements run on a SparkSession in this process (`embedded`, `session`)."""
        return runs_in_process(self._connected())

    @available
    def fetch_table_names(self, schema: str, pattern: str) -> Optional[List[str]]:
        """The names of `schema`'s tables matching `pattern` (SHOW TABLES ... LIKE); None when the schema
        does not exist: one statement, where dbt-spark's check_schema_exists lists every schema first."""
        try:
            table = self.execute_macro(SHOW_TABLES_LIKE_MACRO_NAME, kwargs={"schema": schema, "pattern": pattern})
        except DbtRuntimeError as e:
            if _says(e, SCHEMA_NOT_FOUND_MESSAGES):
                return None
            raise
        return [row[1] for row in table]

    @available
    def load_seed_rows(self, relation: BaseRelation, agate_table, column_types: List[str]) -> int:
        """Append a seed's rows to its (just created) table through a DataFrame; see seeds.py."""
        from dbt.adapters.sparkload.seeds import load_rows

        return load_rows(self.connections.spark_session(self._connected()), relation.render(),
                         relation.identifier, list(agate_table.column_names), column_types, agate_table.rows)

    @available
    def seed_text_rows(self, agate_table) -> List[List[Optional[str]]]:
        """A seed's rows as the text values bound to `seed_insert_sql` (seeds.py)."""
        from dbt.adapters.sparkload.seeds import text_rows

        return text_rows(agate_table.rows)

    @available
    def seed_insert_sql(self, relation: BaseRelation, agate_table, column_types: List[str], rows: int,
                        binding_char: str) -> str:
        """The insert of `rows` bound rows of a seed over a server connection (seeds.py)."""
        from dbt.adapters.sparkload.seeds import bound_insert

        return bound_insert(relation.render(), relation.identifier, list(agate_table.column_names), column_types,
                            rows, binding_char)

    def list_relations_without_caching(self, schema_relation: BaseRelation) -> List[BaseRelation]:
        kwargs = {"schema_relation": schema_relation}
        try:
            rows = self.execute_macro(LIST_RELATIONS_MACRO_NAME, kwargs=kwargs)
            # rows are (namespace, name, isTemporary, information); the session catalog (Delta's) lists the
            # session's temporary views (dbt-spark's `__dbt_tmp`) in every schema: no schema's relations
            return self._build_spark_relation_list([row for row in rows if not row[2]], self._get_relation_information)
        except DbtRuntimeError as e:
            if _says(e, SCHEMA_NOT_FOUND_MESSAGES):
                return []
            if not _says(e, (V2_CATALOG_MESSAGE,)):
                raise
        try:
            tables = self.execute_macro(LIST_RELATIONS_SHOW_TABLES_MACRO_NAME, kwargs=kwargs)
            views = self.execute_macro(LIST_VIEWS_MACRO_NAME, kwargs=kwargs)
        except DbtRuntimeError as e:
            if _says(e, SCHEMA_NOT_FOUND_MESSAGES):
                return []
            raise
        # rows are (namespace, name, isTemporary); a session's temporary views are no schema's relations
        view_names = {row[1] for row in views if not row[2]}
        relations = self._build_spark_relation_list(
            [row for row in tables if not row[2] and row[1] not in view_names],
            (lambda row: (row[0], row[1], ICEBERG_INFORMATION)) if self._lists_iceberg_tables()
            else self._get_relation_information_using_describe,
        )
        return relations + [
            self.Relation.create(schema=schema_relation.schema, identifier=name, type=RelationType.View,
                                 information="Type: VIEW\n")
            for name in sorted(view_names)
        ]

    def _lists_iceberg_tables(self) -> bool:
        """Whether the session's default catalog is Iceberg's SparkCatalog, so that every table it lists is an
        Iceberg table: read off an in-process session's settings, a warm lakehouse's pinned format (its server's
        session is the lakehouse's), else asked of the server once per process (two `set` statements)."""
        creds = self._connected()
        if runs_in_process(creds):
            conf = self.connections.spark_session(creds).conf
            default = conf.get("spark.sql.defaultCatalog", "spark_catalog")
            return conf.get(f"spark.sql.catalog.{default}", None) == ICEBERG_CATALOG_CLASS
        if getattr(creds, "warm", False):
            return self.lakehouse_table_format() == "iceberg"
        server = tuple(getattr(creds, key, None) for key in ("method", "host", "port", "url", "cluster", "endpoint"))
        if server not in self._iceberg_catalogs:
            default = self._fetch_conf("spark.sql.defaultCatalog")
            found = bool(default and CATALOG_NAME.fullmatch(default)) and (
                self._fetch_conf(f"spark.sql.catalog.{default}") == ICEBERG_CATALOG_CLASS)
            self._iceberg_catalogs[server] = found
        return self._iceberg_catalogs[server]

    def _fetch_conf(self, key: str) -> Optional[str]:
        rows = self.execute_macro(FETCH_CONF_MACRO_NAME, kwargs={"key": key})
        return str(rows[0][1]) if len(rows) else None

    def parse_describe_extended(self, relation: BaseRelation, raw_rows) -> List[SparkColumn]:
        # an Iceberg view has no owner (dbt-spark records str(None)): the one the adapter's view creation
        # recorded as the property sparkload.owner (relations.sql, sparkload__create_view_as), else none
        owner = None
        for row in raw_rows:
            if row and str(row[0]).strip() == "View Properties":
                found = VIEW_OWNER.search(str(row[1]))
                owner = found.group(1).replace("\\'", "'") if found else None
        return [column if column.table_owner != "None" else replace(column, table_owner=owner)
                for column in super().parse_describe_extended(relation, raw_rows)]

    def _get_columns_for_catalog(self, relation: BaseRelation) -> Iterable[Dict[str, Any]]:
        # the catalog counts columns from 1 (information_schema's ordinal_position, which dbt's docs and
        # its adapter suite expect); dbt-spark counts from 0. Types by their SQL names: on the session
        # catalog (Delta's) dbt-spark reads them off `show table extended`'s schema tree, which names
        # bigint `long` and int `integer` (DESCRIBE, on Iceberg's catalog, says bigint and int)
        for column in super()._get_columns_for_catalog(relation):
            yield {**column, "column_index": column["column_index"] + 1,
                   "column_type": TREE_TYPE_NAMES.get(column["column_type"], column["column_type"])}

    def drop_schema(self, relation: BaseRelation) -> None:
        try:
            super().drop_schema(relation)
        except DbtRuntimeError as e:
            if _says(e, DROPPED_BUT_H2_MESSAGES) and not self.check_schema_exists(relation.database, relation.schema):
                self.cache.drop_schema(relation.database, relation.schema)
                return
            if not _says(e, NOT_EMPTY_MESSAGES):
                raise
            # the Iceberg JDBC catalog ignores CASCADE: empty the schema, then drop it
            for member in self.list_relations_without_caching(relation.without_identifier()):
                self.drop_relation(member)
            super().drop_schema(relation)
