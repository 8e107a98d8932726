"""Servers the test run shares: one Spark Thrift server over the session's lakehouse, started the first
time a test runs dbt over the wire, with the command of docs/deployments.md (`sparkload lakehouse serve`, section
"Thrift server") as a real foreground process, and stopped with Ctrl-C when the run ends; its port
and every process it started must then be gone. The run's watchdog guards the command's process group,
so the server also ends when the test run is killed. Likewise one Spark Connect server (`connect_server`,
section "Spark Connect": `sparkload lakehouse serve --connect`), for dbt's `method: connect`.

`tests/conftest.py` imports these fixtures, so every test folder can use them.
"""
from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest

from python_extract.runtime.processes import free_port

from .doc_commands import Foreground, command_line, readme_blocks


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


class ConnectServer:
    """The docs' `serve --connect` command (section "Spark Connect"), running at `port` over `lakehouse`."""

    def __init__(self, lakehouse, port: int, cwd: Path, watchdog):
        argv, env = command_line(readme_blocks("Spark Connect")[0].strip(), {".sparkload": str(lakehouse.home), "15002": str(port)})
        self.host, self.port = "127.0.0.1", port
        self.command = Foreground(argv, env, cwd=cwd)
        watchdog.guard_group(self.command.popen.pid)
        try:
            self.command.wait_for_line(r"Spark Connect server at sc://127\.0\.0\.1:(\d+) ", timeout=300)
        except BaseException:
            self.command.kill()
            raise

    def stop(self) -> None:
        """Ctrl-C, as a user stops it: it must exit 0 and leave no process or port behind."""
        assert self.command.interrupt() == 0, "\n".join(self.command.lines[-30:])
        assert self.command.leftovers([self.port]) == []

    def kill(self) -> None:
        """SIGKILL to the command's process group: its JVM dies with it, leaving no process or port behind."""
        os.killpg(self.command.popen.pid, signal.SIGKILL)
        assert self.command.leftovers([self.port]) == []


@pytest.fixture(scope="session")
def connect_server(spark, lakehouse, tmp_path_factory, watchdog):
    # `spark` first: this process then owns the lakehouse's H2 catalog server and the Connect server joins it
    server = ConnectServer(lakehouse, free_port(), tmp_path_factory.mktemp("connect-server"), watchdog)
    yield server
    server.stop()
