"""The CLI's error policy on the real `sparkload` process: every failure below prints exactly one line on
stderr, `sparkload: <file/table/column/load>: <what>; <remedy>`, and exits with its class's code (2
configuration, 1 a step failed, 3 local state); `-v` adds the traceback; `--version` works. The cases
that need no Spark fail before any JVM starts."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import python_extract as sl
from python_extract import cli

from ..support.sparkload_process import env, one_line, sparkload, write_source

SOURCE = '''
import python_extract as sl

@sl.source
def shop(rows: int = 3, big: bool = False):
    @sl.resource(primary_key="id")
    def orders():
        yield [{"id": 2**70 if big else n} for n in range(rows)]
    return orders
'''

# case: (pipeline file text or None, extra arguments, expected code, expected line after "sparkload: ")
CASES = {
    "malformed_yaml": ("source: src.py:shop\nargs: {rows: 2\n", [], 2,
                       "{file}: line 3 column 1: not valid YAML: expected ',' or '}}', but got '<stream end>'"),
    "args_is_a_list": ("source: src.py:shop\nargs: [1, 2]\n", [], 2,
                       "{file}: args: expected a mapping (key: value), got list '[1, 2]'"),
    "pipeline_name_is_a_list": ("pipeline_name: [a, b]\nsource: src.py:shop\n", [], 2,
                                "{file}: pipeline_name: expected a string, got list \"['a', 'b']\""),
    "pipeline_name_not_a_name": ("pipeline_name: ../etc\nsource: src.py:shop\n", [], 2,
                                 "{file}: pipeline_name: '../etc' is not a pipeline name (1-100 letters, digits, _ . -)"),
    "unknown_top_level_key": ("pipline_name: shop\nsource: src.py:shop\n", [], 2,
                              "{file}: unknown key 'pipline_name' (did you mean 'pipeline_name'?); expected one of "
                              "pipeline_name, dataset_name, source, args, resources, table_name, write_disposition, "
                              "pipelines_dir, lock_wait, keep_loaded_packages, lakehouse"),
    "unknown_lakehouse_key": ("source: src.py:shop\nlakehouse: {tabel_format: iceberg}\n", [], 2,
                              "{file}: lakehouse: unknown key 'tabel_format' (did you mean 'table_format'?); expected "
                              "one of home, table_format, master, jars_dir, jars_cache, catalog_uri, "
                              "app_name, spark_conf"),
    "bad_table_format": ("source: src.py:shop\nlakehouse: {table_format: parquet}\n", [], 2,
                         "{file}: lakehouse.table_format: 'parquet' is not one of ['delta', 'iceberg']"),
    "unknown_plugin_config_key": ("source: {type: rest_api, config: {client: {base_url: 'http://127.0.0.1:9/'}, "
                                  "resources: [items], colour: red}}\n", [], 2,
                                  "{file}: source.config: unknown key 'colour' (given 'red'); expected one of client, resource_defaults, resources"),
    "args_of_the_wrong_type": ("source: src.py:shop\nargs: {rows: ten}\n", [], 2,
                               "{file}: args.rows: expected int, got str 'ten' (signature: shop(rows: int = 3, big: bool = False))"),
    "args_for_a_plugin": ("source: {type: rest_api, config: {client: {base_url: 'http://127.0.0.1:9/'}, "
                          "resources: [items]}}\nargs: {rows: 1}\n", [], 2,
                          "{file}: args.rows: source plugin 'rest_api' takes no arguments; its settings go under source.config"),
    "unknown_plugin_type": ("source: {type: rest_apx, config: {}}\n", [], 2,
                            "{file}: source.type: no source plugin named 'rest_apx' (did you mean 'rest_api'?); installed: airbyte, airbyte_manifest, "
                            "files, rest_api, sql_database"),
    "dataset_name_too_long": ("source: src.py:shop\ndataset_name: " + "d" * 300 + "\n", [], 2,
                              "dataset_name dddddddddddddddddddd...dddddddddd (300 characters): longer than 128 "
                              "characters, the most a lakehouse catalog takes; shorten it (--dataset-name, `dataset_name:`)"),
    "unknown_argument": (None, ["--arg", "colour=red"], 2,
                         "--arg colour: got an unexpected keyword argument 'colour' (signature: shop(rows: int = 3, big: bool = False))"),
    "unknown_resource": (None, ["--resource", "users"], 2, "resources: source shop has no resource users; it has orders"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input__one_line_and_the_code_of_its_class(case, tmp_path):
    text, extra, code, expected = CASES[case]
    write_source(tmp_path, SOURCE, "src.py")
    target = "src.py:shop"
    if text is not None:
        (tmp_path / "pipeline.yaml").write_text(text)
        target = "pipeline.yaml"
    done = sparkload("run", target, *extra, "--no-progress", home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == code
    assert one_line(done.stderr) == "sparkload: " + expected.format(file="pipeline.yaml")
    assert not (tmp_path / "lake").exists()  # nothing ran: not even the lakehouse was created


def test_verbose__adds_the_traceback_and_version_prints_versions(tmp_path):
    (tmp_path / "pipeline.yaml").write_text("source: [\n")
    for flag in (["-v"], ["--debug"]):
        done = sparkload("run", "pipeline.yaml", *flag, home=tmp_path / "lake", cwd=tmp_path)
        assert done.returncode == 2
        assert "Traceback (most recent call last)" in done.stderr
        assert done.stderr.splitlines()[-1].startswith("sparkload: pipeline.yaml: line 2 column 1: not valid YAML")
    version = sparkload("--version", home=tmp_path / "lake")
    assert version.returncode == 0 and version.stdout.startswith("sparkload 0.") and "pyspark 3.5" in version.stdout


@pytest.mark.each_format  # the Iceberg catalog's or the Hive metastore's connection (delta)
def test_unreachable_catalog__one_line_naming_the_uri_and_its_cause_not_a_java_trace(tmp_path):
    write_source(tmp_path, SOURCE, "src.py")
    uri = f"jdbc:h2:{tmp_path}/nowhere/catalog;IFEXISTS=TRUE"
    (tmp_path / "pipeline.yaml").write_text(f"source: src.py:shop\nlakehouse: {{catalog_uri: '{uri}'}}\n")
    done = sparkload("run", "pipeline.yaml", "--no-progress", home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == 2
    h2 = "200" if os.environ["SPARKLOAD_TABLE_FORMAT"] == "delta" else "232"  # H2 1.4.200 (metastore), 2.3.232
    assert one_line(done.stderr) == (
        f"sparkload: the lakehouse catalog {uri} cannot be opened: Database \"{tmp_path}/nowhere/catalog\" not found, "
        f"and IFEXISTS=true, so we cant auto-create it [90146-{h2}]; check catalog_uri (`lakehouse: {{catalog_uri: ...}}` "
        "in the pipeline file, SPARKLOAD_CATALOG_URI) or leave it unset for the lakehouse's own catalog")


def test_java_errors__the_one_line_keeps_each_exception_and_drops_the_stack_frames():
    """What `main` prints for a failure whose text is a Java exception chain (py4j's Py4JJavaError)."""
    from ..support.spark_errors import WRAPPED

    class Py4JJavaError(Exception):
        pass

    error = sl.PipelineStepFailed("load", f"Py4JJavaError: {WRAPPED}", load_id="17", table="orders")
    error.__cause__ = Py4JJavaError(WRAPPED)
    code, line = cli.explain(error)
    assert code == 1
    assert line.startswith("load step failed load 17 table orders: Py4JJavaError: An error occurred while calling o57.sql. "
                           ": org.apache.spark.SparkException: Job aborted due to stage failure")
    assert " at org." not in line and "... 19 more" not in line and "Caused by: java.lang.RuntimeException" in line


def test_big_int__one_line_naming_table_column_and_load_with_the_jvm_quiet(tmp_path, names):
    write_source(tmp_path, SOURCE, "src.py")
    done = sparkload("run", "src.py:shop", "--arg", "big=true", "--pipeline-name", names.staging, "--no-progress",
                     home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == 1
    line = one_line(done.stderr)  # no JVM start-up chatter around it
    assert line.startswith("sparkload: normalize step failed load ") and " table orders: column id: value " \
        "1180591620717411303424 does not fit a 64-bit integer (bigint); yield it as a string or Decimal, or declare " \
        "columns={'id': {'data_type': 'decimal'}}" in line


def test_very_long_table_name__one_line_naming_it(lakehouse, names, tmp_path, capsys):
    module = tmp_path / "long_names.py"
    module.write_text(textwrap.dedent('''
        import python_extract as sl

        @sl.resource(table_name="t" * 300)
        def events():
            yield {"id": 1}
    '''))
    code = cli.main(["run", f"{module}:events", "--pipeline-name", names.staging, "--dataset-name", names.staging,
                     "--pipelines-dir", str(tmp_path / "pipelines"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 3
    line = one_line(err)
    assert line.startswith(f"sparkload: {tmp_path}/pipelines/{names.staging}/packages/new/") and "tttt...tttt" in line
    assert line.endswith(": the name is too long for the file system; shorten the table or resource name "
                         "(the `table_name` hint)")


def test_python_api__a_script_prints_no_jvm_start_up_lines(tmp_path, names):
    """A pipeline run from a Python script (the README's `python extract.py`) starts the JVM as quietly
    as the `sparkload` command: no WARN lines of Spark, Hadoop or log4j on the terminal."""
    script = tmp_path / "extract.py"
    script.write_text(textwrap.dedent(f"""
        import python_extract as sl
        pipeline = sl.pipeline(pipeline_name={names.staging!r}, dataset_name={names.staging!r})
        print(pipeline.run([{{"id": 1}}], table_name="items"))
    """))
    done = subprocess.run([sys.executable, str(script)], env=env(tmp_path / "lake"), cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "load package" in done.stdout.lower() or "loaded" in done.stdout.lower(), done.stdout
    assert [line for line in done.stderr.splitlines() if line.strip()] == [], done.stderr[-3000:]
