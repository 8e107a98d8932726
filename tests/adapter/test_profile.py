"""The `embedded` profile (issue 19, item 5): a relative `lakehouse_dir` is relative to the dbt project
directory, as dbt resolves a project's paths, whatever directory dbt is started from."""
from __future__ import annotations

import os
from pathlib import Path

import yaml
from dbt.cli.main import dbtRunner


def test_lakehouse_dir__relative_to_the_project_dir_from_any_working_directory(spark, lakehouse, tmp_path, monkeypatch):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "dbt_project.yml").write_text("name: p\nversion: '1.0'\nconfig-version: 2\nprofile: p\n")
    (project / "macros").mkdir()
    (project / "macros" / "probe.sql").write_text("{% macro probe() %}{% do run_query('select 1') %}{% endmacro %}")
    relative = os.path.relpath(lakehouse.home, project)
    assert not Path(relative).is_absolute()
    (project / "profiles.yml").write_text(yaml.safe_dump({"p": {"target": "dev", "outputs": {"dev": {
        "type": "sparkload", "method": "embedded", "schema": "analytics", "lakehouse_dir": relative}}}}))
    monkeypatch.chdir(elsewhere)
    said = []

    # (not `dbt debug`: in-process it leaves its adapter registered for the rest of the test run)
    result = dbtRunner(callbacks=[lambda event: said.append(event.info.msg)]).invoke(
        ["run-operation", "probe", "--project-dir", str(project), "--profiles-dir", str(project),
         "--log-path", str(tmp_path / "logs"), "--target-path", str(tmp_path / "target")])

    assert result.success, "\n".join(said)
    # the embedded connection names the lakehouse it opened (here: this process's session)
    opened = [m for m in said if "sparkload embedded lakehouse:" in str(m)]
    assert opened and all(str(m).endswith(f"home {Path(lakehouse.home).resolve()}") for m in opened), opened
    assert list(elsewhere.iterdir()) == []
