"""Run by test_processes.py in a pytest of its own, which it then SIGKILLs: a test that holds the run's
thrift server and says so by writing its port and pid to the file in $SPARKLOAD_MARKER."""
from __future__ import annotations

import os
import time
from pathlib import Path


def test_hold_the_thrift_server(thrift_server):
    Path(os.environ["SPARKLOAD_MARKER"]).write_text(f"{thrift_server.port} {os.getpid()}")
    time.sleep(900)
