"""Fast tier (no JVM, no network): an Airbyte connector asked for by two test workers at once on a fresh
machine is installed once; the second waits on the install lock, then finds the executable."""
from __future__ import annotations

import threading
import time

from python_extract.sources.airbyte import connector


def test_install__two_callers_at_once_install_the_connector_once(tmp_path, monkeypatch):
    installs = []

    def slow_install(package, home, executable, version):
        installs.append(package)
        time.sleep(0.3)  # long enough for the other caller to reach the lock
        executable.parent.mkdir(parents=True)
        executable.write_text("#!/bin/sh\n")
        return executable

    monkeypatch.setattr(connector, "_install", slow_install)
    found = []
    callers = [threading.Thread(target=lambda: found.append(connector.install("airbyte-source-x", tmp_path)))
               for _ in range(2)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert installs == ["airbyte-source-x"]
    assert found == [tmp_path / "airbyte-source-x" / "bin" / "source-x"] * 2
