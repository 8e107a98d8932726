"""dlt's `sql_database(...)` / `sql_table(...)` over the `sql_database` plugin.

The plugin reflects the tables and reads them (a server-side cursor in chunks, the cursor pushed into the
WHERE); this module maps dlt's arguments onto its config and adjusts what dlt decides differently:
- `write_disposition` defaults to `append`, as dlt's (the plugin's YAML default is merge/replace);
- `incremental=` (a `python_extract.sources.incremental`) becomes the plugin's `incremental` block;
- `reflection_level`: `minimal` keeps only the nullability of the reflected columns (types come from the
  values), `full` the plugin's types with a decimal's precision and scale, `full_with_precision` also a
  text's and a small integer's precision, as dlt's `sqla_col_to_column_schema` does;
- `table_adapter_callback(table)` runs on each reflected table before it is read (a returned table
  replaces it), after `included_columns` / `excluded_columns` (sql_table) narrowed it.
`backend` other than `sqlalchemy` and dlt's other arguments (query / type / engine adapters, `metadata`,
`defer_table_reflect`, views, foreign keys, `backend_kwargs`, `engine_kwargs`, `table_loader_class`) are
refused by name.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ...errors import ConfigError
from . import checked, refuse

LEVELS = ("minimal", "full", "full_with_precision")
_UNSUPPORTED = {"metadata": None, "defer_table_reflect": None, "backend_kwargs": None, "include_views": False,
                "type_adapter_callback": None, "query_adapter_callback": None, "resolve_foreign_keys": False,
                "engine_adapter_callback": None, "engine_kwargs": None, "table_loader_class": None,
                "detect_precision_hints": None}


def _url(credentials: Any, who: str) -> str:
    if isinstance(credentials, str):
        return credentials
    url = getattr(credentials, "url", None)  # an sqlalchemy Engine
    if url is not None and hasattr(url, "render_as_string"):
        return url.render_as_string(hide_password=False)
    if hasattr(credentials, "to_native_representation"):  # dlt's ConnectionStringCredentials
        return credentials.to_native_representation()
    raise ConfigError(f"{who}: credentials must be a SQLAlchemy URL or Engine, got {type(credentials).__name__}")


def _incremental(inc: Any, who: str) -> Dict[str, Any]:
    if getattr(inc, "last_value_func", max) is not max:
        raise ConfigError(f"{who}: incremental last_value_func={inc.last_value_func!r} is not supported by sql_table "
                          "(the cursor is pushed into the WHERE as an ascending range); remove it")
    if getattr(inc, "row_order", None) not in (None, "asc"):
        raise ConfigError(f"{who}: incremental row_order={inc.row_order!r} is not supported by sql_table (rows are read ascending)")
    out = {"cursor_path": inc.cursor_path, "initial_value": inc.initial_value, "end_value": inc.end_value,
           "range_start": inc.range_start, "range_end": inc.range_end, "lag": inc.lag}
    return {k: v for k, v in out.items() if v is not None}


def _columns(table: Any, columns: Dict[str, Any], level: str) -> Dict[str, Any]:
    """The plugin's reflected column hints at dlt's `reflection_level`."""
    import sqlalchemy as sa

    if level == "minimal":
        return {c.name: {"nullable": c.nullable} for c in table.columns if c.nullable is not None}
    out = {name: dict(hints) for name, hints in columns.items()}
    for c in table.columns:
        hints, t = out.get(c.name), c.type
        if hints is None:
            continue
        if hints.get("data_type") == "decimal" and getattr(t, "precision", None) is not None:
            hints["precision"] = t.precision
            if t.scale is not None:
                hints["scale"] = t.scale
        elif level == "full_with_precision" and isinstance(t, sa.SmallInteger):
            hints["precision"] = 32
        elif level == "full_with_precision" and isinstance(t, (sa.String, sa.LargeBinary)) and getattr(t, "length", None):
            hints["precision"] = t.length
    return out


def _narrow(table: Any, included: Optional[List[str]], excluded: Optional[List[str]], who: str) -> None:
    for name in list(table.columns.keys()):
        if (included is not None and name not in included) or (excluded and name in excluded):
            table._columns.remove(table.columns[name])  # dlt's default table adapter narrows the table so, in place


def _resources(source: Any, names: List[str], options: Dict[str, Any], who: str) -> List[Any]:
    level, callback = options["reflection_level"], options["table_adapter_callback"]
    if level not in LEVELS:
        raise ConfigError(f"{who}: reflection_level={level!r}; expected one of {', '.join(LEVELS)}")
    out = []
    tables = {t.name: t for t in source.metadata.sorted_tables}
    for name in names:
        table = tables[name]
        _narrow(table, options.get("included_columns"), options.get("excluded_columns"), who)
        if callback is not None:
            table = callback(table) or table
        resource = source.resource(table)
        resource.apply_hints(columns=_columns(table, resource.columns, level))
        out.append(resource)
    return out


def _check_backend(backend: str, who: str) -> None:
    if backend != "sqlalchemy":
        raise ConfigError(f"{who}: backend={backend!r} is not supported by sparkload (it reads with SQLAlchemy rows); "
                          "remove it or set backend='sqlalchemy'")


def sql_database(credentials: Any, schema: Optional[str] = None, metadata: Any = None, table_names: Optional[List[str]] = None,
                 chunk_size: int = 50000, backend: str = "sqlalchemy", detect_precision_hints: Optional[bool] = False,
                 reflection_level: str = "full", defer_table_reflect: Optional[bool] = None, table_adapter_callback: Any = None,
                 backend_kwargs: Any = None, include_views: bool = False, type_adapter_callback: Any = None,
                 query_adapter_callback: Any = None, resolve_foreign_keys: bool = False, engine_adapter_callback: Any = None,
                 engine_kwargs: Any = None, table_loader_class: Any = None) -> Any:
    """dlt's: a source named `sql_database` with a resource (write_disposition append) per reflected table."""
    from ...extract import Source
    from ..sql_database.source import SqlDatabaseSource

    who = "sql_database"
    given = dict(metadata=metadata, defer_table_reflect=defer_table_reflect, backend_kwargs=backend_kwargs,
                 include_views=include_views, type_adapter_callback=type_adapter_callback,
                 query_adapter_callback=query_adapter_callback, resolve_foreign_keys=resolve_foreign_keys,
                 engine_adapter_callback=engine_adapter_callback, engine_kwargs=engine_kwargs,
                 table_loader_class=table_loader_class, detect_precision_hints=detect_precision_hints or None)
    refuse(who, given, _UNSUPPORTED)
    _check_backend(backend, who)
    config = {"credentials": _url(credentials, who), "chunk_size": chunk_size}
    if schema is not None:
        config["schema"] = schema
    if table_names is not None:
        config["tables"] = list(table_names)
    source = SqlDatabaseSource(checked("sql_database", config, who), who)
    names = [t.name for t in source.metadata.sorted_tables]
    source.config["table_options"] = {n: {"write_disposition": "append"} for n in names}
    options = {"reflection_level": reflection_level, "table_adapter_callback": table_adapter_callback}
    return Source("sql_database", _resources(source, names, options, who))


def sql_table(credentials: Any, table: str, schema: Optional[str] = None, metadata: Any = None, incremental: Any = None,
              chunk_size: int = 50000, backend: str = "sqlalchemy", detect_precision_hints: Optional[bool] = None,
              reflection_level: str = "full", defer_table_reflect: Optional[bool] = None, table_adapter_callback: Any = None,
              backend_kwargs: Any = None, type_adapter_callback: Any = None, included_columns: Optional[List[str]] = None,
              excluded_columns: Optional[List[str]] = None, query_adapter_callback: Any = None,
              resolve_foreign_keys: bool = False, engine_adapter_callback: Any = None, write_disposition: Any = "append",
              primary_key: Any = None, merge_key: Any = None, engine_kwargs: Any = None, table_loader_class: Any = None) -> Any:
    """dlt's: the resource of one table (named after it), `incremental` pushed into its query."""
    from ..sql_database.source import SqlDatabaseSource

    who = f"sql_table {table}"
    given = dict(metadata=metadata, defer_table_reflect=defer_table_reflect, backend_kwargs=backend_kwargs,
                 type_adapter_callback=type_adapter_callback, query_adapter_callback=query_adapter_callback,
                 resolve_foreign_keys=resolve_foreign_keys, engine_adapter_callback=engine_adapter_callback,
                 engine_kwargs=engine_kwargs, table_loader_class=table_loader_class, detect_precision_hints=detect_precision_hints or None)
    refuse(who, given, _UNSUPPORTED)
    _check_backend(backend, who)
    options: Dict[str, Any] = {"write_disposition": write_disposition, "primary_key": primary_key, "merge_key": merge_key,
                               "chunk_size": chunk_size}
    if incremental is not None:
        options["incremental"] = _incremental(incremental, who)
    config = {"credentials": _url(credentials, who), "tables": [table],
              "table_options": {table: {k: v for k, v in options.items() if v is not None}}}
    if schema is not None:
        config["schema"] = schema
    import sqlalchemy as sa

    try:
        source = SqlDatabaseSource(checked("sql_database", config, who), table)
    except sa.exc.InvalidRequestError:  # reflect(only=[table]) found no such table
        raise ConfigError(f"{who}: no table {table!r} in the database{' schema ' + schema if schema else ''}") from None
    return _resources(source, [table], {"reflection_level": reflection_level, "table_adapter_callback": table_adapter_callback,
                                        "included_columns": included_columns, "excluded_columns": excluded_columns}, who)[0]
