"""sparkload's extractor: dlt-style pipelines that land data into staging tables of a Spark lakehouse.

    import python_extract as sl

    @sl.resource(primary_key="id", write_disposition="merge")
    def issues(updated_at=sl.incremental("updated_at", initial_value="2024-01-01T00:00:00Z")):
        yield from api.issues(since=updated_at.start_value)

    sl.pipeline(pipeline_name="github", dataset_name="github_raw").run(issues)
"""
from .errors import (
    ConfigFieldMissing, IncrementalBoundaryOverflow, IncrementalCursorPathMissing, IncrementalError,
    PipelineStepFailed, SparkloadError,
)
from .extract import (
    DateWindows, Incremental, Resource, Source, Window, config, date_windows, incremental, resource, secrets, source,
)
from .lakehouse import LakehouseConfig, LakehouseConfigError
from .pipeline import LoadInfo, Pipeline, pipeline

__all__ = [
    "ConfigFieldMissing", "DateWindows", "Incremental", "IncrementalBoundaryOverflow", "IncrementalCursorPathMissing",
    "IncrementalError", "LakehouseConfig", "LakehouseConfigError", "LoadInfo", "Pipeline", "PipelineStepFailed",
    "Resource", "SparkloadError", "Source", "Window", "config", "date_windows", "incremental", "pipeline",
    "resource", "secrets", "source",
]
