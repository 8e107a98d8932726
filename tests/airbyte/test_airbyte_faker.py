"""The real `airbyte-source-faker` (from PyPI, in its own virtual environment) as a sparkload source:
landing, state passed back, the state stored equal to the connector's last STATE, scaffold + dbt run
equal to the connector's full-refresh output, a SIGKILLed connector mid-read, and connector errors."""
from __future__ import annotations

import json
import logging
import os
import stat
import sys
from pathlib import Path

import pytest
import yaml

from python_extract.errors import PipelineStepFailed
from python_extract.sources.airbyte.connector import Connector, configured_catalog, install
from python_extract.sources.registry import get_plugin, resolve_config

from ..support.staging import staged

VENVS = Path(os.environ.get("SPARKLOAD_CONNECTORS_CACHE", Path.home() / ".cache" / "sparkload" / "connectors"))
HERE = Path(__file__).parent
KILLER = HERE.parent / "support" / "killing_connector.py"


@pytest.fixture(scope="module")
def faker() -> Path:
    """The connector's executable: installed once per machine into its own venv (also by CI)."""
    return install("airbyte-source-faker", VENVS)


def faker_config(count=20, always_updated=False):
    return {"count": count, "seed": 1, "records_per_slice": 5, "parallelism": 1, "always_updated": always_updated}


def source(config_overrides=None, **connector):
    plugin = get_plugin("airbyte")
    config = {"package": "airbyte-source-faker", "venvs_dir": str(VENVS), "config": faker_config(),
              "streams": ["users", "products", "purchases"], "checkpoint_records": 1, **(config_overrides or {})}
    config = {k: v for k, v in config.items() if v is not None}  # executable: instead of package:
    return plugin.build(resolve_config(plugin, config), "faker")


def stored_state(pipe, stream):
    pipe.sync_destination()
    return pipe.state["sources"]["faker"]["resources"][stream]["custom"]["airbyte_state"]


def full_refresh(faker, stream, config):
    connector = Connector([str(faker)], config)
    catalog = configured_catalog(connector.discover(), [{"name": stream, "sync_mode": "full_refresh"}])
    return [m["record"]["data"] for m in connector.read(catalog) if m["type"] == "RECORD"]


@pytest.mark.extended
def test_connector__its_config_catalog_and_state_files_are_gone_when_each_command_ends(faker, tmp_path, monkeypatch):
    """The files a connector command reads (the config holds the source's secrets) live in a private
    temporary folder only while the command runs: gone after a whole read, a read the caller stops early, and
    a command that fails."""
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    connector = Connector([str(faker)], {**faker_config(), "secret": "s3cr3t"})
    catalog = configured_catalog(connector.discover(), [{"name": "users", "sync_mode": "full_refresh"}])
    assert list(scratch.iterdir()) == []
    reading = connector.read(catalog, state=[{"type": "STREAM", "stream": {"stream_descriptor": {"name": "users"}}}])
    next(m for m in reading if m["type"] == "RECORD")
    (folder,) = scratch.iterdir()  # while the read runs: the three files, readable by their owner only
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == ["catalog.json", "config.json", "state.json"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and "s3cr3t" in (folder / "config.json").read_text()
    reading.close()  # the caller stops early
    assert list(scratch.iterdir()) == []
    assert len(full_refresh(faker, "users", faker_config(count=3))) == 3
    with pytest.raises(Exception, match="not of type .integer."):
        list(Connector([str(faker)], {**faker_config(), "count": "not a number"}).read(catalog))
    assert list(scratch.iterdir()) == []


def test_faker__lands_streams_passes_state_back_and_stores_the_last_state(faker, pipe, caplog, tmp_path):
    caplog.set_level(logging.DEBUG, logger="sparkload.airbyte")

    # run 1: every stream lands; nested objects flatten (users.address -> address__*)
    pipe.run(source())
    users = staged(pipe, "users", "id", "name", "address__city")
    assert [u[0] for u in users] == list(range(1, 21)) and all(u[2] for u in users)
    assert len(staged(pipe, "products", "id")) > 0 and len(staged(pipe, "purchases", "id")) > 0
    last_state = [json.loads(r.getMessage().split(" STATE ", 1)[1]) for r in caplog.records
                  if r.getMessage().startswith("airbyte stream users STATE")][-1]
    assert stored_state(pipe, "users") == [last_state]

    # run 2: the committed state goes back with --state; the connector emits nothing new, nothing lands
    caplog.clear()
    pipe.run(source())
    assert len(staged(pipe, "users", "id")) == 20
    assert "airbyte stream users: 0 records" in caplog.text
    last_state = [json.loads(r.getMessage().split(" STATE ", 1)[1]) for r in caplog.records
                  if r.getMessage().startswith("airbyte stream users STATE")][-1]
    assert stored_state(pipe, "users") == [last_state]


def _killing(tmp_path, faker, monkeypatch, **env) -> str:
    wrapper = tmp_path / "faker-killed"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {KILLER} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    # through monkeypatch: a variable set here must not outlive the test (FAIL_WITH made a later test's kill a TRACE error)
    for key, value in {"REAL_CONNECTOR": str(faker), **env, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}.items():
        monkeypatch.setenv(key, value)
    return wrapper.name


@pytest.mark.extended  # a kill mid-read: tests/extract/test_crash.py kills the landing at its boundaries in --suite ci
def test_faker__killed_mid_read_keeps_checkpoints_and_the_rerun_converges_in_dbt(
        faker, pipe, names, lakehouse, tmp_path, monkeypatch):
    from dbt.cli.main import dbtRunner

    from python_extract.cli import main as sparkload

    monkeypatch.setenv("PATH", os.environ["PATH"])
    for key in ("REAL_CONNECTOR", "KILL_AFTER_RECORDS", "FAIL_WITH"):
        monkeypatch.delenv(key, raising=False)
    command = _killing(tmp_path, faker, monkeypatch, KILL_AFTER_RECORDS="12")
    updated = {"config": faker_config(always_updated=True), "streams": ["users"]}
    with pytest.raises(PipelineStepFailed, match="exited with code -9"):
        pipe.run(source({**updated, "executable": command, "package": None}))
    landed = staged(pipe, "users", "id")
    assert [u[0] for u in landed] == list(range(1, 11))  # two checkpoints of 5 records, not the 2 after

    monkeypatch.setenv("KILL_AFTER_RECORDS", "0")
    pipe.run(source(updated))

    project = tmp_path / "dbt"
    project.mkdir()
    (project / "dbt_project.yml").write_text(yaml.safe_dump({"name": "faker", "version": "0.1.0", "config-version": 2, "profile": "faker"}))
    (project / "profiles.yml").write_text(yaml.safe_dump({"faker": {"target": "dev", "outputs": {"dev": {
        "type": "sparkload", "method": "embedded", "schema": names.target, "lakehouse_dir": str(lakehouse.home), "threads": 1}}}}))
    assert sparkload(["dbt", "scaffold", "--dataset", names.staging, "--schema-name", names.staging,
                      "--project-dir", str(project), "--home", str(lakehouse.home)]) == 0
    result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, result.exception
    final = pipe.spark.sql(f"select id, name, email from `{names.target}`.users order by id").collect()
    expected = sorted((r["id"], r["name"], r["email"]) for r in full_refresh(faker, "users", faker_config(always_updated=True)))
    assert [tuple(r) for r in final] == expected


@pytest.mark.parametrize("env, message", [
    ({"KILL_AFTER_RECORDS": "3", "FAIL_WITH": "quota exceeded"}, "quota exceeded"),
])
@pytest.mark.extended
def test_faker__a_trace_error_fails_the_run_with_its_message_and_keeps_committed_data(
        faker, pipe, tmp_path, monkeypatch, env, message):
    for key in ("REAL_CONNECTOR", "KILL_AFTER_RECORDS", "FAIL_WITH"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("PATH", os.environ["PATH"])
    pipe.run(source({"streams": ["users"], "config": faker_config(count=5)}))
    before = stored_state(pipe, "users")
    command = _killing(tmp_path, faker, monkeypatch, **env)
    with pytest.raises(PipelineStepFailed, match=message):
        pipe.run(source({"streams": ["users"], "executable": command, "package": None,
                         "config": faker_config(count=5, always_updated=True)}))
    assert [u[0] for u in staged(pipe, "users", "id")] == [1, 2, 3, 4, 5]
    assert stored_state(pipe, "users") == before
