"""An Airbyte connector's own temporary files (python_extract/sources/airbyte/connector.py): a connector is
run with TMPDIR inside the command's private folder, so what it writes there (airbyte-cdk writes a copy of
the config, secrets included) goes with that folder, also when the connector dies before cleaning up."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

from python_extract.sources.airbyte.connector import Connector

pytestmark = pytest.mark.fast

# a stand-in connector: makes a temporary folder with a config in it (never removed), says where, then writes
# records until its reader goes away (it dies of the broken pipe, as a connector stopped mid-read)
CONNECTOR = """
import json, sys, tempfile
folder = tempfile.mkdtemp()
open(folder + "/config.json", "w").write("s3cr3t")
while True:
    print(json.dumps({"type": "RECORD", "record": {"stream": "s", "data": {"tmp": folder}, "emitted_at": 0}}), flush=True)
"""


def test_connector__its_own_temporary_files_go_with_the_commands_folder_when_it_is_stopped(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    reading = Connector([sys.executable, "-c", CONNECTOR], {"secret": "s3cr3t"}).messages("read", files={"config": {}})
    made = Path(next(reading)["record"]["data"]["tmp"])
    assert made.parent.parent == scratch and (made / "config.json").read_text() == "s3cr3t"
    reading.close()  # the caller stops early: the connector dies on its next write
    assert not made.exists() and list(scratch.iterdir()) == []
