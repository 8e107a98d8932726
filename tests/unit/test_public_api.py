"""The extractor's public API is deliberate: this list changes only on purpose (httpx's
test_exported_members)."""
import python_extract


def test_public_api__exports_exactly_these_names():
    assert python_extract.__all__ == [
        "ConfigFieldMissing", "DateWindows", "Incremental", "IncrementalBoundaryOverflow", "IncrementalCursorPathMissing",
        "IncrementalError", "LakehouseConfig", "LakehouseConfigError", "LoadInfo", "Pipeline", "PipelineStepFailed",
        "Resource", "SparkloadError", "Source", "Window", "config", "date_windows", "incremental", "pipeline",
        "resource", "secrets", "source",
    ]
    assert all(hasattr(python_extract, name) for name in python_extract.__all__)
