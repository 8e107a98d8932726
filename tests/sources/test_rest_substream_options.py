"""Fast tier (no JVM): the REST source's substream options of the Airbyte CDK as the docs show them
(docs/sources.md, `rest_api`: `incremental_dependency`, `global_substream_cursor`) pass the plugin's schema
and build; a wrong value is one line naming the key. Their behaviour is judged against airbyte-cdk 7 in
tests/parity_airbyte/test_substream_parity.py."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from python_extract.errors import ConfigError
from python_extract.sources.registry import SourceConfigError, get_plugin, resolve_config
from python_extract.sources.rest_api.source import RestApiSource

DOCS = Path(__file__).resolve().parents[2] / "docs" / "sources.md"


def docs_config():
    """The docs example's `comments` resource under a `projects` parent with an incremental block."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(), re.S)
    (block,) = [b for b in blocks if re.search(r"^\s+incremental_dependency: true", b, re.M)]
    (comments,) = yaml.safe_load(block)
    projects = {"name": "projects", "primary_key": "id", "endpoint": {"path": "projects", "incremental": {
        "cursor_path": "updated_at", "initial_value": "2024-01-01T00:00:00Z", "start_param": {"in": "query", "name": "since"}}}}
    return {"client": {"base_url": "http://127.0.0.1:9/v1/"}, "resources": [projects, comments]}


def test_docs_example__passes_the_schema_and_builds_both_resources():
    config = resolve_config(get_plugin("rest_api"), docs_config())
    endpoint = config["resources"][1]["endpoint"]
    assert endpoint["incremental_dependency"] is True and endpoint["incremental"]["global_substream_cursor"] is True
    assert [r.name for r in RestApiSource(config).source().resources.values()] == ["projects", "comments"]


@pytest.mark.parametrize("where, key", [(("endpoint",), "incremental_dependency"),
                                        (("endpoint", "incremental"), "global_substream_cursor")])
def test_substream_option__that_is_not_a_boolean_is_one_line_naming_it(where, key):
    config = docs_config()
    node = config["resources"][1]
    for step in where:
        node = node[step]
    node[key] = "yes"
    with pytest.raises(SourceConfigError) as failure:
        resolve_config(get_plugin("rest_api"), config)
    assert key in str(failure.value) and "\n" not in str(failure.value).strip()


def test_global_substream_cursor__with_per_parent_is_refused_in_one_line():
    config = resolve_config(get_plugin("rest_api"), docs_config())
    config["resources"][1]["endpoint"]["incremental"]["per_parent"] = {"max_parents": 10}
    with pytest.raises(ConfigError, match=r"^resource comments: incremental.global_substream_cursor .* per_parent .*$"):
        RestApiSource(config).resource("comments")


def test_parent__that_is_no_resource_of_the_source_is_a_config_error_naming_it():
    # was a plain ValueError: the CLI reported it as an internal error (exit 70)
    config = resolve_config(get_plugin("rest_api"), docs_config())
    config["resources"][1]["endpoint"]["parent"] = "projcts"
    with pytest.raises(ConfigError, match=r"^resource comments: parent 'projcts' is not a resource of this source "
                                          r"\(did you mean 'projects'\?\); expected one of projects, comments$"):
        RestApiSource(config).resource("comments")
