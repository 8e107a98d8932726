"""The pipeline orchestrates: it lands pending load packages first, then extract -> normalize -> load.

`pipeline(pipeline_name=..., dataset_name=...)` mirrors `dlt.pipeline`; `Pipeline.run(data, ...)` takes a
resource, a list of dicts or a generator, as `dlt`'s does, and returns a `LoadInfo`.
Errors: `PipelineStepFailed` naming the step, the load id and the table.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from .errors import PipelineStepFailed
from .extract.resource import Keys, Resource, as_key_list
from .lakehouse import LakehouseConfig, get_session
from .load import load_package
from .normalize import Schema, normalize_item
from .normalize.naming import normalize_identifier
from .packages import LoadPackage, PackageStorage, new_load_id

log = logging.getLogger("sparkload.pipeline")


@dataclass
class LoadInfo:
    pipeline_name: str
    dataset_name: str
    load_ids: List[str] = field(default_factory=list)
    row_counts: Dict[str, int] = field(default_factory=dict)

    @property
    def load_id(self) -> Optional[str]:
        return self.load_ids[-1] if self.load_ids else None

    def __str__(self) -> str:
        tables = ", ".join(f"{t}: {n}" for t, n in self.row_counts.items()) or "no rows"
        return f"pipeline {self.pipeline_name} loaded {', '.join(self.load_ids) or 'nothing'} into {self.dataset_name} ({tables})"


class Pipeline:
    def __init__(self, pipeline_name: str, dataset_name: str, lakehouse: LakehouseConfig, pipelines_dir: Path):
        self.pipeline_name = pipeline_name
        self.dataset_name = normalize_identifier(dataset_name)
        self.lakehouse = lakehouse
        self.working_dir = Path(pipelines_dir) / pipeline_name
        self.packages = PackageStorage(self.working_dir)
        self._spark = None

    @property
    def spark(self):
        if self._spark is None:
            self._spark = get_session(self.lakehouse)
        return self._spark

    def run(
        self,
        data: Any,
        table_name: Optional[str] = None,
        write_disposition: Optional[str] = None,
        primary_key: Keys = None,
        merge_key: Keys = None,
        columns: Optional[Dict[str, Dict[str, Any]]] = None,
    ) -> LoadInfo:
        """Land what earlier runs left pending, then extract, normalize and load `data`."""
        info = LoadInfo(self.pipeline_name, self.dataset_name)
        self._load_pending(info)
        resource = _as_resource(data, table_name).apply_hints(
            table_name=table_name, write_disposition=write_disposition,
            primary_key=primary_key, merge_key=merge_key, columns=columns,
        )
        self.extract_and_normalize(resource)
        self._load_pending(info)
        log.info("%s", info)
        return info

    def extract_and_normalize(self, resource: Resource) -> Optional[LoadPackage]:
        """Write one load package of `resource`'s items (None if it yields nothing); nothing reaches
        the lakehouse yet."""
        load_id = new_load_id()
        schema = Schema(self.pipeline_name)
        table = normalize_identifier(resource.table_name)
        root = schema.table(
            table, write_disposition=resource.write_disposition,
            primary_key=[normalize_identifier(k) for k in resource.primary_key],
            merge_key=[normalize_identifier(k) for k in resource.merge_key],
        )
        for column, hint in resource.columns.items():
            root.columns[normalize_identifier(column)] = {"nullable": True, **hint}

        def rows() -> Iterator[Tuple[str, Dict[str, Any]]]:
            try:
                for item in resource:
                    for t, row in normalize_item(item, table, load_id, resource.max_table_nesting):
                        if t != table:
                            schema.table(t, write_disposition=resource.write_disposition, parent=table)
                        yield t, schema.coerce_row(t, row)
            except PipelineStepFailed:
                raise
            except Exception as e:  # noqa: BLE001 - named with the step and table
                raise PipelineStepFailed("extract", f"{type(e).__name__}: {e}", load_id=load_id, table=table) from e

        return self.packages.write(load_id, self.dataset_name, schema, rows())

    def _load_pending(self, info: LoadInfo) -> None:
        for pending in self.packages.pending():
            package = load_package(self.spark, self.packages, pending)
            info.load_ids.append(package.load_id)
            for t, n in package.row_counts().items():
                info.row_counts[t] = info.row_counts.get(t, 0) + n


def _as_resource(data: Any, table_name: Optional[str]) -> Resource:
    if isinstance(data, Resource):
        return data
    if table_name is None:
        raise ValueError("table_name is required when data is not a resource")
    return Resource(data, table_name)


def pipeline(
    pipeline_name: str = "sparkload",
    dataset_name: Optional[str] = None,
    pipelines_dir: Optional[str] = None,
    lakehouse: Optional[LakehouseConfig] = None,
    **lakehouse_settings: Any,
) -> Pipeline:
    """A pipeline writing into `dataset_name` (default `<pipeline_name>_dataset`, as dlt).

    `lakehouse` (or keyword settings such as `home=` and `table_format=`) picks the lakehouse;
    load packages live under `pipelines_dir` (default `<lakehouse home>/pipelines`).
    """
    config = lakehouse or LakehouseConfig.from_env(**lakehouse_settings)
    base = Path(pipelines_dir) if pipelines_dir else config.home / "pipelines"
    return Pipeline(pipeline_name, dataset_name or f"{pipeline_name}_dataset", config, base)
