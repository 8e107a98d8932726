"""How the servers tell a live process from a gone one (python_extract/servers/processes.py): a zombie
is gone, a later process that got the same id is another process, and the wait ends when it is gone."""
from __future__ import annotations

import os
import signal
import subprocess

from python_extract.servers.processes import group_has_members, started_at, wait_gone


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
