"""What the deployment tests need to run the examples of the README and docs/ as a user would: their
code blocks, and their foreground commands (`sparkload cluster start`, `sparkload lakehouse serve`) as
real processes that are interrupted with Ctrl-C (SIGINT) and must leave no process and no open port behind.
"""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

import psutil

from python_extract.runtime.processes import descendants, port_open, process_command_line, started_at

from .paths import REPO

BIN = Path(sys.executable).parent


def readme_blocks(section: str) -> List[str]:
    """The fenced code blocks of the section titled `## <section>`, in order, from the one page of
    README.md and docs/*.md that has it."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found = [m.group(1) for m in (re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", p.read_text(), re.S | re.M)
                                  for p in pages) if m]
    assert len(found) == 1, f"README.md and docs/*.md have {len(found)} sections '## {section}'"
    return re.findall(r"^```\w*\n(.*?)^```", found[0], re.S | re.M)


def readme_block(section: str, first_line: str) -> str:
    """The block of `section` whose first line starts with `first_line` (e.g. `# packages.yml`)."""
    found = [b for b in readme_blocks(section) if b.startswith(first_line)]
    assert len(found) == 1, f"section '{section}' has {len(found)} blocks starting with {first_line!r}"
    return found[0]


def command_line(line: str, replace: Dict[str, str]) -> tuple:
    """A README command line as (argv, env): leading VAR=value words become the environment; each
    `replace` key (a port, a path) is swapped for its test value; `sparkload`/`python` come from this venv."""
    if replace:  # one pass, whole words only: a swapped-in path never gets swapped again
        pattern = "|".join(re.escape(k) for k in sorted(replace, key=len, reverse=True))
        line = re.sub(rf"(?<![\w.-])({pattern})(?![\w-])", lambda m: replace[m.group(1)], line)
    words = shlex.split(line)
    env = {}
    while words and re.match(r"^[A-Z_]+=", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    if words[0] in ("sparkload", "dbt"):
        words[0] = str(BIN / words[0])
    elif words[0] == "python":
        words[0] = sys.executable
    return words, env


def _descendants(pid: int) -> Set[int]:
    """Every live process below `pid` (children, their children, ...)."""
    return descendants(pid)


def alive(pid: int, start: Optional[float] = None) -> bool:
    """Whether `pid` is a live process (not a zombie, not a thread), and when `start` is given (what
    started_at said while it ran) still the same process, not a later one that got its id."""
    now = started_at(pid)
    return now is not None and (start is None or now == start)


def listeners(port: int) -> Set[int]:
    """The processes holding a listening TCP socket on `port` (any address)."""
    return {c.pid for c in psutil.net_connections(kind="tcp")
            if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid is not None}


def port_held_for(port: int, mark: str) -> bool:
    """Whether a process whose command line names `mark` (e.g. a lakehouse's home) listens on `port`, or
    something listens there whose owner cannot be read. A port the kernel gave since to an unrelated
    process (another pytest worker's server) does not count."""
    owners = listeners(port)
    if not owners:
        return False
    for pid in owners:
        cmdline = process_command_line(pid)
        if not cmdline or mark in cmdline:
            return True
    return False


class Foreground:
    """A README foreground command (`sparkload ... start|serve`) running as a real process."""

    def __init__(self, argv: Sequence[str], env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None):
        self.argv = list(argv)
        self.lines: List[str] = []
        self.popen = subprocess.Popen(
            self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            env={**os.environ, **(env or {})}, cwd=str(cwd) if cwd else None, start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.spawned: Set[int] = set()

    def _read(self) -> None:
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for_line(self, pattern: str, timeout: float) -> re.Match:
        """The first output line matching `pattern`; fails with the output if it exits or times out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                found = re.search(pattern, line)
                if found:
                    self.spawned |= _descendants(self.popen.pid)
                    return found
            if self.popen.poll() is not None:
                break
            time.sleep(0.3)
        raise AssertionError(f"{' '.join(self.argv)} printed no line matching {pattern!r}:\n" + "\n".join(self.lines[-40:]))

    def interrupt(self, timeout: float = 60.0) -> int:
        """Ctrl-C, as a user stops it; returns its exit code (SIGKILL to the group if it hangs)."""
        self.spawned |= _descendants(self.popen.pid)
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(10)
            raise AssertionError(f"{' '.join(self.argv)} ignored Ctrl-C for {timeout:.0f} s")

    def leftovers(self, ports: Sequence[int], host: str = "127.0.0.1") -> List[str]:
        """Processes it started that still run, and ports still open: both must be empty after `interrupt`."""
        deadline = time.monotonic() + 15.0
        while True:
            stray = [f"pid {p}" for p in sorted(self.spawned) if alive(p)]
            busy = [f"port {p}" for p in ports if port_open(host, p)]
            if not (stray or busy) or time.monotonic() > deadline:
                return stray + busy
            time.sleep(0.3)

    def kill(self) -> None:
        """Last resort for a failed test: the command's group, then what it started that still runs."""
        victims = _descendants(self.popen.pid) | {p for p in self.spawned if alive(p) and _is_spark(p)}
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.popen.wait(10)


def _is_spark(pid: int) -> bool:
    return "pyspark" in process_command_line(pid)
