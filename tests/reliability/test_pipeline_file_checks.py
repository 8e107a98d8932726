"""Fast tier (no JVM): a pipeline YAML file is refused with one line naming the key and the problem;
of several problems, jsonschema's `best_match` picks the one named (inside `anyOf`, the branch that
fits the value best). The same messages reach the CLI in tests/reliability/test_cli_errors.py."""
from __future__ import annotations

import re

import pytest

from python_extract.errors import PipelineFileError
from python_extract.pipeline_file import read_pipeline_file

pytestmark = pytest.mark.fast

CASES = {
    "args: [1, 2]": "args: expected a mapping (key: value), got list '[1, 2]'",
    "pipeline_name: ../etc": "pipeline_name: '../etc' is not a pipeline name (1-100 letters, digits, _ . -)",
    "pipline_name: shop": "unknown key 'pipline_name' (did you mean 'pipeline_name'?); expected one of pipeline_name, "
                          "dataset_name, source, args, resources, table_name, write_disposition, pipelines_dir, "
                          "lock_wait, keep_loaded_packages, lakehouse",
    "lakehouse: {table_format: parquet}": "lakehouse.table_format: 'parquet' is not one of ['delta', 'iceberg']",
    "lakehouse: {spark_conf: {a: [1]}}": "lakehouse.spark_conf.a: expected a string or a number or boolean, got list '[1]'",
    "resources: [x, '']": "resources[1]: '' should be non-empty",
    "keep_loaded_packages: 1.5": "keep_loaded_packages: expected an integer, got float '1.5'",
    "write_disposition: upsert": "write_disposition: 'upsert' is not one of ['append', 'replace', 'merge']",
    "write_disposition: mrege": "write_disposition: 'mrege' is not one of ['append', 'replace', 'merge'] (did you mean "
                                "'merge'?)",
}


@pytest.mark.parametrize("line", CASES)
def test_pipeline_file__one_problem_named_by_its_key(line, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(f"source: a.py:b\n{line}\n")
    with pytest.raises(PipelineFileError) as refused:
        read_pipeline_file(path)
    assert str(refused.value) == f"{path}: {CASES[line]}"


@pytest.mark.parametrize("source, message", [
    ("shop", "source: 'shop' is not module:attribute or path/to/file.py:attribute"),   # a string: its branch's error
    ("5", "source: expected module:attribute, path/to/file.py:attribute or a plugin mapping {type, config}, got int '5'"),
])
def test_pipeline_file__an_anyof_names_the_branch_that_fits_or_all_of_them(source, message, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(f"source: {source}\n")
    with pytest.raises(PipelineFileError, match="^" + re.escape(f"{path}: {message}") + "$"):
        read_pipeline_file(path)


def test_pipeline_file__the_shallowest_of_several_problems_is_named(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("source: a.py:b\nfoo: 1\nlakehouse: {master: 3}\n")
    with pytest.raises(PipelineFileError, match=r"p.yaml: unknown key 'foo'; expected one of"):
        read_pipeline_file(path)
