"""Subcommands for source plugins and dbt (a leaf: parse, call the library, print).

    sparkload sources                         the installed source plugins and their config keys
    sparkload init PLUGIN [--name N]          write a commented N_pipeline.yaml to start from
    sparkload dbt scaffold --dataset D [--schema-name S] [--project-dir P] [--overwrite]
                                              dbt sources.yml + one sparkload model per staging table
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from .cli_pipeline import _guarded
from .sources.registry import discover, get_plugin


def _cmd_sources(args: argparse.Namespace) -> int:
    for plugin in discover().values():
        print(f"{plugin.name}: {plugin.description}")
        if args.schema:
            print(json.dumps(plugin.config_schema, indent=2))
        else:
            print(f"  config keys: {', '.join(plugin.config_schema.get('properties', {}))}")
    return 0


def _cmd_init(args: argparse.Namespace) -> int:
    from .scaffold import pipeline_yaml

    plugin = get_plugin(args.plugin)
    name = args.name or plugin.name
    path = Path(args.dir) / f"{name}_pipeline.yaml"
    if path.exists() and not args.overwrite:
        print(f"sparkload: {path} exists (use --overwrite)", file=sys.stderr)
        return 2
    path.write_text(pipeline_yaml(plugin, name))
    print(f"wrote {path}: edit it, then `sparkload run {path}`")
    return 0


def _cmd_scaffold(args: argparse.Namespace, config_of: Callable[[argparse.Namespace], object]) -> int:
    from .lakehouse import get_session
    from .load.destination import read_schema
    from .scaffold import dbt_scaffold

    spark = get_session(config_of(args))
    schema_name = args.schema_name or args.dataset
    schema = read_schema(spark, args.dataset, schema_name)
    if schema is None:
        print(f"sparkload: no schema {schema_name!r} in {args.dataset}._dlt_version: run the pipeline first "
              f"(or pass --schema-name, the pipeline's name)", file=sys.stderr)
        return 2
    for path in dbt_scaffold(schema, args.dataset, Path(args.project_dir), args.overwrite):
        print(f"wrote {path}")
    return 0


def add_source_commands(sub, lakehouse_args: Callable[[argparse.ArgumentParser], None],
                        config_of: Callable[[argparse.Namespace], object]) -> None:
    sources = sub.add_parser("sources", help="list the installed source plugins and their config keys")
    sources.add_argument("--schema", action="store_true", help="print each plugin's full JSON Schema")
    sources.set_defaults(func=_guarded(_cmd_sources))
    init = sub.add_parser("init", help="write a commented pipeline YAML for a source plugin")
    init.add_argument("plugin", help="a plugin name from `sparkload sources` (rest_api, files, sql_database, ...)")
    init.add_argument("--name", help="pipeline name (default: the plugin's name)")
    init.add_argument("--dir", default=".", help="where to write <name>_pipeline.yaml (default: here)")
    init.add_argument("--overwrite", action="store_true", help="replace an existing file")
    init.set_defaults(func=_guarded(_cmd_init))
    dbt = sub.add_parser("dbt", help="dbt helpers").add_subparsers(dest="action", required=True)
    scaffold = dbt.add_parser("scaffold", help="dbt sources.yml + a sparkload model per staging table, from the resource hints")
    lakehouse_args(scaffold)
    scaffold.add_argument("--dataset", required=True, help="the staging dataset (schema) the pipeline wrote")
    scaffold.add_argument("--schema-name", help="the dlt schema name (default: the pipeline name = dataset)")
    scaffold.add_argument("--project-dir", default=".", help="the dbt project (default: here)")
    scaffold.add_argument("--overwrite", action="store_true", help="replace existing model files")
    scaffold.set_defaults(func=_guarded(lambda a: _cmd_scaffold(a, config_of)))

