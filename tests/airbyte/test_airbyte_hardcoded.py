"""A second real Airbyte connector from PyPI, airbyte-source-hardcoded-records 0.0.48 (Airbyte's offline sample-data
source), run end to end by `sparkload run` into the lakehouse: a config its `check` refuses is one line and exit 2
with nothing landed, then the corrected config lands every stream (nested lists as child tables). Its records
against the CDK's own read of the same connector are judged in tests/parity_airbyte/test_connector_parity.py."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from python_extract.cli import main as sparkload
from python_extract.sources.airbyte.connector import install

VENVS = Path(os.environ.get("SPARKLOAD_CONNECTORS_CACHE", Path.home() / ".cache" / "sparkload" / "connectors"))


@pytest.fixture(scope="module")
def connector() -> Path:
    return install("airbyte-source-hardcoded-records", VENVS, "0.0.48")


def test_hardcoded_records__a_failed_check_lands_nothing_then_the_fixed_config_lands_every_stream(
        connector, lakehouse, names, spark, tmp_path, capsys):
    def pipeline_file(count):
        path = tmp_path / "hardcoded_pipeline.yaml"
        path.write_text(yaml.safe_dump({
            "pipeline_name": names.staging, "dataset_name": names.staging, "pipelines_dir": str(tmp_path / "pipelines"),
            "source": {"type": "airbyte", "name": "hardcoded", "config": {
                "package": "airbyte-source-hardcoded-records", "venvs_dir": str(VENVS), "config": {"count": count}}}}))
        return str(path)

    home = ["--home", str(lakehouse.home)]
    capsys.readouterr()
    assert sparkload(["run", pipeline_file("many"), *home]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "source-hardcoded-records check failed: Config validation error: 'many' is not of type 'integer'" in err
    assert not spark.catalog.databaseExists(names.staging), "a failed check lands nothing"

    assert sparkload(["run", pipeline_file(3), *home]) == 0
    count = lambda table: spark.sql(f"select count(*) from `{names.staging}`.`{table}`").first()[0]  # noqa: E731
    assert [count(t) for t in ("products", "customers", "dummy_fields", "customers__addresses")] == [3, 3, 3, 3]
    assert spark.sql(f"select distinct make, model, year from `{names.staging}`.products").collect() == [("Mazda", "MX-5", 2008)]
