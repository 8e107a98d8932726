"""The `embedded` profile (issue 19, item 5): a relative `lakehouse_dir` is relative to the dbt project
directory, as dbt resolves a project's paths, whatever directory dbt is started from. Issue 40 item 2: a
`lakehouse_dir` that holds no lakehouse is an error in `dbt debug` and `dbt run` naming the path (dbt never
creates one; `sparkload lakehouse setup` and the extractor do)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from dbt.cli.main import dbtRunner

pytestmark = pytest.mark.default_format  # dbt's suite on the default format, as dbt-spark runs it (docs/testing.md)


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


# issue 40 item 2: dbt never creates a lakehouse. Each dbt call runs in a process of its own (an in-process
# `dbt debug` leaves its adapter registered); the check comes before any JVM starts, so these start none.
DBT_PROCESS = "import sys\nfrom dbt.cli.main import dbtRunner\nsys.exit(0 if dbtRunner().invoke(sys.argv[1:]).success else 1)\n"


def _project_with_lakehouse_dir(project: Path, lakehouse_dir: str, **keys) -> Path:
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: p\nversion: '1.0'\nconfig-version: 2\nprofile: p\n")
    (project / "models" / "m.sql").write_text("select 1 as id")
    (project / "profiles.yml").write_text(yaml.safe_dump({"p": {"target": "dev", "outputs": {"dev": {
        "type": "sparkload", "method": "embedded", "schema": "analytics", "lakehouse_dir": lakehouse_dir,
        "threads": 1, **keys}}}}))
    return project


def _dbt(project: Path, *args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", DBT_PROCESS, *args, "--project-dir", str(project), "--profiles-dir",
                           str(project)], capture_output=True, text=True, timeout=300, cwd=project)


def _refusal(home: Path, found: str) -> str:
    return (f"sparkload embedded lakehouse: {home} {found}; check that the profile's lakehouse_dir (a relative one is "
            "relative to the dbt project directory) names the lakehouse the extractor writes. dbt never creates a "
            f"lakehouse: the extractor does on its first run, or `sparkload lakehouse setup --home {home}`")


def test_lakehouse_dir__that_does_not_exist_fails_dbt_debug_and_dbt_run_naming_it_and_creates_nothing(tmp_path):
    project = _project_with_lakehouse_dir(tmp_path / "project", "lkaehouse")  # a typo of the user's
    message = _refusal(project / "lkaehouse", "does not exist")

    debug, run = _dbt(project, "debug"), _dbt(project, "run")

    assert debug.returncode == 1 and message in debug.stdout and "All checks passed" not in debug.stdout, debug.stdout[-3000:]
    assert run.returncode == 1 and message in run.stdout and "run the extractor first" not in run.stdout, run.stdout[-3000:]
    assert not (project / "lkaehouse").exists()


@pytest.mark.parametrize("warm", [False, True], ids=["in-process", "warm"])
def test_lakehouse_dir__a_folder_that_holds_no_lakehouse_is_refused_before_any_session_or_warm_server(tmp_path, warm):
    folder = tmp_path / "empty"
    folder.mkdir()
    project = _project_with_lakehouse_dir(tmp_path / "project", str(folder), **({"warm": True} if warm else {}))

    debug = _dbt(project, "debug")

    assert debug.returncode == 1, debug.stdout[-3000:]
    assert _refusal(folder, "holds no lakehouse (no lakehouse.json, which its first use writes)") in debug.stdout
    assert list(folder.iterdir()) == []  # no catalog, no format record, no warm server's files


def test_lakehouse_setup__creates_the_lakehouse_the_embedded_profile_then_accepts(tmp_path, capsys):
    from dbt.adapters.sparkload.connections import SparkloadCredentials, require_lakehouse
    from python_extract.cli import main

    home = tmp_path / "lake"
    creds = SparkloadCredentials.from_dict({"method": "embedded", "schema": "analytics", "lakehouse_dir": str(home)})
    with pytest.raises(Exception, match="does not exist"):
        require_lakehouse(creds)

    assert main(["lakehouse", "setup", "--home", str(home), "--no-class-archive"]) == 0
    fmt = os.environ.get("SPARKLOAD_TABLE_FORMAT") or "delta"
    assert capsys.readouterr().out.splitlines()[-1] == f"lakehouse {home}: table format {fmt} (created; {home / 'lakehouse.json'})"
    require_lakehouse(creds)
    assert main(["lakehouse", "setup", "--home", str(home), "--no-class-archive"]) == 0  # idempotent
    assert capsys.readouterr().out.splitlines()[-1] == f"lakehouse {home}: table format {fmt} (already there; {home / 'lakehouse.json'})"
