"""Substreams of the REST source against the CDK's: the parent -> child manifest of manifest_cases.py
(`projects` -> `comments`, one `updated_at` cursor per project, the CDK's `SubstreamPartitionRouter`)
run over two syncs through airbyte-cdk 7 directly, and the same API read by sparkload's REST source
(`endpoint.parent` + an `incremental` block with `per_parent`) through the real extractor, each against
its own copy of one local API. Compared per sync: the `since` each project's comments were asked from,
the comments emitted, and each project's cursor in the state.

The two differences are kept on purpose (docs/parity.md, Airbyte section) and checked as exactly those:
the CDK re-emits the comment at a project's saved cursor (sparkload's cursor is dlt's, which deduplicates
the boundary by primary key), and the CDK starts a project it has not seen at its global cursor minus the
lookback (sparkload at the start value, so a new parent's older records are read too)."""
from __future__ import annotations

import copy
import uuid
from typing import Any, Dict, List

import pytest

pytest.importorskip("airbyte_cdk", reason="the judge: pip install 'airbyte-cdk>=7,<8'")
freezegun = pytest.importorskip("freezegun")

import pyarrow.parquet as pq  # noqa: E402

from python_extract.extract.extractor import Extractor  # noqa: E402
from python_extract.hooks import Hooks  # noqa: E402
from python_extract.normalize import Schema  # noqa: E402
from python_extract.packages import PackageStorage  # noqa: E402
from python_extract.sources.rest_api.source import RestApiSource  # noqa: E402
from python_extract.state import decode_value, new_state  # noqa: E402

from . import manifest_cases, manifest_sides, manifests  # noqa: E402
from .conftest import record  # noqa: E402
from .connector_api import ConnectorApi, ConnectorServer  # noqa: E402

CASE = next(c for c in manifest_cases.CASES if c.name == "substream_per_partition_state")
START = "2024-01-01T00:00:00Z"


def rest_config(base_url: str) -> Dict[str, Any]:
    """The manifest's streams as the REST source takes them."""
    return {"client": {"base_url": f"{base_url}v1/", "paginator": "single_page"},
            "resources": [
                {"name": "projects", "primary_key": "id", "endpoint": {"path": "projects"}},
                {"name": "comments", "primary_key": "id", "endpoint": {
                    "path": "projects/{parent.id}/comments", "parent": "projects",
                    "incremental": {"cursor_path": "updated_at", "initial_value": START,
                                    "start_param": {"in": "query", "name": "since"}, "per_parent": {}}}}]}


def rest_sync(home, base_url: str, carried):
    pipeline_state = new_state("parity")
    if carried is not None:
        pipeline_state["sources"] = {"api": copy.deepcopy(carried)}
    source = RestApiSource(rest_config(base_url), name="api")
    extractor = Extractor(PackageStorage(home / uuid.uuid4().hex), "parity", Schema("parity"), pipeline_state, Hooks(),
                          default_source="api")
    extractor.extract([source.resource("projects"), source.resource("comments")])
    comments: List[Dict[str, Any]] = []
    for package in extractor.sealed:
        folder = package.table_dir("comments")
        if folder.exists():
            comments += [row for part in sorted(folder.glob("*.parquet")) for row in pq.read_table(part).to_pylist()]
        if package.state is not None:
            carried = decode_value(package.state)["sources"]["api"]
    partitions = carried["resources"]["comments"]["custom"]["partitions"]
    cursors = {int(k): v["incremental"]["updated_at"]["last_value"] for k, v in partitions.items()}
    return manifest_sides.rows(comments), cursors, carried


def cdk_sync(base_url: str, carried):
    result = manifest_sides.cdk_sync(manifests.adapted(CASE.manifest, base_url), {}, carried)
    states = result["state"]["comments"]["states"]
    return result["records"]["comments"], {s["partition"]["project_id"]: s["cursor"]["updated_at"] for s in states}, result["state"]


def _syncs(read_one) -> List[Dict[str, Any]]:
    api, carried, out = ConnectorApi(routes=CASE.routes()), None, []
    with ConnectorServer(api):
        for sync in CASE.syncs:
            sync.change(api.routes)
            api.requests.clear()
            with freezegun.freeze_time(sync.now, tick=True):
                comments, cursors, carried = read_one(api.base_url, carried)
            since = {int(path.split("/")[3]): q.get("since") for path, q in api.requests if path.endswith("/comments")}
            out.append({"since": since, "comments": comments, "cursors": cursors})
    return out


def test_substream__asks_each_parent_from_its_own_cursor_and_keeps_the_cursors_the_cdk_keeps(home):
    theirs = _syncs(cdk_sync)
    ours = _syncs(lambda url, carried: rest_sync(home, url, carried))
    if ours == theirs:
        record("substreams (REST source)", "identical")
        pytest.fail("the sides agree: the differences on purpose are stale (docs/parity.md)")
    seen: List[Any] = []
    for n, (o, t) in enumerate(zip(ours, theirs), start=1):
        assert o["cursors"] == t["cursors"], f"sync {n}: each parent's cursor"
        new = set(t["since"]) - set(theirs[n - 2]["since"]) if n > 1 else set()
        assert {p: s for p, s in o["since"].items() if p not in new} == {p: s for p, s in t["since"].items() if p not in new}
        for project in new:  # a parent first seen: the CDK starts at its global cursor less the lookback, sparkload at the start
            assert o["since"][project] == START and t["since"][project] > START, f"sync {n}: project {project}"
        again = [r for r in t["comments"] if r not in o["comments"]]
        assert o["comments"] == [r for r in t["comments"] if r not in again] and all(r in seen for r in again)
        seen += t["comments"]
    assert any(set(t["since"]) - set(theirs[0]["since"]) for t in theirs[1:]), "no parent was new in the second sync"
    assert len(seen) > len({str(r) for r in seen}), "the CDK no longer re-emits the comment at a saved cursor"
    record("substreams (REST source)", "differs-on-purpose")
