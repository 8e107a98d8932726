"""`sparkload init rest_api` -> edit the URL -> `sparkload run` -> `sparkload dbt scaffold` -> `dbt run`,
end to end against the shop API on loopback and the shared lakehouse (the CLI runs in-process)."""
from __future__ import annotations

import os

import yaml

from python_extract.cli import main as sparkload

from ..support.shop_items import T0, item


def _dbt_project(path, home, schema):
    (path / "dbt_project.yml").write_text(yaml.safe_dump({
        "name": "scaffolded", "version": "0.1.0", "config-version": 2, "profile": "scaffolded"}))
    (path / "profiles.yml").write_text(yaml.safe_dump({"scaffolded": {"target": "dev", "outputs": {"dev": {
        "type": "sparkload", "method": "embedded", "schema": schema, "lakehouse_dir": str(home), "threads": 1}}}}))


def test_init_edit_run_scaffold_and_dbt_run(api, lakehouse, names, spark, tmp_path, monkeypatch):
    from dbt.cli.main import dbtRunner

    monkeypatch.chdir(tmp_path)
    api.items = [item(1, 1), item(2, 2)]
    assert sparkload(["init", "rest_api", "--name", names.staging]) == 0
    path = tmp_path / f"{names.staging}_pipeline.yaml"
    pipeline = yaml.safe_load(path.read_text())

    # the user's edits: the URL, the endpoint's path and selector, where the lakehouse is
    config = pipeline["source"]["config"]
    config["client"]["base_url"] = api.base_url
    config["resources"][0]["endpoint"].update(path="items/json_link", data_selector="results")
    pipeline.update(dataset_name=names.staging, pipelines_dir=str(tmp_path / "pipelines"))
    path.write_text(yaml.safe_dump(pipeline))
    home = ["--home", str(lakehouse.home)]

    assert sparkload(["run", str(path), *home]) == 0
    api.items[0] = item(1, 3, "item 1 v2")
    assert sparkload(["run", str(path), *home]) == 0  # the late update lands as a second load

    project = tmp_path / "dbt"
    project.mkdir()
    _dbt_project(project, lakehouse.home, names.target)
    assert sparkload(["dbt", "scaffold", "--dataset", names.staging, "--schema-name", names.staging,
                      "--project-dir", str(project), *home]) == 0
    model = (project / "models" / names.staging / "items.sql").read_text()
    assert "write_disposition='merge'" in model and "primary_key='id'" in model
    assert "root_model='items'" in (project / "models" / names.staging / "items__tags.sql").read_text()

    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, result.exception
    final = spark.sql(f"select id, name, updated_at from `{names.target}`.items order by id").collect()
    naive = T0.replace(tzinfo=None)  # ISO strings land as timestamps, shown in the session's UTC
    assert [tuple(r) for r in final] == [(1, "item 1 v2", naive.replace(hour=3)), (2, "item 2", naive.replace(hour=2))]
    tags = spark.sql(f"select count(*) c from `{names.target}`.items__tags").first().c
    assert tags == 2
    assert os.environ.get("SPARKLOAD_HOME")  # the suite's lakehouse stays the one in use
