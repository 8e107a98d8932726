"""Real connectors' low-code manifests (tests/support/airbyte_manifest_cases.py: dixa, delighted, datascope from their PyPI
packages, adapted only in their base URL) run as sparkload sources against the same manifests run through
airbyte-cdk 7 directly, each side against its own copy of one local API, two syncs each with time frozen.
Compared per sync and stream: the records (as landed), the stream state committed, and whether the sync
failed."""
from __future__ import annotations

from typing import Any, Dict, List

import pytest

pytest.importorskip("airbyte_cdk", reason="the judge: pip install 'airbyte-cdk>=7,<8'")
freezegun = pytest.importorskip("freezegun")

from ..support import airbyte_manifest_sides as manifest_sides, airbyte_manifests as manifests  # noqa: E402
from ..support.tally import record_vs_airbyte as record  # noqa: E402
from ..support.airbyte_connector_api import ConnectorApi, ConnectorServer  # noqa: E402
from ..support.airbyte_manifest_cases import CASES, Case  # noqa: E402

# `--suite ci` leaves this judge to make test-all: tests/airbyte/test_manifest_source.py runs the manifests in ci
pytestmark = pytest.mark.extended


def _syncs(case: Case, read_one) -> List[Dict[str, Any]]:
    api = ConnectorApi(routes=case.routes())
    out: List[Dict[str, Any]] = []
    carried = None
    with ConnectorServer(api):
        source = manifests.adapted(case.manifest or manifests.manifest(case.connector), api.base_url)
        for sync in case.syncs:
            sync.change(api.routes)
            with freezegun.freeze_time(sync.now, tick=True):
                result = read_one(source, carried)
            carried = result.pop("carried")
            out.append(result)
    return out


def run_cdk(case: Case) -> List[Dict[str, Any]]:
    def one(source, state):
        result = manifest_sides.cdk_sync(source, case.config, state)
        return {**result, "carried": result["state"]}
    return _syncs(case, one)


def run_sparkload(case: Case, home) -> List[Dict[str, Any]]:
    return _syncs(case, lambda source, carried: manifest_sides.sparkload_sync(home, source, case.config, carried,
                                                                              case.checkpoint_records))


def _as_intended(case: Case, ours: List[Dict[str, Any]], theirs: List[Dict[str, Any]]) -> None:
    """The sides differ only as the case's `purpose` says."""
    if case.purpose == "records_after_failure":
        first_ours, first_theirs = ours[0], theirs[0]
        assert first_ours["failed"] and first_theirs["failed"], "a sync failing in a window fails on both sides"
        assert first_ours["state"] == first_theirs["state"], "the state committed is the CDK's last state"
        for stream, landed in first_ours["records"].items():
            assert all(r in first_theirs["records"][stream] for r in landed), "sparkload landed a record the CDK did not emit"
        assert ours[1:] == theirs[1:], "the sync after the failure reads the same"
    else:
        raise AssertionError(f"no check for purpose {case.purpose!r}")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_manifest__lands_the_records_and_keeps_the_state_the_cdk_reads_and_emits(case, home):
    theirs = run_cdk(case)
    ours = run_sparkload(case, home)
    assert any(any(s["records"].values()) for s in theirs), "the API served nothing: the case proves nothing"
    if case.purpose == "records_after_failure":
        # checked on every run: whether the CDK emits a record past its last STATE at all depends on which of
        # its two workers finishes first, so the tally says identical in a run where it emitted none
        _as_intended(case, ours, theirs)
    if ours == theirs:
        record("manifests", "identical")
        return
    if case.purpose:
        _as_intended(case, ours, theirs)
        record("manifests", "differs-on-purpose")
        return
    record("manifests", "differs")
    for n, (o, t) in enumerate(zip(ours, theirs), start=1):
        assert o == t, f"sync {n}"
