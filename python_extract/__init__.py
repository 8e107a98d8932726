"""sparkload's extractor: dlt-style pipelines that land data into staging tables of a Spark lakehouse.

    import python_extract as sl
    p = sl.pipeline(pipeline_name="shop", dataset_name="raw")
    p.run([{"id": 1}], table_name="customers", write_disposition="merge", primary_key="id")
"""
from .errors import PipelineStepFailed, SparkloadError
from .extract import Resource, resource
from .lakehouse import LakehouseConfig, LakehouseConfigError
from .pipeline import LoadInfo, Pipeline, pipeline

__all__ = [
    "LakehouseConfig", "LakehouseConfigError", "LoadInfo", "Pipeline", "PipelineStepFailed",
    "Resource", "SparkloadError", "pipeline", "resource",
]
