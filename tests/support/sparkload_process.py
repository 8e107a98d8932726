"""Helpers of the reliability tests: the `sparkload` command as a real process on the run's lakehouse,
and small source modules written next to the test (a gated source whose extraction waits for a file,
so a test can hold a writer in the middle of a run)."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .paths import REPO

BIN = Path(sys.executable).parent

GATED_SOURCE = '''
import time
from pathlib import Path

import python_extract as sl


@sl.source
def shop(gate: str = "", first: int = 0, rows: int = 5):
    """`rows` events with ids first..first+rows-1; with `gate`, extraction writes GATE/started and waits
    for GATE/release before yielding."""
    @sl.resource(primary_key="id")
    def events():
        if gate:
            Path(gate, "started").write_text("started")
            while not Path(gate, "release").exists():
                time.sleep(0.1)
        yield [{"id": n, "tags": [f"t{n}"]} for n in range(first, first + rows)]

    return events
'''


def write_source(folder: Path, text: str = GATED_SOURCE, name: str = "gated_source.py") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def env(home: Path, **extra: str) -> Dict[str, str]:
    return {**os.environ, "SPARKLOAD_HOME": str(home), "PYTHONPATH": str(REPO), **extra}


def sparkload(*args: str, home: Path, cwd: Optional[Path] = None, timeout: float = 600, **extra: str) -> subprocess.CompletedProcess:
    """`sparkload ARGS` as a process; stdout and stderr as text."""
    return subprocess.run([str(BIN / "sparkload"), *args], env=env(home, **extra), cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def start(*args: str, home: Path, cwd: Optional[Path] = None, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "sparkload"), *args], env=env(home, **extra), cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def on_a_terminal(*args: str, home: Path, cwd: Optional[Path] = None, answer: Optional[str] = None,
                  timeout: float = 600) -> Tuple[int, str]:
    """`sparkload ARGS` with a pseudo-terminal as stdin, stdout and stderr, typing `answer` once it asks
    (`[y/N] `); (exit code, everything the terminal showed, newlines as \\n)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([str(BIN / "sparkload"), *args], env=env(home), cwd=cwd, stdin=follower,
                               stdout=follower, stderr=follower)
    os.close(follower)
    shown, deadline = b"", time.monotonic() + timeout
    while time.monotonic() < deadline:
        if answer is not None and b"[y/N] " in shown:
            os.write(leader, answer.encode() + b"\n")
            answer = None
        if not select.select([leader], [], [], 1)[0]:
            continue
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return process.wait(timeout=60), shown.decode().replace("\r\n", "\n")


def wait_for(path: Path, process: Optional[subprocess.Popen] = None, timeout: float = 300) -> None:
    """Until `path` exists; fails early with the process's output if it ends first."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process is not None and process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(f"process ended ({process.returncode}) before {path} appeared:\n{out}\n{err}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {timeout:.0f} s")
        time.sleep(0.1)


def finish(process: subprocess.Popen, timeout: float = 600) -> subprocess.CompletedProcess:
    out, err = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def one_line(text: str) -> str:
    """The text, which must be exactly one line."""
    lines = text.splitlines()
    assert len(lines) == 1, f"expected one line, got {len(lines)}:\n{text[-3000:]}"
    return lines[0]


def column(spark, sql: str) -> List:
    return [r[0] for r in spark.sql(sql).collect()]
