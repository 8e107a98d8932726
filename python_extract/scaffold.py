"""Starting points generated from what is installed or landed:

- `pipeline_yaml(plugin)`: a commented pipeline YAML for a source plugin (`sparkload init`);
- `dbt_scaffold(schema, dataset, project_dir)`: a dbt `sources.yml` and one `sparkload` model per
  staging table, configured from the resource hints recorded in `_dlt_version` (write disposition,
  merge strategy, primary key, merge key, hard_delete, dedup_sort); child tables become child models
  following their root (`root_model`). Existing files are kept unless `overwrite`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

from .normalize.schema import Schema, Table
from .sources.registry import SourcePlugin


def pipeline_yaml(plugin: SourcePlugin, pipeline_name: Optional[str] = None) -> str:
    name = pipeline_name or plugin.name
    return (
        f"# sparkload pipeline using the {plugin.name} source: {plugin.description}.\n"
        f"# Run it with `sparkload run {name}_pipeline.yaml`; see `sparkload sources` for every config key.\n"
        f"pipeline_name: {name}\n"
        f"dataset_name: {name}_raw\n"
        f"source:\n"
        f"  type: {plugin.name}\n"
        f"  config:\n"
        f"{plugin.example}"
    )


def _model_config(table: Table, root_model: Optional[str]) -> Dict[str, Any]:
    if root_model is not None:
        return {"materialized": "sparkload", "root_model": root_model}
    config: Dict[str, Any] = {"materialized": "sparkload", "write_disposition": table.write_disposition}
    if table.write_disposition == "merge":
        config["strategy"] = table.merge_strategy or "delete-insert"
    for hint in ("primary_key", "merge_key"):
        columns = table.column_hint(hint)
        if columns:
            config[hint] = columns if len(columns) > 1 else columns[0]
    hard = table.column_hint("hard_delete")
    if hard:
        config["hard_delete"] = hard[0]
    sort = {c: (meta["dedup_sort"] if meta["dedup_sort"] in ("asc", "desc") else "desc")
            for c, meta in table.columns.items() if meta.get("dedup_sort")}
    if sort:
        config["dedup_sort"] = sort
    return config


def _root_of(schema: Schema, table: Table) -> Table:
    while table.parent and table.parent in schema.tables:
        table = schema.tables[table.parent]
    return table


def _model_sql(dataset: str, table: Table, config: Dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    depends = f"-- depends_on: {{{{ ref('{config['root_model']}') }}}}\n" if "root_model" in config else ""
    return f"{{{{ config({args}) }}}}\n{depends}select * from {{{{ source('{dataset}', '{table.name}') }}}}\n"


def dbt_scaffold(schema: Schema, dataset: str, project_dir: Path, overwrite: bool = False) -> List[Path]:
    """Write `models/<dataset>/sources.yml` and a model per table; returns the files written."""
    folder = Path(project_dir) / "models" / dataset
    folder.mkdir(parents=True, exist_ok=True)
    tables = [t for n, t in schema.tables.items() if not n.startswith("_dlt")]
    sources = {"version": 2, "sources": [{"name": dataset, "schema": dataset,
                                          "tables": [{"name": t.name} for t in tables]}]}
    files = {folder / "sources.yml": yaml.safe_dump(sources, sort_keys=False)}
    for table in tables:
        root = _root_of(schema, table)
        config = _model_config(table, root.name if root is not table else None)
        files[folder / f"{table.name}.sql"] = _model_sql(dataset, table, config)
    written = []
    for path, text in files.items():
        if overwrite or not path.exists():
            path.write_text(text)
            written.append(path)
    return written
