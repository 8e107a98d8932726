"""sparkload's extractor: dlt-style pipelines that land data into staging tables of a Spark lakehouse.

    import python_extract as sl

    @sl.resource(primary_key="id", write_disposition="merge")
    def issues(updated_at=sl.incremental("updated_at", initial_value="2024-01-01T00:00:00Z")):
        yield from api.issues(since=updated_at.start_value)

    sl.pipeline(pipeline_name="github", dataset_name="github_raw").run(issues)
"""
from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from .lazy import lazy_face

# The package's face is lazy (PEP 562): `import python_extract.lakehouse` (what the dbt adapter does)
# loads the lakehouse modules only, not the extractor with numpy and pyarrow; `sl.pipeline` loads it.
_FACE = {
    **dict.fromkeys(["ConfigError", "ConfigFieldMissing", "HintError", "IncrementalBoundaryOverflow",
                     "IncrementalCursorPathMissing", "IncrementalError", "PipelineStepFailed", "SparkloadError"], ".errors"),
    **dict.fromkeys(["DateWindows", "Incremental", "Resource", "Source", "Window", "config", "date_windows", "defer",
                     "incremental", "resource", "secrets", "source", "transformer"], ".extract"),
    **dict.fromkeys(["LakehouseConfig", "LakehouseConfigError"], ".lakehouse"),
    **dict.fromkeys(["LoadInfo", "Pipeline", "pipeline"], ".pipeline"),
}

# modules under dlt's names: `dlt.sources.incremental`, `dlt.current.resource_state()`, `dlt.mark`
_NAMESPACES = {"sources": ".sources", "current": ".extract.current", "mark": ".extract.mark"}

if TYPE_CHECKING:  # what type checkers and IDEs see
    from .errors import (
        ConfigError, ConfigFieldMissing, HintError, IncrementalBoundaryOverflow, IncrementalCursorPathMissing,
        IncrementalError, PipelineStepFailed, SparkloadError,
    )
    from .extract import (
        DateWindows, Incremental, Resource, Source, Window, config, date_windows, defer, incremental, resource,
        secrets, source, transformer,
    )
    from .lakehouse import LakehouseConfig, LakehouseConfigError
    from .pipeline import LoadInfo, Pipeline, pipeline


__getattr__, __dir__ = lazy_face(__name__, _FACE, _NAMESPACES)


class _Face(types.ModuleType):
    """Keeps `python_extract.pipeline` the function: importing the submodule of that name sets the
    package's attribute to the module, which used to be rebound by an eager `from .pipeline import pipeline`."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "pipeline" and isinstance(value, types.ModuleType):
            value = value.pipeline
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Face


__all__ = [
    "ConfigError", "ConfigFieldMissing", "DateWindows", "HintError", "Incremental", "IncrementalBoundaryOverflow",
    "IncrementalCursorPathMissing", "IncrementalError", "LakehouseConfig", "LakehouseConfigError", "LoadInfo", "Pipeline", "PipelineStepFailed",
    "Resource", "SparkloadError", "Source", "Window", "config", "date_windows", "defer", "incremental", "pipeline",
    "resource", "secrets", "source", "transformer",
]
