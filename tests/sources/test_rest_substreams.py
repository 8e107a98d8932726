"""The REST source's substream options of the Airbyte CDK into the lakehouse over two runs: with
`incremental_dependency` and `global_substream_cursor`, the second run lands the comments of the projects
that changed since the first (a new comment under an unchanged project waits for it to change). Judged
against airbyte-cdk 7 in tests/parity_airbyte/test_substream_parity.py."""
from __future__ import annotations

from python_extract.sources.rest_api.source import RestApiSource

from ..support import airbyte_manifest_cases as manifest_cases
from ..support.airbyte_connector_api import ConnectorApi, ConnectorServer
from ..support.staging import staged

SINCE = {"cursor_path": "updated_at", "initial_value": "2024-01-01T00:00:00Z", "start_param": {"in": "query", "name": "since"}}


def test_incremental_dependency__the_second_run_lands_comments_of_changed_projects_only(pipe):
    api = ConnectorApi(routes=manifest_cases.substream_routes())
    with ConnectorServer(api):
        config = {"client": {"base_url": f"{api.base_url}v1/", "paginator": "single_page"}, "resources": [
            {"name": "projects", "primary_key": "id", "endpoint": {"path": "projects", "incremental": SINCE}},
            {"name": "comments", "primary_key": "id", "endpoint": {
                "path": "projects/{parent.id}/comments", "parent": "projects", "incremental_dependency": True,
                "incremental": {**SINCE, "global_substream_cursor": True}}}]}

        # load 1: every project's comments
        pipe.run(RestApiSource(config, name="api").source())
        assert staged(pipe, "comments", "id", "body") == [(11, "comment 11"), (12, "comment 12"), (21, "comment 21"),
                                                          (31, "comment 31"), (32, "comment 32")]

        # load 2: project 1 touched, project 4 new, comment 32 edited (project 3 is at the saved parent cursor);
        # comment 22 is new under project 2, which did not change: not read
        manifest_cases.substream_sync2(api.routes)
        pipe.run(RestApiSource(config, name="api").source())
        rows = staged(pipe, "comments", "_dlt_load_id", "id", "body")
        last = max(row[0] for row in rows)
        assert sorted(row[1:] for row in rows if row[0] == last) == [(13, "comment 13"), (32, "edited"), (41, "comment 41")]
        assert len(rows) == 8, "load 1's five and load 2's three"
