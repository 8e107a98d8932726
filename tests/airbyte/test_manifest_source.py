"""The `airbyte_manifest` source: the docs example (docs/sources.md, "Run an Airbyte low-code manifest")
run as written against a local API into the lakehouse over two runs, and each mistake a user can make
refused in one line before any request. The records and state against the CDK itself are judged in
tests/parity_airbyte/test_manifest_parity.py."""
from __future__ import annotations

import datetime as dt
import sys
import zipfile
from typing import Dict, List

import pytest
import yaml

pytest.importorskip("airbyte_cdk", reason="the manifest source runs airbyte-cdk: pip install 'dbt-sparkload[airbyte]'")

from python_extract.cli import main as sparkload  # noqa: E402
from python_extract.errors import ConfigError  # noqa: E402
from python_extract.sources.airbyte.manifest import ManifestSource  # noqa: E402
from python_extract.sources.registry import SourceConfigError, get_plugin, resolve_config  # noqa: E402

from ..support.doc_commands import readme_block  # noqa: E402
from ..support.airbyte_connector_api import ConnectorApi, ConnectorServer, Route  # noqa: E402
from ..support.staging import staged  # noqa: E402

SECTION = "Run an Airbyte low-code manifest"
UTC = dt.timezone.utc
CONFIG = {"api_token": "t0ken", "start_date": "2024-01-01T00:00:00Z"}


def ticket(i: int, day: int, status: str = "open"):
    at = dt.datetime(2024, 1, day, tzinfo=UTC)
    return {"id": i, "subject": f"ticket {i}", "status": status, "updated_at": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "_at": at}


def docs_manifest(base_url: str = "https://api.example.com/v1/") -> dict:
    manifest = yaml.safe_load(readme_block(SECTION, "# tickets_manifest.yaml"))
    manifest["streams"][0]["retriever"]["requester"]["url_base"] = f"{base_url.rstrip('/')}/v1/"
    return manifest


def one_line(error: pytest.ExceptionInfo) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


def test_docs_example__two_runs_land_the_tickets_and_dbt_applies_them_by_delete_insert_upsert_and_scd2(
        lakehouse, names, tmp_path, monkeypatch, spark):
    from dbt.cli.main import dbtRunner

    api = ConnectorApi(routes={"/v1/tickets": Route([ticket(1, 2), ticket(2, 3), ticket(3, 5)], since="since",
                                                    fmt="%Y-%m-%dT%H:%M:%SZ")})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HELPDESK_TOKEN", "t0ken")
    project = tmp_path / "helpdesk"  # the project is named after its folder, and "dbt" is dbt's own package

    def dbt_run() -> Dict[str, List[tuple]]:
        """dbt run, then each model's table: (id, status), and for scd2 whether the version is active."""
        result = dbtRunner().invoke(["run", "--project-dir", str(project), "--profiles-dir", str(project)])
        assert result.success, result.exception
        tables = {m: sorted(tuple(r) for r in spark.sql(f"select id, status from `{names.target}`.{m}").collect())
                  for m in ("tickets_delete_insert", "tickets_upsert")}
        tables["tickets"] = sorted(tuple(r) for r in spark.sql(
            f"select id, status, _dlt_valid_to is null from `{names.target}`.tickets").collect())
        return tables

    with ConnectorServer(api):
        (tmp_path / "tickets_manifest.yaml").write_text(yaml.safe_dump(docs_manifest(api.base_url)))
        pipeline = yaml.safe_load(readme_block(SECTION, "# tickets_pipeline.yaml"))
        pipeline.update(pipeline_name=names.staging, dataset_name=names.staging, pipelines_dir=str(tmp_path / "pipelines"))
        (tmp_path / "tickets_pipeline.yaml").write_text(yaml.safe_dump(pipeline))
        home = ["--home", str(lakehouse.home)]

        # run 1: every ticket since the start date
        assert sparkload(["run", "tickets_pipeline.yaml", *home]) == 0
        assert [q.get("since") for _, q in api.requests] == ["2024-01-01T00:00:00Z"] * 2  # the manifest's check, the read
        assert staged(spark_pipe(names, lakehouse, tmp_path), "tickets", "id", "status") == [(1, "open"), (2, "open"), (3, "open")]

        # the model scaffolded from the stream's hints (scd2, as the pipeline file says), and two more on the same
        # staging table: delete-insert and upsert
        project.mkdir()
        assert sparkload(["dbt", "scaffold", "--dataset", names.staging, "--project-dir", str(project), *home]) == 0
        model = next(project.rglob("tickets.sql"))
        text = model.read_text()
        assert "write_disposition='merge'" in text and "strategy='scd2'" in text and "primary_key='id'" in text
        assert "merge_key='id'" in text and "dedup_sort" in text and "updated_at" in text
        for strategy in ("delete-insert", "upsert"):
            (model.parent / f"tickets_{strategy.replace('-', '_')}.sql").write_text(
                f"{{{{ config(materialized='sparkload', write_disposition='merge', strategy='{strategy}', primary_key='id', "
                f"dedup_sort={{'updated_at': 'desc'}}) }}}}\nselect * from {{{{ source('{names.staging}', 'tickets') }}}}\n")
        profiles = yaml.safe_load((project / "profiles.yml").read_text())
        for output in next(iter(profiles.values()))["outputs"].values():
            output["schema"] = names.target
        (project / "profiles.yml").write_text(yaml.safe_dump(profiles))

        # dbt run 1: load 1 applied by each strategy
        opened = [(1, "open"), (2, "open"), (3, "open")]
        assert dbt_run() == {"tickets_delete_insert": opened, "tickets_upsert": opened,
                             "tickets": [(1, "open", True), (2, "open", True), (3, "open", True)]}

        # run 2: ticket 2 closed, ticket 4 new; the request starts at the state (ticket 3's updated_at)
        api.routes["/v1/tickets"].records[1:2] = []
        api.routes["/v1/tickets"].records += [ticket(2, 7, "closed"), ticket(4, 8)]
        api.requests.clear()
        assert sparkload(["run", "tickets_pipeline.yaml", *home]) == 0
        assert [q.get("since") for _, q in api.requests] == ["2024-01-01T00:00:00Z", "2024-01-05T00:00:00Z"]  # check, read
        pipe = spark_pipe(names, lakehouse, tmp_path)
        loads = [r[0] for r in staged(pipe, "tickets", "_dlt_load_id")]
        second = max(loads)
        rows = pipe.spark.sql(f"select id, status from `{names.staging}`.tickets where _dlt_load_id = '{second}'").collect()
        assert sorted(tuple(r) for r in rows) == [(2, "closed"), (3, "open"), (4, "open")]
        pipe.sync_destination()
        state = pipe.state["sources"]["helpdesk"]["resources"]["tickets"]["custom"]["airbyte_state"]
        assert state == {"updated_at": "2024-01-08T00:00:00Z"}

        # dbt run 2: load 2 holds the changed tickets only (an incremental read): ticket 1, absent, stays as it
        # is in every table (scd2 keeps its version active: the stream's merge_key is its primary key), ticket 2
        # is updated (scd2: its open version retired, the closed one active), ticket 3, read again at the
        # boundary unchanged, keeps its one version
        latest = [(1, "open"), (2, "closed"), (3, "open"), (4, "open")]
        assert dbt_run() == {"tickets_delete_insert": latest, "tickets_upsert": latest, "tickets": [
            (1, "open", True), (2, "closed", True), (2, "open", False), (3, "open", True), (4, "open", True)]}


def spark_pipe(names, lakehouse, tmp_path):
    import python_extract as sl

    return sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse,
                       pipelines_dir=str(tmp_path / "pipelines"))


# mistakes, each refused in one line naming what, before any request (the manifest points nowhere)

def test_manifest__a_path_that_is_not_a_file_is_refused(tmp_path):
    with pytest.raises(ConfigError) as e:
        ManifestSource(tmp_path / "missing.yaml", CONFIG)
    assert "missing.yaml" in one_line(e) and "is not a file" in str(e.value)


@pytest.mark.parametrize("text, expected", [
    ("streams: [\n  - {name: tickets\n", "does not parse as YAML"),
    ("- tickets\n", "is not a declarative manifest"),
], ids=["not yaml", "yaml without streams"])
def test_manifest__a_file_that_is_not_a_manifest_is_refused_naming_it(tmp_path, text, expected):
    path = tmp_path / "manifest.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        ManifestSource(path, CONFIG)
    assert expected in one_line(e) and "manifest.yaml" in str(e.value)


def test_manifest__a_stream_the_cdk_cannot_build_is_refused_with_the_cdks_reason():
    manifest = docs_manifest()
    del manifest["streams"][0]["retriever"]["requester"]
    with pytest.raises(ConfigError) as e:
        ManifestSource(manifest, CONFIG)
    assert "is not a valid declarative manifest" in one_line(e) and "requester" in str(e.value)


def test_manifest__a_custom_python_component_is_refused_naming_it_before_the_cdk_imports_anything():
    from ..support.airbyte_manifests import wheel

    with zipfile.ZipFile(wheel("airbyte-source-prestashop==1.0.4")) as archive:  # a real connector with components.py
        manifest = yaml.safe_load(archive.read("source_prestashop/manifest.yaml"))
    with pytest.raises(ConfigError) as e:
        ManifestSource(manifest, {"access_key": "k", "url": "http://127.0.0.1:9", "start_date": "2024-01-01"})
    assert one_line(e) == (
        "the manifest: definitions.base_stream.transformations[0] is a custom Python component (class_name: "
        "source_prestashop.components.CustomFieldTransformation); a manifest source runs no connector code in sparkload's "
        "process: run the connector's package instead (source type `airbyte`, package: airbyte-source-<name>), in an "
        "environment of its own")
    assert "source_prestashop" not in sys.modules


def test_manifest__an_unknown_stream_is_refused_naming_it_and_the_known_ones():
    with pytest.raises(ConfigError) as e:
        ManifestSource(docs_manifest(), CONFIG, streams=["tickets", "ticket_comments"])
    assert "ticket_comments" in one_line(e) and "it has tickets" in str(e.value)


def test_manifest__a_connector_config_key_the_spec_does_not_declare_is_refused():
    with pytest.raises(ConfigError) as e:
        ManifestSource(docs_manifest(), {**CONFIG, "start_dat": "2024-01-01"})
    assert "unknown key(s) start_dat" in one_line(e) and "api_token, start_date" in str(e.value)


def test_manifest__a_config_the_spec_refuses_is_refused():
    with pytest.raises(ConfigError) as e:
        ManifestSource(docs_manifest(), {"api_token": "t0ken"})
    assert one_line(e) == "connector config: config: 'start_date' is a required property"


def test_manifest__a_sync_mode_the_stream_lacks_is_refused():
    manifest = docs_manifest()
    del manifest["streams"][0]["incremental_sync"]
    with pytest.raises(ConfigError) as e:
        ManifestSource(manifest, CONFIG, streams=[{"name": "tickets", "sync_mode": "incremental"}])
    assert "stream tickets: sync_mode incremental is not supported (full_refresh)" == one_line(e)


def test_plugin__an_unknown_key_in_the_pipeline_file_is_refused_naming_it():
    with pytest.raises(SourceConfigError) as e:
        resolve_config(get_plugin("airbyte_manifest"), {"manifest": "m.yaml", "stream": ["tickets"]})
    assert "unknown key 'stream'" in one_line(e)


def test_manifest__without_airbyte_cdk_the_error_says_how_to_install_it(monkeypatch):
    for name in [m for m in sys.modules if m == "airbyte_cdk" or m.startswith("airbyte_cdk.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "airbyte_cdk", None)  # as if not installed: importing it raises ImportError
    with pytest.raises(ConfigError) as e:
        ManifestSource(docs_manifest(), CONFIG)
    assert "pip install 'dbt-sparkload[airbyte]'" in one_line(e)


def test_manifest__a_read_leaves_the_callers_logging_and_environment_as_it_found_them(monkeypatch):
    """The CDK configures the root logger when imported and keeps its HTTP cache where REQUEST_CACHE_PATH
    says (its entrypoint sets it per sync): both are put back after a read."""
    import logging
    import os

    monkeypatch.delenv("REQUEST_CACHE_PATH", raising=False)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    api = ConnectorApi(routes={"/v1/tickets": Route([ticket(1, 2)], since="since", fmt="%Y-%m-%dT%H:%M:%SZ")})
    with ConnectorServer(api):
        source = ManifestSource(docs_manifest(api.base_url), CONFIG)
        messages = list(source.read("tickets", None))
    assert messages[0] == ("record", {"id": 1, "subject": "ticket 1", "status": "open", "updated_at": "2024-01-02T00:00:00Z"})
    assert messages[-1] == ("state", {"updated_at": "2024-01-02T00:00:00Z"})
    assert (list(root.handlers), root.level) == (handlers, level)
    assert "REQUEST_CACHE_PATH" not in os.environ


def test_manifest__an_incremental_stream_under_scd2_gets_its_primary_key_as_merge_key_and_no_other_does():
    """A load of an incremental stream holds the changed records only: scd2 without a merge_key would retire
    every key absent from it (the dbt run of the docs example above shows the tables)."""
    scd2 = {"disposition": "merge", "strategy": "scd2"}
    full_refresh = docs_manifest()
    del full_refresh["streams"][0]["incremental_sync"]
    keys = {}
    for case, manifest, disposition in [("incremental scd2", docs_manifest(), scd2),
                                        ("incremental upsert", docs_manifest(), {"disposition": "merge", "strategy": "upsert"}),
                                        ("incremental default", docs_manifest(), None),
                                        ("full refresh scd2", full_refresh, scd2)]:
        stream = {"name": "tickets", **({"write_disposition": disposition} if disposition else {})}
        resource = ManifestSource(manifest, CONFIG, streams=[stream], check=False).resource("tickets")
        keys[case] = (resource.primary_key, resource.merge_key)
    assert keys == {"incremental scd2": (["id"], ["id"]), "incremental upsert": (["id"], []),
                    "incremental default": (["id"], []), "full refresh scd2": (["id"], [])}
