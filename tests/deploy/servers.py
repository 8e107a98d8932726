"""Servers the test run shares: one Spark Thrift server over the session's lakehouse, started the first
time a test runs dbt over the wire, with the command of docs/deployments.md (`sparkload lakehouse serve`, section
"Thrift server") as a real foreground process, and stopped with Ctrl-C when the run ends; its port
and every process it started must then be gone. The run's watchdog guards the command's process group,
so the server also ends when the test run is killed.

`tests/conftest.py` imports these fixtures, so every test folder can use them.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from python_extract.servers.processes import free_port

from .commands import Foreground, command_line, readme_blocks


@dataclass
class RunningServer:
    host: str
    port: int
    log: Path


@pytest.fixture(scope="session")
def thrift_server(spark, lakehouse, tmp_path_factory, watchdog):
    # `spark` first: this process then owns the H2 catalog server and the thrift server joins it
    port = free_port()
    argv, env = command_line(readme_blocks("Thrift server")[0].strip(), {".sparkload": str(lakehouse.home), "10000": str(port)})
    command = Foreground(argv, env, cwd=tmp_path_factory.mktemp("thrift-server"))
    watchdog.guard_group(command.popen.pid)  # its own session: group id = pid
    try:
        ready = command.wait_for_line(r"thrift server listening on (\S+):(\d+) .*; log (\S+);", timeout=300)
    except BaseException:
        command.kill()
        raise
    server = RunningServer(ready.group(1), int(ready.group(2)), Path(ready.group(3)))
    os.environ["SPARKLOAD_THRIFT_HOST"] = server.host
    os.environ["SPARKLOAD_THRIFT_PORT"] = str(server.port)
    yield server
    assert command.interrupt() == 0, "\n".join(command.lines[-30:])
    assert command.leftovers([port]) == []
    assert not server.log.parent.exists(), f"the server's temporary run dir {server.log.parent} outlived it"
