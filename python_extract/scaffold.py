"""Starting points generated from what is installed or landed:

- `pipeline_yaml(plugin)`: a commented pipeline YAML for a source plugin (`sparkload init`);
- `plan_dbt_scaffold(...)` / `write_files(...)` (`sparkload dbt scaffold`): a dbt `sources.yml` and one
  `sparkload` model per staging table, configured from the resource hints recorded in `_dlt_version`
  (write disposition, merge strategy, primary key, merge key, hard_delete, dedup_sort, partition as
  partition_by, cluster as cluster_by: the contract's
  `ModelConfig` keys, python_extract/contract.py); child tables
  become child models following their root (`root_model`). Into a folder without `dbt_project.yml` it
  also writes a runnable project: `dbt_project.yml` and a `profiles.yml` (type sparkload, embedded, on
  the lakehouse that was read; added at the end of a `profiles.yml` already there that lacks it).

Into an existing project it adds `<its first model path>/<dataset>/` (`models/<dataset>/` by default)
only if no model or source of the same name exists anywhere in the project's model paths; otherwise it
refuses before writing any file (or, with `prefix_with_dataset`, names the models `<dataset>__<table>`).
Existing files are kept unless `overwrite`.

Errors: `ConfigError` (a name collision, an unknown schema name).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

from .contract import DEDUP_SORT_ORDERS, DEFAULT_MERGE_STRATEGY, DLT_PREFIX, KEY_HINTS, VERSION_TABLE, ModelConfig
from .errors import ConfigError
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
    """The `config(...)` of the table's model: dbt's `materialized`, then the sparkload keys."""
    return {"materialized": "sparkload", **_sparkload_config(table, root_model)}


def _sparkload_config(table: Table, root_model: Optional[str]) -> ModelConfig:
    if root_model is not None:
        return {"root_model": root_model}
    config: ModelConfig = {"write_disposition": table.write_disposition}
    if table.write_disposition == "merge":
        config["strategy"] = table.merge_strategy or DEFAULT_MERGE_STRATEGY
    config.update(table.merge_options)  # contract.MERGE_OPTIONS: model config keys of the same name
    for hint in KEY_HINTS:
        columns = table.column_hint(hint)
        if columns:
            config[hint] = columns if len(columns) > 1 else columns[0]
    hard = table.column_hint("hard_delete")
    if hard:
        config["hard_delete"] = hard[0]
    sort = {c: (meta["dedup_sort"] if meta["dedup_sort"] in DEDUP_SORT_ORDERS else "desc")
            for c, meta in table.columns.items() if meta.get("dedup_sort")}
    if sort:
        config["dedup_sort"] = sort
    for hint, key in (("partition", "partition_by"), ("cluster", "cluster_by")):
        columns = table.column_hint(hint)
        if columns:
            config[key] = columns if len(columns) > 1 else columns[0]
    return config


def _root_of(schema: Schema, table: Table) -> Table:
    while table.parent and table.parent in schema.tables:
        table = schema.tables[table.parent]
    return table


def _model_sql(dataset: str, table: Table, config: Dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    depends = f"-- depends_on: {{{{ ref('{config['root_model']}') }}}}\n" if "root_model" in config else ""
    return f"{{{{ config({args}) }}}}\n{depends}select * from {{{{ source('{dataset}', '{table.name}') }}}}\n"


def _project_name(folder: Path) -> str:
    name = re.sub(r"[^a-z0-9_]+", "_", folder.resolve().name.lower()).strip("_") or "sparkload_project"
    return name if name[0].isalpha() else f"p_{name}"


def _model_paths(project: Path) -> List[str]:
    """The project's `model-paths` (dbt's default: models)."""
    config = project / "dbt_project.yml"
    paths = (yaml.safe_load(config.read_text()) or {}).get("model-paths") if config.is_file() else None
    return list(paths or ["models"])


def _existing(project: Path) -> Dict[str, Dict[str, Path]]:
    """{"models": {name: file}, "sources": {name: file}} of the project's model paths."""
    found: Dict[str, Dict[str, Path]] = {"models": {}, "sources": {}}
    for base in _model_paths(project):
        for path in sorted((project / base).rglob("*")):
            if path.suffix in (".sql", ".py"):
                found["models"].setdefault(path.stem, path)
            elif path.suffix in (".yml", ".yaml"):
                try:
                    doc = yaml.safe_load(path.read_text()) or {}
                except yaml.YAMLError:
                    continue
                for source in (doc.get("sources") or []) if isinstance(doc, dict) else []:
                    if isinstance(source, dict) and "name" in source:
                        found["sources"].setdefault(str(source["name"]), path)
    return found


@dataclass
class ScaffoldPlan:
    """The files `sparkload dbt scaffold` writes, by path; `models` maps each table to its model name."""
    files: Dict[Path, str] = field(default_factory=dict)
    appended: Dict[Path, str] = field(default_factory=dict)  # text added at the end of an existing file
    models: Dict[str, str] = field(default_factory=dict)
    new_project: bool = False


def plan_dbt_scaffold(schema: Schema, dataset: str, project_dir: Path, lakehouse_home: Optional[Path] = None,
                      prefix_with_dataset: bool = False, overwrite: bool = False,
                      target_schema: str = "analytics") -> ScaffoldPlan:
    """What to write for the staging tables of `schema` in `dataset`; raises `ConfigError` on a collision
    with the project's models or sources, so that nothing is written."""
    project = Path(project_dir)
    plan = ScaffoldPlan(new_project=not (project / "dbt_project.yml").is_file())
    folder = project / _model_paths(project)[0] / dataset  # where dbt looks: an existing project may use `src/`
    tables = [t for n, t in schema.tables.items() if not n.startswith(DLT_PREFIX)]
    prefix = f"{dataset}__" if prefix_with_dataset else ""
    plan.models = {t.name: f"{prefix}{t.name}" for t in tables}
    existing = _existing(project)
    ours = {folder / f"{model}.sql" for model in plan.models.values()} | {folder / "sources.yml"}
    clashes = [f"model {model} ({existing['models'][model].relative_to(project)})" for model in plan.models.values()
               if model in existing["models"] and existing["models"][model] not in ours]
    if dataset in existing["sources"] and existing["sources"][dataset] not in ours:
        clashes.append(f"source {dataset} ({existing['sources'][dataset].relative_to(project)})")
    if clashes:
        advice = ("" if prefix_with_dataset else
                  f"; pass --prefix-with-dataset to name the models {prefix or dataset + '__'}<table>")
        raise ConfigError(f"{project}: the project already has {', '.join(clashes)}: nothing written{advice}")
    if plan.new_project:
        name = _project_name(project)
        plan.files[project / "dbt_project.yml"] = yaml.safe_dump(
            {"name": name, "version": "1.0.0", "config-version": 2, "profile": name, "model-paths": ["models"]},
            sort_keys=False)
        profile = yaml.safe_dump({name: {"target": "dev", "outputs": {"dev": {
            "type": "sparkload", "method": "embedded", "schema": target_schema,
            "lakehouse_dir": str(Path(lakehouse_home or ".sparkload").resolve()), "threads": 1}}}}, sort_keys=False)
        profiles = project / "profiles.yml"
        if not profiles.exists():
            plan.files[profiles] = profile
        elif name not in (yaml.safe_load(profiles.read_text()) or {}):
            # a profiles.yml of other projects: add this one's profile below them, their text kept as it is
            plan.appended[profiles] = "\n" + profile
    sources = {"version": 2, "sources": [{"name": dataset, "schema": dataset, "tables": [{"name": t.name} for t in tables]}]}
    plan.files[folder / "sources.yml"] = yaml.safe_dump(sources, sort_keys=False)
    for table in tables:
        root = _root_of(schema, table)
        config = _model_config(table, plan.models[root.name] if root is not table else None)
        plan.files[folder / f"{plan.models[table.name]}.sql"] = _model_sql(dataset, table, config)
    if not overwrite:
        plan.files = {path: text for path, text in plan.files.items() if not path.exists()}
    return plan


def write_files(plan: ScaffoldPlan) -> List[Path]:
    for path, text in plan.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for path, text in plan.appended.items():
        with path.open("a") as f:
            f.write(text)
    return list(plan.files) + list(plan.appended)


def dbt_scaffold(schema: Schema, dataset: str, project_dir: Path, overwrite: bool = False, **options: Any) -> List[Path]:
    """Write the plan of `plan_dbt_scaffold`; returns the files written."""
    return write_files(plan_dbt_scaffold(schema, dataset, project_dir, overwrite=overwrite, **options))


def scaffold_from_lakehouse(spark, dataset: str, project_dir: Path, schema_name: Optional[str] = None,
                            **options: Any) -> List[Path]:
    """`dbt_scaffold` for the schema the pipeline recorded in `dataset` (`schema_name`: the pipeline's
    name; needed only when several pipelines load into the dataset)."""
    from .load.destination import list_loads, read_schema

    names = sorted({load["schema_name"] for load in list_loads(spark, dataset)})
    if schema_name is None:
        if len(names) != 1:
            raise ConfigError(f"dataset {dataset}: " + (f"loads of several pipelines ({', '.join(names)}): pass "
                              "--schema-name (the pipeline name)" if names else "no completed loads: run the pipeline first"))
        schema_name = names[0]
    schema = read_schema(spark, dataset, schema_name)
    if schema is None:
        raise ConfigError(f"dataset {dataset}: no schema {schema_name!r} in {VERSION_TABLE}; schemas there: "
                          f"{', '.join(names) or 'none'} (--schema-name is the pipeline name)")
    return dbt_scaffold(schema, dataset, project_dir, **options)
