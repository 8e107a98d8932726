"""How the servers tell a live process from a gone one (python_extract/runtime/processes.py): a zombie
is gone, a later process that got the same id is another process, and the wait ends when it is gone."""
from __future__ import annotations

import os
import signal
import subprocess

import pytest

from python_extract.runtime.processes import group_has_members, started_at, wait_gone

pytestmark = pytest.mark.fast


def test_started_at__a_live_process_has_a_start_a_zombie_and_a_missing_id_have_none():
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        start = started_at(child.pid)
        assert start is not None and started_at(child.pid) == start
        assert group_has_members(child.pid)
        assert not wait_gone(child.pid, start, timeout=0.3)  # still running: the wait gives up
        os.kill(child.pid, signal.SIGKILL)
        assert wait_gone(child.pid, start, timeout=30)  # a zombie (not reaped yet) is gone
        assert os.path.exists(f"/proc/{child.pid}") and started_at(child.pid) is None
        assert not group_has_members(child.pid)
    finally:
        child.kill()
        child.wait()
    assert started_at(child.pid) is None or started_at(child.pid) != start  # reaped: gone, or the id reused


def test_wait_gone__another_process_with_the_same_id_does_not_count():
    own = started_at(os.getpid())
    assert own is not None
    assert wait_gone(os.getpid(), own + 1, timeout=5)  # a different start: not the process waited for
    assert wait_gone(os.getpid(), None, timeout=5)  # nothing recorded: nothing to wait for


def _server(tmp_path, run_dir):
    """A stand-in server: ThriftServer's stop over a `sleep` in its own process group, its log in the run dir."""
    from python_extract.runtime.processes import RunDir, SparkProcess
    from python_extract.runtime.serve import ThriftServer

    files = RunDir.of(run_dir, prefix=f"{tmp_path}/run-")
    process = SparkProcess("stand-in server", ["sleep", "60"], files.path / "server.log")
    return ThriftServer("127.0.0.1", 0, "spark_catalog", process, run_dir=files), files.path


def test_run_dir__a_temporary_one_goes_when_its_server_is_stopped_a_given_one_stays(tmp_path):
    server, path = _server(tmp_path, None)
    assert path.parent == tmp_path and (path / "server.log").is_file()
    server.stop()
    assert not path.exists()

    given = tmp_path / "given"
    server, path = _server(tmp_path, given)
    server.stop()
    assert path == given and (given / "server.log").is_file()


def test_run_dir__stays_with_its_log_when_the_server_died_by_itself(tmp_path):
    server, path = _server(tmp_path, None)
    os.killpg(server.process.pgid, signal.SIGKILL)
    server.process.popen.wait()
    server.stop()
    assert (path / "server.log").is_file()
