"""Long-running Spark JVMs started from pyspark's own scripts (`bin/spark-submit`, `bin/spark-class`):
the thrift server (`serve.py`) and the standalone master and workers (`cluster.py`).

Each runs in its own process group with its output in a log file, dies with the process that started
it (Linux), is ready when its port accepts connections, and stops with its whole group: SIGTERM,
then SIGKILL after a grace period. `stop` verifies that nothing of the group is left and that the
port is free again.

Its files (logs, work directories) go to a run dir: the caller's, kept, or else a new temporary one
(`RunDir`), removed when its processes were stopped while running and are gone; kept, with the logs it
names, when one of them died by itself or did not stop.

`Watchdog` outlives whoever starts it: a separate process (`python -m python_extract.runtime.processes
watch`) that is told which process groups, processes and pid files to guard, and ends them all (SIGTERM,
then SIGKILL) when its owner dies, however it dies: the owner's end of its stdin pipe closes. The test
suite's servers are guarded by one, so a killed pytest leaves none behind.

Errors: `SparkProcessError` naming the process on its first line, the tail of its log below.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

import psutil

from ..errors import SparkloadError
from ..lakehouse.jars import pyspark_jars_dir

LOOPBACK = "127.0.0.1"
_PR_SET_PDEATHSIG = 1
# resolved here, not in the forked child: dlopen there could block on a lock another thread held
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


class SparkProcessError(SparkloadError):
    """A Spark process did not start, died, or did not stop."""
    exit_code = 1

    def summary(self) -> str:
        """The first line: the process, what happened, its log file."""
        return str(self).splitlines()[0].rstrip(":") if str(self) else ""


def spark_home() -> Path:
    """pyspark's installation, which is a complete Spark distribution (bin/, jars/)."""
    return pyspark_jars_dir().parent


def spark_script(name: str) -> str:
    return str(spark_home() / "bin" / name)


def free_port(host: str = LOOPBACK) -> int:
    """A port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    """True when something accepts connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def conf_args(conf: Mapping[str, str]) -> List[str]:
    """`--conf key=value` pairs for spark-submit."""
    args: List[str] = []
    for key, value in conf.items():
        args += ["--conf", f"{key}={value}"]
    return args


def _die_with_parent() -> None:
    # runs in the child before exec: the JVM gets SIGTERM when the starting process dies, even by SIGKILL
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


# for `subprocess`'s preexec_fn: a child that gets SIGTERM when the process that started it dies (None off Linux)
DIE_WITH_PARENT = _die_with_parent if _LIBC is not None else None


STOP_EXIT_CODES = frozenset({128 + signal.SIGTERM, 128 + signal.SIGINT, -signal.SIGTERM, -signal.SIGINT})


@dataclass
class RunDir:
    """Where a server's files go: `path`, removed by `remove_if_clean` only when it is a new temporary one."""
    path: Path
    temporary: bool

    @classmethod
    def of(cls, given: Optional[Path], prefix: str) -> "RunDir":
        if given is not None:
            return cls(Path(given), False)
        return cls(Path(tempfile.mkdtemp(prefix=prefix)), True)

    def remove_if_clean(self, processes: Sequence["SparkProcess"], were_running: bool) -> None:
        """Remove a temporary run dir once `processes`, all running until stopped, are gone."""
        if self.temporary and were_running and not any(p.group_alive() for p in processes):
            shutil.rmtree(self.path, ignore_errors=True)


class SparkProcess:
    """One Spark JVM (or another server process: the warm server's dbt) in its own process group, logging to `log`."""

    def __init__(self, name: str, cmd: Sequence[str], log: Path, env: Optional[Dict[str, str]] = None,
                 cwd: Optional[Path] = None, pass_fds: Sequence[int] = ()):
        self.name = name
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            self.popen = subprocess.Popen(
                list(cmd), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=str(cwd or log.parent), env={**os.environ, **(env or {})}, start_new_session=True,
                preexec_fn=DIE_WITH_PARENT, pass_fds=tuple(pass_fds),
            )
        self.pgid = self.popen.pid

    @property
    def pid(self) -> int:
        return self.popen.pid

    def running_or_told_to_stop(self) -> bool:
        """Running, or ended by SIGTERM/SIGINT (a JVM exits 128 + the signal after its shutdown hooks):
        told to stop, as when a stop reaches every process of a service at once (systemd's default, the
        test run's watchdog), rather than crashed, whose run dir and log are kept."""
        code = self.popen.poll()
        return code is None or code in STOP_EXIT_CODES

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def group_alive(self) -> bool:
        """True while the leader runs or another live process of the group exists (zombies do not count)."""
        if self.popen.poll() is None:
            return True
        return group_has_members(self.pgid)

    def wait_for_port(self, host: str, port: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise SparkProcessError(
                    f"{self.name} exited with code {self.popen.returncode} before listening on {host}:{port}; "
                    f"log {self.log}:\n{self.log_tail()}"
                )
            if port_open(host, port):
                return
            time.sleep(0.3)
        raise SparkProcessError(f"{self.name} did not listen on {host}:{port} within {timeout:.0f} s; log {self.log}:\n{self.log_tail()}")

    def stop(self, grace: float = 30.0, ports: Sequence[int] = (), host: str = LOOPBACK) -> None:
        """Stop the whole group (SIGTERM, then SIGKILL after `grace` s); raise unless it and its ports are gone."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
            if not self.group_alive():
                break
            try:
                os.killpg(self.pgid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while self.group_alive() and time.monotonic() < deadline:
                time.sleep(0.2)
        if self.group_alive():
            raise SparkProcessError(f"{self.name} (process group {self.pgid}) survived SIGKILL")
        # the kernel closes a dead JVM's sockets a moment after its last thread exits
        deadline = time.monotonic() + 10.0
        busy = [p for p in ports if port_open(host, p)]
        while busy and time.monotonic() < deadline:
            time.sleep(0.2)
            busy = [p for p in busy if port_open(host, p)]
        if busy:
            raise SparkProcessError(f"{self.name} stopped but ports {busy} on {host} still accept connections")


def _live(pid: int) -> Optional[psutil.Process]:
    """The live process `pid`, or None: gone, a zombie, or the id of a thread (a JVM's thread ids share the
    pid space, so ids come round within minutes)."""
    try:
        if not psutil.pid_exists(pid):  # on Linux: a process, not a thread of another one
            return None
        process = psutil.Process(pid)
        return None if process.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD) else process
    except psutil.Error:
        return None


def started_at(pid: int) -> Optional[float]:
    """When the live process `pid` started (psutil's creation time); None when no live process has that
    id (gone, or a zombie). A process that is exiting is still live here: its command line already reads
    empty while its threads and memory are torn down, which can take seconds for a JVM. Compare two
    answers to tell a process from a later one that got its id."""
    process = _live(pid)
    try:
        return None if process is None else process.create_time()
    except psutil.Error:
        return None


def process_command_line(pid: int) -> str:
    """The command line of process `pid`, words joined by spaces; empty when it is gone or a zombie."""
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return ""


def wait_gone(pid: int, start: Optional[int], timeout: float) -> bool:
    """Wait up to `timeout` s until the process `pid` that started at `start` (`started_at`) is gone;
    whether it is."""
    deadline = time.monotonic() + timeout
    while start is not None and started_at(pid) == start:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def group_has_members(pgid: int) -> bool:
    """Whether a live (non-zombie) process of group `pgid` exists."""
    return any(group == pgid for _, group in _live_processes().values())


def _live_processes() -> Dict[int, tuple]:
    """{pid: (parent pid, process group)} of every live (non-zombie) process."""
    found = {}
    for process in psutil.process_iter(["ppid", "status"]):
        if process.info["status"] in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
            continue
        try:
            found[process.pid] = (process.info["ppid"], os.getpgid(process.pid))
        except OSError:  # gone meanwhile
            continue
    return found


def descendants(pid: int) -> set:
    """Every live process below `pid` (children, their children, ...)."""
    live = _live_processes()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, (parent, _) in live.items() if parent in frontier} - found
        found |= frontier
    return found


def _guarded_pids(groups: set, pids: set, pidfiles: set) -> set:
    """The guarded processes now: members of the groups, the pids, the pids in the files, and every
    descendant of those."""
    live = _live_processes()
    roots = {p for p, (_, group) in live.items() if group in groups} | {p for p in pids if p in live}
    for path in pidfiles:
        try:
            roots.add(int(Path(path).read_text().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
    found, frontier = set(), roots & set(live)
    while frontier:
        found |= frontier
        frontier = {p for p, (parent, _) in live.items() if parent in frontier} - found
    return found


def _signal_all(sig: int, groups: set, pids: set) -> None:
    for group in groups:
        try:
            os.killpg(group, sig)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _watch(grace: float = 15.0) -> None:
    """The watchdog process: read `group|pid|pidfile [-]VALUE` lines until EOF, then end what is guarded."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C for the test run is not for the watchdog
    guarded: Dict[str, set] = {"group": set(), "pid": set(), "pidfile": set()}
    for line in sys.stdin:
        kind, _, value = line.strip().partition(" ")
        if kind in guarded and value:
            target = guarded[kind]
            if value.startswith("-"):
                target.discard(value[1:] if kind == "pidfile" else int(value[1:]))
            else:
                target.add(value if kind == "pidfile" else int(value))
    groups = {int(g) for g in guarded["group"]}
    victims = _guarded_pids(groups, guarded["pid"], guarded["pidfile"])
    if not victims:
        return
    _signal_all(signal.SIGTERM, groups, victims)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and victims & set(_live_processes()):
        time.sleep(0.2)
    _signal_all(signal.SIGKILL, groups, victims & set(_live_processes()))


class Watchdog:
    """A handle on a watchdog process (module docstring): `guard_group(pgid)`, `guard_pid(pid)`,
    `guard_pidfile(path)`; `close()` ends what is still guarded and the watchdog."""

    def __init__(self) -> None:
        self.popen = subprocess.Popen([sys.executable, "-m", "python_extract.runtime.processes", "watch"],
                                      stdin=subprocess.PIPE, text=True, start_new_session=True,
                                      cwd=str(Path(__file__).resolve().parents[2]))

    def _say(self, line: str) -> None:
        self.popen.stdin.write(line + "\n")
        self.popen.stdin.flush()

    def guard_group(self, pgid: int) -> None:
        self._say(f"group {pgid}")

    def guard_pid(self, pid: int) -> None:
        self._say(f"pid {pid}")

    def guard_pidfile(self, path: Path) -> None:
        self._say(f"pidfile {path}")

    def release_group(self, pgid: int) -> None:
        self._say(f"group -{pgid}")

    def close(self, timeout: float = 60.0) -> None:
        self.popen.stdin.close()
        self.popen.wait(timeout)


def run_until_interrupted(handle) -> int:
    """Block on `handle.wait()` until it returns or SIGINT/SIGTERM arrives, then always `handle.stop()`.

    The exit code of a foreground command: 0 when interrupted, else the code the process exited with.
    """
    def _interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return handle.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        handle.stop()


if __name__ == "__main__" and sys.argv[1:] == ["watch"]:
    _watch()
