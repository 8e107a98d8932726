"""The extractor's public API is deliberate: this list changes only on purpose (httpx's
test_exported_members)."""
import pytest

import python_extract

pytestmark = pytest.mark.fast


def test_public_api__exports_exactly_these_names():
    assert python_extract.__all__ == [
        "ConfigError", "ConfigFieldMissing", "DateWindows", "HintError", "Incremental", "IncrementalBoundaryOverflow",
        "IncrementalCursorPathMissing", "IncrementalError", "LakehouseConfig", "LakehouseConfigError", "LoadInfo", "Pipeline", "PipelineStepFailed",
        "Resource", "SparkloadError", "Source", "Window", "config", "date_windows", "defer", "incremental", "pipeline",
        "resource", "secrets", "source", "transformer",
    ]
    assert all(hasattr(python_extract, name) for name in python_extract.__all__)


def test_public_api__dlt_spells_the_cursor_sources_incremental_and_so_may_a_ported_pipeline():
    import python_extract as dlt  # a dlt pipeline ported by changing its import

    assert dlt.sources.incremental is dlt.incremental and dlt.sources.Incremental is dlt.Incremental
    assert "sources" in dir(dlt)


def test_pipeline__takes_dlts_destination_only_as_the_lakehouse_and_names_an_unknown_argument(tmp_path):
    import pytest

    import python_extract as dlt
    from python_extract.errors import ConfigError

    kept = dlt.pipeline(pipeline_name="ported", destination="sparkload", dataset_name="raw", home=str(tmp_path))
    assert kept.dataset_name == "raw" and kept.lakehouse.home == tmp_path
    with pytest.raises(ConfigError, match=r"^pipeline ported: destination='duckdb' is not one sparkload loads into"):
        dlt.pipeline(pipeline_name="ported", destination="duckdb", home=str(tmp_path))
    with pytest.raises(ConfigError, match=r"^pipeline ported: refrsh= is neither an argument .* lakehouse setting"):
        dlt.pipeline(pipeline_name="ported", refrsh="drop_sources", home=str(tmp_path))


def test_public_api__dlt_current_outside_an_extraction_is_an_error_saying_where_it_works():
    import pytest

    import python_extract as dlt
    from python_extract.errors import SparkloadError

    assert "current" in dir(dlt)
    with pytest.raises(SparkloadError, match=r"^current.resource_state\(\) is asked outside a resource being extracted"):
        dlt.current.resource_state()
