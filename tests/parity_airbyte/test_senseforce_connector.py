"""An incremental real connector from PyPI, judged by itself: airbyte-source-senseforce 0.1.15 (a low-code
connector on airbyte-cdk 1.x; its `url_base` is the config's `backend_url`, so it runs unchanged against the
local API of tests/support/senseforce_api.py; 100-day windows on `airbyte_cursor`, a STATE after each window).

Sparkload's `airbyte` source runs it as a plugin (installed from PyPI into its own environment, spoken to
over the Airbyte protocol, through the real extractor; packages read back from disk, no Spark), the pipeline
state carried from sync to sync as the pipeline does (the state of the last sealed package). The judge is the
same connector run directly (`source-senseforce read --state`, its messages read as they are), given the
state it emitted itself. Compared per sync: the records (as landed, as a multiset: the connector's windows
overlap by a day, so it emits a record of that day twice, and so does the landing) and the state kept
(sparkload's stored state is the connector's last STATE message).

Cases: two syncs (new and updated rows in between); the connector SIGKILLed mid-stream, then rerun; the API
failing mid-stream (400 from a window on), then rerun. After a crash, what landed is what the connector
emitted before its last STATE, the state kept is that STATE, the rerun reads what the connector reads from
it, and the rows of both runs, deduplicated by key as a merge model does, are one clean sync's.
"""
from __future__ import annotations

import json
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import pyarrow.parquet as pq

from python_extract.errors import PipelineStepFailed
from python_extract.extract.extractor import Extractor
from python_extract.hooks import Hooks
from python_extract.normalize import Schema
from python_extract.packages import PackageStorage
from python_extract.sources.airbyte.connector import install
from python_extract.sources.registry import get_plugin, resolve_config
from python_extract.state import decode_value, new_state

from ..support.tally import record_vs_airbyte as record
from ..support.senseforce_api import PACKAGE, ROWS, VENVS, VERSION, SenseforceApi, SenseforceServer, config_of, ms, row

# `--suite ci` leaves this judge to make test-all: tests/airbyte/test_airbyte_senseforce.py runs the connector in ci
pytestmark = pytest.mark.extended

KILLER = Path(__file__).parents[1] / "support" / "killing_connector.py"
SOURCE, STREAM = "senseforce", "dataset"
SUITE = "PyPI connector with state (senseforce)"


@pytest.fixture(scope="module")
def connector() -> Path:
    """The connector's executable, installed once per machine into its own environment (as faker's)."""
    return install(PACKAGE, VENVS, VERSION)


def killing(tmp_path: Path, executable: Path, after: int) -> List[str]:
    """The connector behind tests/support/killing_connector.py: SIGKILLed after `after` records."""
    wrapper = tmp_path / "senseforce-killed"
    wrapper.write_text(f"#!/bin/sh\nREAL_CONNECTOR={executable} KILL_AFTER_RECORDS={after} FAIL_WITH= exec {sys.executable} {KILLER} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return [str(wrapper)]


def canon(records: List[Dict[str, Any]]) -> List[str]:
    keep = lambda r: {k: v for k, v in r.items() if not k.startswith("_dlt_") and v is not None}  # noqa: E731
    return sorted(json.dumps(keep(r), sort_keys=True) for r in records)


def direct(command: List[str], config: Dict[str, Any], state: Optional[List[Dict[str, Any]]]) -> Dict[str, Any]:
    """The judge: one `discover` and one `read` of the connector itself. "records": all it emitted; "kept":
    those before its last STATE; "state": [its last STATE] (the given state if none); "failed": a non-zero exit."""
    with tempfile.TemporaryDirectory() as folder:
        def file(name: str, content: Any) -> str:
            (Path(folder) / name).write_text(json.dumps(content))
            return str(Path(folder) / name)

        args = ["--config", file("config.json", config)]
        found = subprocess.run([*command, "discover", *args], capture_output=True, text=True, check=True)
        (stream,) = next(m for m in map(json.loads, _json_lines(found.stdout)) if m["type"] == "CATALOG")["catalog"]["streams"]
        catalog = {"streams": [{"stream": stream, "sync_mode": "incremental", "destination_sync_mode": "append",
                                "cursor_field": stream["default_cursor_field"]}]}
        args += ["--catalog", file("catalog.json", catalog)] + (["--state", file("state.json", state)] if state else [])
        done = subprocess.run([*command, "read", *args], capture_output=True, text=True)
    records: List[Dict[str, Any]] = []
    kept: List[Dict[str, Any]] = []
    last = state
    for message in map(json.loads, _json_lines(done.stdout)):
        if message["type"] == "RECORD":
            records.append(message["record"]["data"])
        elif message["type"] == "STATE":
            kept, last = list(records), [message["state"]]
    return {"records": canon(records), "kept": canon(kept), "state": last, "failed": done.returncode != 0}


def _json_lines(text: str) -> List[str]:
    return [line for line in text.splitlines() if line.startswith("{")]


def ours(home: Path, config: Dict[str, Any], carried: Optional[Dict[str, Any]],
         executable: Optional[List[str]] = None, check: bool = False) -> Dict[str, Any]:
    """One sync by sparkload's `airbyte` plugin: the rows landed, the stream state committed, the source's
    section of the pipeline state (to carry), whether the sync failed. `check` off but in the first sync:
    each connector command is a process start of about a second."""
    plugin = get_plugin("airbyte")
    where = {"executable": executable[0]} if executable else {"package": PACKAGE, "version": VERSION, "venvs_dir": str(VENVS)}
    source = plugin.build(resolve_config(plugin, {**where, "config": config, "streams": [STREAM], "checkpoint_records": 1,
                                                  "check": check}), SOURCE)
    pipeline_state = new_state("parity")
    if carried is not None:
        pipeline_state["sources"] = {SOURCE: carried}
    extractor = Extractor(PackageStorage(home / uuid.uuid4().hex), "parity", Schema("parity"), pipeline_state, Hooks(),
                          default_source=SOURCE)
    try:
        extractor.extract(list(source.resources.values()))
        failed = False
    except PipelineStepFailed:
        failed = True
    landed: List[Dict[str, Any]] = []
    for package in extractor.sealed:
        folder = package.table_dir(STREAM)
        if folder.exists():
            landed += [r for part in sorted(folder.glob("*.parquet")) for r in pq.read_table(part).to_pylist()]
        if package.state is not None:
            carried = decode_value(package.state)["sources"][SOURCE]
    state = (((carried or {}).get("resources") or {}).get(STREAM) or {}).get("custom", {}).get("airbyte_state")
    return {"records": canon(landed), "state": state, "failed": failed, "carried": carried}


def by_key(*landed: List[str]) -> List[str]:
    """Rows deduplicated by `id`, the latest `airbyte_cursor` kept, as a merge model applies them."""
    latest: Dict[str, Dict[str, Any]] = {}
    for text in (r for rows in landed for r in rows):
        r = json.loads(text)
        if r["id"] not in latest or r["airbyte_cursor"] >= latest[r["id"]]["airbyte_cursor"]:
            latest[r["id"]] = r
    return sorted(json.dumps(r, sort_keys=True) for r in latest.values())


@pytest.fixture
def api():
    with SenseforceServer(SenseforceApi(rows=[dict(r) for r in ROWS])) as served:
        yield served


@pytest.fixture(scope="module")
def clean(connector) -> Dict[str, Any]:
    """The connector's own uninterrupted first sync of ROWS."""
    with SenseforceServer(SenseforceApi(rows=[dict(r) for r in ROWS])) as served:
        return direct([str(connector)], config_of(served), None)


def test_senseforce__two_syncs_land_what_the_connector_emits_and_keep_its_last_state(connector, api, home, clean):
    config, command = config_of(api), [str(connector)]
    # sync 1: every window from the start date, its `check` first
    ours1, theirs1 = ours(home, config, None, check=True), clean
    assert not ours1["failed"] and not theirs1["failed"] and len(theirs1["records"]) == len(ROWS) + 1  # r6 twice
    assert (ours1["records"], ours1["state"]) == (theirs1["records"], theirs1["state"])
    # sync 2: a new row and r2 updated later; both sides start from the state sync 1 kept
    api.rows += [row(8, 430)]
    api.rows[1] = row(2, 431, "recalibrated")
    ours2, theirs2 = ours(home, config, ours1["carried"]), direct(command, config, theirs1["state"])
    assert (ours2["records"], ours2["state"], ours2["failed"]) == (theirs2["records"], theirs2["state"], theirs2["failed"])
    assert json.loads(ours2["records"][-1])["thing"] == "recalibrated" and ours2["state"] != ours1["state"]
    record(SUITE, "identical")


@pytest.mark.parametrize("crash", ["killed_after_5_records", "api_fails_from_day_300"])
def test_senseforce__a_crash_mid_stream_lands_up_to_the_last_state_and_the_rerun_completes_once(
        crash, connector, api, home, tmp_path, clean):
    config = config_of(api)
    if crash.startswith("killed"):
        command = killing(tmp_path, connector, after=5)  # r5 is emitted, its window's STATE never is
    else:
        api.fail_from, command = ms(300), [str(connector)]
    crashed, theirs = ours(home, config, None, command), direct(command, config, None)
    assert crashed["failed"] and theirs["failed"]
    assert crashed["records"] == theirs["kept"] and crashed["state"] == theirs["state"]
    assert len(theirs["records"]) > len(theirs["kept"]) or crash.startswith("api"), "the crash came after the last STATE"
    assert crashed["records"] and len(crashed["records"]) < len(clean["records"])

    # the rerun: the connector unharmed, from the state each side kept
    api.fail_from = None
    rerun, judge = ours(home, config, crashed["carried"]), direct([str(connector)], config, theirs["state"])
    assert not rerun["failed"] and (rerun["records"], rerun["state"]) == (judge["records"], judge["state"])
    assert rerun["state"] == clean["state"]
    assert by_key(crashed["records"], rerun["records"]) == by_key(clean["records"]), "both runs make one clean sync"
    record(SUITE, "identical")
