"""Subcommands for source plugins and dbt (a leaf: parse, call the library, print).

    sparkload sources                         the installed source plugins and their config keys
    sparkload init PLUGIN [--name N]          write a commented N_pipeline.yaml to start from
    sparkload dbt scaffold --dataset D [--schema-name S] [--project-dir P] [--prefix-with-dataset] [--overwrite]
                                              dbt sources.yml + one sparkload model per staging table
                                              (+ dbt_project.yml and profiles.yml in a folder without a project)
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable

from .errors import ConfigError
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
    from .pipeline_file import check_pipeline_name
    from .scaffold import pipeline_yaml

    plugin = get_plugin(args.plugin)
    name = check_pipeline_name(args.name or plugin.name, "--name")
    path = Path(args.dir) / f"{name}_pipeline.yaml"
    if path.exists() and not args.overwrite:
        raise ConfigError(f"{path} exists: nothing written (pass --overwrite to replace it)")
    path.write_text(pipeline_yaml(plugin, name))
    print(f"wrote {path}: edit it, then `sparkload run {path}`")
    return 0


def _cmd_scaffold(args: argparse.Namespace, config_of: Callable[[argparse.Namespace], object]) -> int:
    from .lakehouse import get_session
    from .scaffold import scaffold_from_lakehouse

    config = config_of(args)
    written = scaffold_from_lakehouse(get_session(config), args.dataset, Path(args.project_dir), args.schema_name,
                                      overwrite=args.overwrite, prefix_with_dataset=args.prefix_with_dataset,
                                      lakehouse_home=config.home, target_schema=args.target_schema)
    for path in written:
        print(f"wrote {path}")
    if not written:
        print("nothing to write: every file exists (pass --overwrite to replace them)")
    return 0


def add_source_commands(sub, lakehouse_args: Callable[[argparse.ArgumentParser], None],
                        config_of: Callable[[argparse.Namespace], object]) -> None:
    sources = sub.add_parser("sources", help="list the installed source plugins and their config keys")
    sources.add_argument("--schema", action="store_true", help="print each plugin's full JSON Schema")
    sources.set_defaults(func=_cmd_sources)
    init = sub.add_parser("init", help="write a commented pipeline YAML for a source plugin")
    init.add_argument("plugin", help="a plugin name from `sparkload sources` (rest_api, files, sql_database, ...)")
    init.add_argument("--name", help="pipeline name (default: the plugin's name)")
    init.add_argument("--dir", default=".", help="where to write <name>_pipeline.yaml (default: here)")
    init.add_argument("--overwrite", action="store_true", help="replace an existing file")
    init.set_defaults(func=_cmd_init)
    dbt = sub.add_parser("dbt", help="dbt helpers").add_subparsers(dest="action", required=True)
    scaffold = dbt.add_parser("scaffold", help="dbt sources.yml + a sparkload model per staging table, from the resource hints")
    lakehouse_args(scaffold)
    scaffold.add_argument("--dataset", required=True, help="the staging dataset (schema) the pipeline wrote")
    scaffold.add_argument("--schema-name", help="the dlt schema name = the pipeline name (default: the one pipeline "
                                                "whose loads are in the dataset)")
    scaffold.add_argument("--project-dir", default=".", help="the dbt project, or an empty folder for a new one (default: here)")
    scaffold.add_argument("--prefix-with-dataset", action="store_true",
                          help="name the models <dataset>__<table> (when the project has models of the same names)")
    scaffold.add_argument("--target-schema", default="analytics",
                          help="the schema dbt builds into, for a new project's profiles.yml (default analytics)")
    scaffold.add_argument("--overwrite", action="store_true", help="replace existing model files")
    scaffold.set_defaults(func=lambda a: _cmd_scaffold(a, config_of))

