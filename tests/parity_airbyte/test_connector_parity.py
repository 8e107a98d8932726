"""A second real connector from PyPI beside airbyte-source-faker, judged by the CDK: airbyte-source-hardcoded-records
0.0.48 (Airbyte's own sample-data source: three streams of fixed records, `count` each, with nested objects and
lists; chosen because it needs no external API and no server, so the judge runs offline and fast, and its
`check` fails on a bad config, which sparkload runs before a sync).

The same config goes through sparkload's `airbyte` source (the connector installed from PyPI into its own
environment, spoken to over the Airbyte protocol, read through the real extractor; the packages read back
from disk, no Spark) and through the connector's own code in process on airbyte-cdk 7 (its wheel on the
path, the CDK's test entrypoint). Compared: each stream's records as landed (nested objects as `a__b`,
lists as child tables), and `check`'s verdict and message. The streams are full refresh, so no state."""
from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
import uuid
import zipfile
from pathlib import Path
from typing import Any, Dict, List

import pytest

pytest.importorskip("airbyte_cdk", reason="the judge: pip install 'airbyte-cdk>=7,<8'")

import pyarrow.parquet as pq  # noqa: E402

from python_extract.extract.extractor import Extractor  # noqa: E402
from python_extract.hooks import Hooks  # noqa: E402
from python_extract.normalize import Schema  # noqa: E402
from python_extract.packages import PackageStorage  # noqa: E402
from python_extract.sources.airbyte.connector import ConnectorError, install  # noqa: E402
from python_extract.sources.registry import get_plugin, resolve_config  # noqa: E402
from python_extract.state import new_state  # noqa: E402

from ..support import airbyte_manifests as manifests  # noqa: E402
from ..support.tally import record_vs_airbyte as record  # noqa: E402

PACKAGE, VERSION = "airbyte-source-hardcoded-records", "0.0.48"
VENVS = Path(os.environ.get("SPARKLOAD_CONNECTORS_CACHE", Path.home() / ".cache" / "sparkload" / "connectors"))
STREAMS = ["products", "customers", "dummy_fields"]


@pytest.fixture(scope="module")
def connector() -> Path:
    """The connector's executable, installed once per machine into its own environment (as faker's)."""
    return install(PACKAGE, VENVS, VERSION)


@pytest.fixture(scope="module")
def judge():
    """The connector's source class from its wheel, run in process by the CDK installed here."""
    wheel = manifests.wheel(f"{PACKAGE}=={VERSION}")
    unpacked = wheel.with_suffix("")  # the CDK's package-file lookups need files, not a zip import
    if not unpacked.exists():
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(unpacked)
    sys.path.insert(0, str(unpacked))
    try:
        from source_hardcoded_records.source import SourceHardcodedRecords

        yield SourceHardcodedRecords()
    finally:
        sys.path.remove(str(unpacked))


def canon(value: Any) -> Any:
    """A landed value and a record's value alike: a timestamp as UTC ISO text, a row as its sorted JSON."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if value.tzinfo else value.isoformat()
    return value


def root_row(record: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    """A record as its root row: nested objects as `a__b`, lists left to child tables, no None, no `_dlt_*`."""
    out: Dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(root_row(value, f"{prefix}{key}__"))
        elif value is not None and not isinstance(value, list) and not key.startswith("_dlt_"):
            out[f"{prefix}{key}"] = canon(value)
    return out


def rows(records: List[Dict[str, Any]]) -> List[str]:
    return sorted(json.dumps(root_row(r), sort_keys=True) for r in records)


def cdk_read(source, config: Dict[str, Any]) -> Dict[str, List[str]]:
    from airbyte_cdk.models import SyncMode
    from airbyte_cdk.test.catalog_builder import CatalogBuilder, ConfiguredAirbyteStreamBuilder
    from airbyte_cdk.test.entrypoint_wrapper import read

    logging.getLogger("airbyte").setLevel(logging.CRITICAL)
    builder = CatalogBuilder()
    for name in STREAMS:
        builder.with_stream(ConfiguredAirbyteStreamBuilder().with_name(name).with_sync_mode(SyncMode.full_refresh))
    out = read(source, config, builder.build())
    assert not out.errors, out.errors
    return {name: rows([m.record.data for m in out.records if m.record.stream == name]) for name in STREAMS}


def cdk_check(source, config: Dict[str, Any], tmp_path: Path) -> Dict[str, Any]:
    from airbyte_cdk.test.entrypoint_wrapper import _run_command  # the CDK's own runner of `check`

    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    out = _run_command(source, ["check", "--config", str(path)])
    (status,) = out.connection_status_messages
    return {"status": status.connectionStatus.status.value, "message": status.connectionStatus.message}


def sparkload_read(home: Path, config: Dict[str, Any]) -> Dict[str, List[str]]:
    plugin = get_plugin("airbyte")
    source = plugin.build(resolve_config(plugin, {"package": PACKAGE, "version": VERSION, "venvs_dir": str(VENVS),
                                                  "config": config}), "hardcoded")
    extractor = Extractor(PackageStorage(home / uuid.uuid4().hex), "parity", Schema("parity"), new_state("parity"),
                          Hooks(), default_source="hardcoded")
    extractor.extract(list(source.resources.values()))
    landed: Dict[str, List[Dict[str, Any]]] = {name: [] for name in STREAMS + ["customers__addresses"]}
    for package in extractor.sealed:
        for name in landed:
            folder = package.table_dir(name)
            if folder.exists():
                landed[name] += [row for part in sorted(folder.glob("*.parquet")) for row in pq.read_table(part).to_pylist()]
    assert len(landed["customers__addresses"]) == config["count"], "each customer's one address, as a child row"
    return {name: rows(landed[name]) for name in STREAMS}


def test_hardcoded_records__lands_every_stream_as_the_cdk_reads_it(connector, judge, home):
    config = {"count": 3}
    theirs, ours = cdk_read(judge, config), sparkload_read(home, config)
    assert [len(theirs[name]) for name in STREAMS] == [3, 3, 3]
    assert ours == theirs
    record("second PyPI connector (hardcoded-records)", "identical")


def test_hardcoded_records__a_check_the_connector_fails_is_one_line_with_its_message_before_any_read(
        connector, judge, home, tmp_path):
    config = {"count": "many"}
    verdict = cdk_check(judge, config, tmp_path)
    assert verdict["status"] == "FAILED" and verdict["message"]
    plugin = get_plugin("airbyte")
    with pytest.raises(ConnectorError) as failure:
        plugin.build(resolve_config(plugin, {"package": PACKAGE, "venvs_dir": str(VENVS), "config": config}), "hardcoded")
    assert str(failure.value).startswith(f"source-hardcoded-records check failed: {verdict['message']}; nothing was read")
    record("second PyPI connector (hardcoded-records)", "identical")
