"""`sparkload dbt scaffold` into an empty folder writes a project dbt runs; into an existing project it
refuses, before writing any file, a model or source name the project already has, or prefixes the models
with the dataset when asked (the second dataset here has a table of the same name as the first's); it
writes where the project's `model-paths` say, and adds its profile to a `profiles.yml` of other projects; dlt's
dict form of write_disposition with scd2 options reaches the model's config."""
from __future__ import annotations

import datetime as dt

import pytest
import yaml

import python_extract as sl
from python_extract import cli

from ..support.sparkload_process import column, one_line


def _land(lakehouse, dataset: str, pipelines, name: str) -> None:
    @sl.resource(name="customers", primary_key="id", write_disposition={"disposition": "merge", "strategy": "upsert"})
    def customers():
        yield {"id": 1, "name": name, "orders": [{"sku": f"{name}-1"}, {"sku": f"{name}-2"}]}

    sl.pipeline(pipeline_name=dataset, dataset_name=dataset, pipelines_dir=str(pipelines), lakehouse=lakehouse).run(customers)


def _files(folder):
    return {p.relative_to(folder): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_scaffold__refuses_a_model_name_the_project_has_then_prefixes_and_dbt_runs_both(lakehouse, spark, names, tmp_path, capsys):
    from dbt.cli.main import dbtRunner

    first, second = f"{names.staging}_a", f"{names.staging}_b"
    _land(lakehouse, first, tmp_path / "pipelines", "Ann")
    _land(lakehouse, second, tmp_path / "pipelines", "Bob")
    project = tmp_path / "project"
    common = ["--project-dir", str(project), "--home", str(lakehouse.home), "--target-schema", names.target]

    # dataset 1 into an empty folder: a whole project
    assert cli.main(["dbt", "scaffold", "--dataset", first, *common]) == 0
    written = _files(project)
    assert {str(p) for p in written} == {"dbt_project.yml", "profiles.yml", f"models/{first}/sources.yml",
                                         f"models/{first}/customers.sql", f"models/{first}/customers__orders.sql"}
    capsys.readouterr()

    # dataset 2 has a table `customers` too: refused, nothing written
    assert cli.main(["dbt", "scaffold", "--dataset", second, *common]) == 2
    line = one_line(capsys.readouterr().err)
    assert line == (f"sparkload: {project}: the project already has model customers (models/{first}/customers.sql), "
                    f"model customers__orders (models/{first}/customers__orders.sql): nothing written; pass "
                    f"--prefix-with-dataset to name the models {second}__<table>")
    assert _files(project) == written

    # prefixed: the models are <dataset>__<table>, the child follows its prefixed root
    assert cli.main(["dbt", "scaffold", "--dataset", second, "--prefix-with-dataset", *common]) == 0
    child = (project / "models" / second / f"{second}__customers__orders.sql").read_text()
    assert f"root_model='{second}__customers'" in child and f"ref('{second}__customers')" in child

    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, result.exception
    assert column(spark, f"select name from `{names.target}`.customers") == ["Ann"]
    assert column(spark, f"select name from `{names.target}`.`{second}__customers`") == ["Bob"]
    assert sorted(column(spark, f"select sku from `{names.target}`.`{second}__customers__orders`")) == ["Bob-1", "Bob-2"]


@pytest.mark.extended  # where the scaffold writes: the first test's project, by dbt's default paths, is run by dbt
def test_scaffold__into_a_project_with_its_own_model_paths_writes_where_dbt_looks(lakehouse, spark, names, tmp_path):
    from dbt.cli.main import dbtRunner

    _land(lakehouse, names.staging, tmp_path / "pipelines", "Cy")
    project = tmp_path / "project"
    (project / "transform").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n"
                                             "model-paths: [transform]\n")
    (project / "transform" / "hello.sql").write_text("select 1 as one\n")
    (project / "profiles.yml").write_text(
        f"shop:\n  target: dev\n  outputs:\n    dev: {{type: sparkload, method: embedded, schema: {names.target}, "
        f"lakehouse_dir: '{lakehouse.home}', threads: 1}}\n")
    before = _files(project)

    assert cli.main(["dbt", "scaffold", "--dataset", names.staging, "--project-dir", str(project),
                     "--home", str(lakehouse.home)]) == 0
    added = {str(p) for p in set(_files(project)) - set(before)}
    assert added == {f"transform/{names.staging}/sources.yml", f"transform/{names.staging}/customers.sql",
                     f"transform/{names.staging}/customers__orders.sql"}
    assert {p: t for p, t in _files(project).items() if p in before} == before  # its own files untouched
    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, result.exception
    assert column(spark, f"select name from `{names.target}`.customers") == ["Cy"]
    assert sorted(column(spark, f"select sku from `{names.target}`.customers__orders")) == ["Cy-1", "Cy-2"]


@pytest.mark.extended  # the profile's merge into a shared profiles.yml; the first test writes a new one
def test_scaffold__into_a_folder_whose_profiles_yml_serves_other_projects_adds_its_profile(lakehouse, spark, names, tmp_path):
    from dbt.cli.main import dbtRunner

    _land(lakehouse, names.staging, tmp_path / "pipelines", "Di")
    project = tmp_path / "shop"
    project.mkdir()
    theirs = "# the team's profiles\nwarehouse:\n  target: prod\n  outputs:\n    prod: {type: spark, method: session, schema: x, host: h}\n"
    (project / "profiles.yml").write_text(theirs)

    assert cli.main(["dbt", "scaffold", "--dataset", names.staging, "--project-dir", str(project),
                     "--home", str(lakehouse.home), "--target-schema", names.target]) == 0
    profiles = (project / "profiles.yml").read_text()
    assert profiles.startswith(theirs)
    assert set(yaml.safe_load(profiles)) == {"warehouse", "shop"}
    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, result.exception
    assert column(spark, f"select name from `{names.target}`.customers") == ["Di"]


def test_scaffold__a_ported_scd2_resource_keeps_its_dict_options_through_to_the_table(lakehouse, spark, names, tmp_path):
    """dlt's dict form with scd2 options (validity column names, active-record timestamp), ported by
    changing imports: the scaffolded model carries them, and `dbt run` builds the history with them."""
    from dbt.cli.main import dbtRunner

    @sl.resource(name="dim", primary_key="id", write_disposition={
        "disposition": "merge", "strategy": "scd2", "validity_column_names": ["valid_from", "valid_to"],
        "active_record_timestamp": "9999-12-31"})
    def dim():
        yield from ({"id": 1, "name": "a"}, {"id": 2, "name": "b"})

    sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, pipelines_dir=str(tmp_path / "pipelines"),
                lakehouse=lakehouse).run(dim)
    project = tmp_path / "project"
    assert cli.main(["dbt", "scaffold", "--dataset", names.staging, "--project-dir", str(project),
                     "--home", str(lakehouse.home), "--target-schema", names.target]) == 0
    model = (project / "models" / names.staging / "dim.sql").read_text()
    assert "validity_column_names=['valid_from', 'valid_to']" in model and "active_record_timestamp='9999-12-31'" in model

    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, result.exception
    got = spark.sql(f"select id, name, cast(valid_to as date) as valid_to, valid_from is not null as has_from "
                    f"from `{names.target}`.dim order by id").collect()
    assert [tuple(r) for r in got] == [(1, "a", dt.date(9999, 12, 31), True),
                                        (2, "b", dt.date(9999, 12, 31), True)]
