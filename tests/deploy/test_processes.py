"""How sparkload's long-running JVMs are started and stopped (python_extract/runtime/processes.py),
shown on small stand-in processes so that each case takes a second: stop ends the whole process group
and frees its port, escalates to SIGKILL, a process that dies early is reported with its log, and a
started process dies with the process that started it. The real JVMs are stopped the same way in
test_thrift/test_readme/test_cluster, which check their ports afterwards. And a pytest run killed with
SIGKILL while its thrift server runs leaves nothing behind: the run's watchdog ends the server."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from python_extract.runtime.processes import SparkProcess, SparkProcessError, free_port, port_open

from ..support.doc_commands import REPO, _descendants, alive, started_at

LISTEN = "import socket, time; s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen(); time.sleep(600)"
IGNORE_TERM = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); " + LISTEN


def _child_pids(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_stop__ends_the_whole_group_and_frees_the_port(tmp_path):
    port = free_port()
    # a shell that started a listener in the background: two processes in one group
    shell = f"{sys.executable} -c \"{LISTEN.format(port=port)}\" & wait"
    process = SparkProcess("listener", ["bash", "-c", shell], tmp_path / "listener.log")
    process.wait_for_port("127.0.0.1", port, timeout=30)
    listener = {p: started_at(p) for p in _child_pids(process.pid)}
    assert listener and all(alive(p, s) for p, s in listener.items())

    process.stop(ports=[port])

    assert not process.group_alive() and not any(alive(p, s) for p, s in listener.items())
    assert not port_open("127.0.0.1", port)


def test_stop__kills_what_ignores_sigterm(tmp_path):
    port = free_port()
    process = SparkProcess("stubborn", [sys.executable, "-c", IGNORE_TERM.format(port=port)], tmp_path / "stubborn.log")
    process.wait_for_port("127.0.0.1", port, timeout=30)

    started = time.monotonic()
    process.stop(grace=1.0, ports=[port])

    assert not process.group_alive() and process.popen.returncode == -9
    assert time.monotonic() - started < 10


def test_wait_for_port__reports_a_process_that_died_with_its_log(tmp_path):
    process = SparkProcess("broken", [sys.executable, "-c", "print('no such class'); raise SystemExit(3)"],
                           tmp_path / "broken.log")
    with pytest.raises(SparkProcessError, match=r"broken exited with code 3 .*\n.*no such class"):
        process.wait_for_port("127.0.0.1", free_port(), timeout=30)


def test_started_process__dies_with_the_process_that_started_it(tmp_path):
    port = free_port()
    starter = (
        "import sys; from pathlib import Path; from python_extract.runtime.processes import SparkProcess; "
        f"p = SparkProcess('orphan', [sys.executable, '-c', {LISTEN.format(port=port)!r}], Path({str(tmp_path)!r}) / 'o.log'); "
        f"p.wait_for_port('127.0.0.1', {port}, 30); print(p.pid, flush=True); import time; time.sleep(600)"
    )
    parent = subprocess.Popen([sys.executable, "-c", starter], stdout=subprocess.PIPE, text=True)
    orphan = int(parent.stdout.readline())
    orphan_start = started_at(orphan)
    assert alive(orphan, orphan_start)

    parent.kill()  # SIGKILL: no cleanup code runs in the parent
    parent.wait(10)

    deadline = time.monotonic() + 10
    while alive(orphan, orphan_start) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(orphan, orphan_start) and not port_open("127.0.0.1", port)


def test_killed_pytest__its_thrift_server_and_jvms_die_with_it(tmp_path):
    marker = tmp_path / "holding"
    env = {**os.environ, "SPARKLOAD_MARKER": str(marker), "SPARKLOAD_HOME": str(tmp_path / "lake")}
    env.pop("SPARKLOAD_DBT_TARGETS", None)
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(REPO),
                            "tests/support/killed_run_child.py"], cwd=REPO, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 600
    while not marker.exists():
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()[0][-3000:]
        time.sleep(0.5)
    port = int(marker.read_text().split()[0])
    # its Spark JVM, the `sparkload lakehouse serve` command and its JVM, with their start times (ids recycle)
    started = {p: started_at(p) for p in _descendants(run.pid)}
    assert port_open("127.0.0.1", port) and len(started) >= 3

    run.send_signal(signal.SIGKILL)
    run.wait(30)

    deadline = time.monotonic() + 120
    while (port_open("127.0.0.1", port) or any(alive(p, s) for p, s in started.items())) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not port_open("127.0.0.1", port)
    assert [p for p, s in started.items() if alive(p, s)] == []


@pytest.mark.parametrize("end, kept", [("told_to_stop", False), ("crashed", True)])
def test_server_that_ended_before_its_stop__run_dir_removed_when_told_to_stop_kept_when_crashed(tmp_path, end, kept):
    """A stop sent to every process of a service at once (systemd's default; the test run's watchdog) reaches
    the server before its supervisor's stop does: it was told to stop, so its temporary run dir goes. A
    server that crashed (exit 1) keeps its run dir, with the log its error names."""
    from python_extract.runtime.processes import RunDir
    from python_extract.runtime.serve import ThriftServer

    files = RunDir.of(None, prefix=f"{tmp_path}/run-")
    port = free_port()
    crash_on_usr1 = "import signal, sys; signal.signal(signal.SIGUSR1, lambda *_: sys.exit(1)); " + LISTEN.format(port=port)
    process = SparkProcess("server", [sys.executable, "-c", crash_on_usr1], files.path / "server.log")
    process.wait_for_port("127.0.0.1", port, timeout=30)
    os.killpg(process.pgid, signal.SIGTERM if end == "told_to_stop" else signal.SIGUSR1)
    assert process.popen.wait(10) == (-signal.SIGTERM if end == "told_to_stop" else 1)
    ThriftServer("127.0.0.1", port, "lake", process, run_dir=files).stop()
    assert files.path.exists() == kept
