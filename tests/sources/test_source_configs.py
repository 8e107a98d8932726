"""Fast tier (no JVM, no server): the REST client's retry policy through the mock transport, and the
source plugins' configs (pydantic models -> JSON Schema -> one-line errors naming plugin, key, value)."""
from __future__ import annotations

import dataclasses
import email.utils
import time

import pytest
import requests

from python_extract.sources.registry import SourceConfigError, build_source, get_plugin, resolve_config
from python_extract.sources.rest_api.client import HttpError, RestClient, Retry
from python_extract.sources.rest_api.mock import mock_session
from python_extract.sources.rest_api.paginators import PAGINATORS, Request

pytestmark = pytest.mark.fast

URL = "https://api.test/items"


class Script:
    """Answers requests with the scripted replies in turn; counts the requests."""

    def __init__(self, *replies):
        self.replies, self.requests = list(replies), 0

    def __call__(self, request):
        self.requests += 1
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


@pytest.fixture
def sleeps(monkeypatch):
    """The waits between attempts, recorded instead of slept."""
    waited = []
    monkeypatch.setattr(time, "sleep", waited.append)
    return waited


def _send(script, retry=None, actions=None):
    client = RestClient("https://api.test/", session=mock_session(script), retry=retry or Retry())
    return client.send(Request(URL), actions)


OK = (200, {}, {"data": []})


def test_retry__429_waits_the_retry_after_seconds_then_succeeds(sleeps):
    script = Script((429, {"Retry-After": "3"}, {}), OK)
    assert _send(script).status_code == 200
    assert (script.requests, sleeps) == (2, [3.0])


def test_retry__retry_after_as_an_http_date_waits_until_then_capped_by_max_retry_after(sleeps):
    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    _send(Script((503, {"Retry-After": soon}, {}), OK))
    _send(Script((503, {"Retry-After": soon}, {}), OK), Retry(max_retry_after=10))
    assert 27 <= sleeps[0] <= 30 and sleeps[1] == 10


def test_retry__an_invalid_retry_after_backs_off_instead(sleeps):
    _send(Script((429, {"Retry-After": "soon"}, {}), OK), Retry(backoff_factor=2))
    assert sleeps == [2]


def test_retry__5xx_without_retry_after_backs_off_exponentially_then_gives_up_in_one_line(sleeps):
    script = Script(*[(503, {}, "busy")] * 4)
    with pytest.raises(HttpError) as e:
        _send(script, Retry(max_attempts=4, backoff_factor=0.5))
    assert str(e.value) == f"GET {URL} failed with HTTP 503: still failing after 4 attempts"
    assert (script.requests, sleeps) == (4, [0.5, 1.0, 2.0])


def test_retry__a_connection_error_is_retried_and_the_last_one_named(sleeps):
    script = Script(requests.ConnectionError("refused"), requests.ConnectionError("refused again"))
    with pytest.raises(HttpError, match=f"^GET {URL} failed: refused again$") as e:
        _send(script, Retry(max_attempts=2))
    assert e.value.status is None and script.requests == 2


def test_retry__response_actions_apply_before_any_retry(sleeps):
    ignored = Script((503, {}, {}))
    assert _send(ignored, actions=[{"status_code": 503, "action": "ignore"}]) is None
    failed = Script((429, {"Retry-After": "1"}, "quota exceeded"))
    with pytest.raises(HttpError, match="HTTP 429: quota exceeded"):
        _send(failed, actions=[{"status_code": 429, "content": "quota", "action": "fail"}])
    assert (ignored.requests, failed.requests, sleeps) == (1, 1, [])


def test_retry__a_4xx_is_not_retried_and_names_the_body(sleeps):
    script = Script((404, {}, "no such item"))
    with pytest.raises(HttpError, match=f"GET {URL} failed with HTTP 404: no such item"):
        _send(script)
    assert (script.requests, sleeps) == (1, [])


# configs

def _rest(**client):
    return {"client": {"base_url": "https://api.test/", **client},
            "resources": [{"name": "items", "endpoint": {"path": "items", "paginator": {"type": "offset", "limit": 2}}}]}


BAD = [
    ("rest_api", lambda: _rest(bse_url="x"), "source.config.client: unknown key 'bse_url' (given 'x'); "
     "expected one of base_url, headers, auth, paginator, retry, response_actions, timeout"),
    ("rest_api", lambda: _rest(paginator={"type": "offset", "limt": 5}),
     "source.config.client.paginator: unknown key 'limt' (given 5); expected one of type, stop_after_empty_page,"),
    ("rest_api", lambda: _rest(paginator={"type": "offset", "limit": "ten"}),
     "source.config.client.paginator.limit: 'ten' is not of type 'integer'"),
    ("rest_api", lambda: _rest(paginator="pages"), "source.config.client.paginator: 'pages' is not one of ['cursor',"),
    ("rest_api", lambda: _rest(auth={"type": "api_key", "api_key": "${SECRET}", "location": "body"}),
     "source.config.client.auth.location: 'body' is not one of ['header', 'query']"),
    ("files", lambda: {"resources": [{"name": "x", "glob": "*.csv", "chunksize": 10}]},
     "source.config.resources[0]: unknown key 'chunksize' (given 10); expected one of table_name, primary_key,"),
    ("files", lambda: {"resources": [{"name": "x", "glob": "*.xml", "format": "xml"}]},
     "source.config.resources[0].format: 'xml' is not one of ['auto', 'csv', 'jsonl', 'json', 'parquet']"),
    ("sql_database", lambda: {"credentials": "${SECRET}", "table_options": {"t": {"lag": 1}}},
     "source.config.table_options.t: unknown key 'lag' (given 1); expected one of table_name, primary_key,"),
    ("sql_database", lambda: {"credentials": "${SECRET}", "table_options": {"t": {"incremental": {"cursor_path": "u", "lag": -1}}}},
     "source.config.table_options.t.incremental.lag: -1 is less than the minimum of 0"),
    ("airbyte", lambda: {"package": "p", "streams": [{"name": "s", "sync_mode": "cdc"}]},
     "source.config.streams[0].sync_mode: 'cdc' is not one of ['incremental', 'full_refresh']"),
    ("airbyte", lambda: {"package": "p", "executable": "e"}, "source.config: {'package': 'p', 'executable': 'e'} is valid under each of"),
]


@pytest.mark.parametrize("plugin, config, message", BAD, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(BAD)])
def test_config__a_bad_key_or_value_is_one_line_naming_plugin_key_and_value(plugin, config, message):
    with pytest.raises(SourceConfigError) as e:
        resolve_config(get_plugin(plugin), config(), env={"SECRET": "s3cr3t"})
    assert str(e.value).startswith(f"invalid {plugin} source config: {message}")
    assert "\n" not in str(e.value)


def test_config__a_resolved_secret_is_never_printed_only_its_reference():
    env = {"TOKEN": "s3cr3t", "PAGES": "many"}
    with pytest.raises(SourceConfigError) as e:
        resolve_config(get_plugin("rest_api"), _rest(auth={"type": "bearer", "tokn": "${TOKEN}"},
                                                     paginator={"type": "offset", "limit": "${PAGES}"}), env=env)
    assert "source.config.client.auth: unknown key 'tokn' (given '${TOKEN}')" in str(e.value)
    assert "source.config.client.paginator.limit: '${PAGES}' is not of type 'integer'" in str(e.value)
    assert "s3cr3t" not in str(e.value) and "many" not in str(e.value)


@pytest.mark.parametrize("auth, key", [({"type": "bearer", "token": "inline"}, "token"),
                                       ({"type": "http_basic", "username": "ann", "password": "inline"}, "password")])
def test_config__a_secret_written_in_the_file_is_refused(auth, key):
    with pytest.raises(SourceConfigError, match=rf"source.config.client.auth.{key}: is a secret; reference an environment"):
        resolve_config(get_plugin("rest_api"), _rest(auth=auth), env={})


def test_config__references_resolve_and_every_other_dollar_stays_as_written():
    config = _rest(auth={"type": "bearer", "token": "${TOKEN}"}, headers={"X-Tag": "a$$b $HOME ${TAG}-1"})
    config["resources"][0]["endpoint"]["data_selector"] = "$.data[*]"
    resolved = resolve_config(get_plugin("rest_api"), config, env={"TOKEN": "t", "TAG": "v"})
    assert resolved["client"]["auth"]["token"] == "t"
    assert resolved["client"]["headers"] == {"X-Tag": "a$$b $HOME v-1"}
    assert resolved["resources"][0]["endpoint"]["data_selector"] == "$.data[*]"
    with pytest.raises(SourceConfigError, match=r"source.config.client.auth.token: environment variable TOKEN is not set"):
        resolve_config(get_plugin("rest_api"), config, env={"TAG": "v"})


def _objects(schema):
    """The mappings a schema describes (not the `if` of a component, not the union whose `then`s forbid)."""
    if isinstance(schema, dict):
        if "properties" in schema and "allOf" not in schema:
            yield schema
        for key, value in schema.items():
            if key != "if":
                yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


@pytest.mark.parametrize("plugin", ["rest_api", "files", "sql_database", "airbyte"])
def test_schema__every_object_of_every_plugin_forbids_unknown_keys(plugin):
    objects = list(_objects(get_plugin(plugin).config_schema))
    assert objects and [o for o in objects if o.get("additionalProperties") is not False] == []


def test_schema__a_paginator_takes_its_dataclass_init_fields_with_their_defaults():
    options = get_plugin("rest_api").config_schema["$defs"]["Client"]["properties"]["paginator"]["anyOf"][1]["allOf"]
    by_type = {o["if"]["properties"]["type"]["const"]: o["then"]["properties"] for o in options}
    assert sorted(by_type) == sorted(PAGINATORS)
    for name, cls in PAGINATORS.items():
        keys = {f.name for f in dataclasses.fields(cls) if f.init}
        assert set(by_type[name]) == keys | {"type"}, name
    assert by_type["offset"]["limit"] == {"default": 100, "title": "Limit", "type": "integer"}


def test_schema__resources_take_the_contract_table_hints():
    from python_extract import contract
    from python_extract.sources.config import TableHints
    from python_extract.sources.files.plugin import FileResource
    from python_extract.sources.rest_api.schema import Resource

    assert set(TableHints.model_fields) | {"columns"} == set(contract.TABLE_HINTS)
    assert set(contract.TABLE_HINTS) <= set(Resource.model_fields) & set(FileResource.model_fields)
    disposition = get_plugin("files").config_schema["$defs"]["FileResource"]["properties"]["write_disposition"]
    assert disposition["anyOf"][0]["enum"] == list(contract.WRITE_DISPOSITIONS)


def test_build_source__an_unknown_top_level_key_names_the_valid_ones():
    with pytest.raises(SourceConfigError, match=r"^invalid source config: source: unknown key\(s\) confg; expected type, name, config$"):
        build_source({"type": "files", "confg": {}})
