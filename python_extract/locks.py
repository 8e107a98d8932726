"""One writer per pipeline: an exclusive lock on `<pipeline working dir>/writer.lock`.

Every operation that writes a pipeline's packages or lands them (`Pipeline.run`, `load`, `reset`, and
so `sparkload run`, `pipeline reset|drop`) holds it. The lock is the kernel's (`flock`), so it is
released when its holder dies, however it dies; the file also records the holder (pid, host, command,
since when) for the message a second writer gets:

    sparkload: pipeline shop is being written by pid 4242 on host etl-1 (sparkload run shop.yaml) since
    2026-11-23 12:20:01 UTC (lock .../shop/writer.lock); wait for it to finish or pass --wait SECONDS

A lock file with a holder recorded but no kernel lock held is stale (its holder was killed): it is taken
over and the takeover logged. Holders are only trustworthy on one host or a file system with working
`flock` (local disks, NFSv4).

Errors: `PipelineLocked` (another writer holds it and the wait ran out); `LocalStateError` (the working
directory cannot be written).
"""
from __future__ import annotations

import datetime as dt
import fcntl
import json
import logging
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Dict, Optional

from .errors import PipelineLocked, from_os_error

log = logging.getLogger("sparkload.lock")
LOCK_FILE = "writer.lock"


def _describe(holder: Dict[str, Any]) -> str:
    if not holder:
        return "another process (it recorded no details yet)"
    since = holder.get("since", "?")
    command = f" ({holder['command']})" if holder.get("command") else ""
    text = f"pid {holder.get('pid')} on host {holder.get('host')}{command} since {since}"
    if holder.get("host") == socket.gethostname() and not _pid_alive(holder.get("pid")):
        text += ", which is no longer running: a process it started still holds the lock"
    return text


def _pid_alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError):
        return False
    return True


class PipelineLock:
    """Re-entrant within one object: nested `hold()`s of the same object take the lock once."""

    def __init__(self, working_dir: Path, pipeline_name: str):
        self.path = Path(working_dir) / LOCK_FILE
        self.pipeline_name = pipeline_name
        self._fd: Optional[int] = None
        self._depth = 0

    def holder(self) -> Dict[str, Any]:
        """Who holds (or last held, if it died holding) the lock; {} when nobody."""
        try:
            text = self.path.read_text()
            return json.loads(text) if text.strip() else {}
        except (OSError, ValueError):
            return {}

    def acquire(self, wait: float = 0.0) -> None:
        """Take the lock, waiting up to `wait` seconds for its holder to finish."""
        if self._depth:
            self._depth += 1
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise from_os_error(e, "--pipelines-dir") from e
        deadline = time.monotonic() + max(wait, 0.0)
        announced = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = self.holder()
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise PipelineLocked(self.pipeline_name, self.path, _describe(holder)) from None
                if not announced:
                    log.warning("pipeline %s is being written by %s; waiting up to %.0f s",
                                self.pipeline_name, _describe(holder), wait)
                    announced = True
                time.sleep(min(0.5, max(deadline - time.monotonic(), 0.01)))
        stale = self.holder()
        if stale:
            log.warning("pipeline %s: took over the lock of %s, which ended without releasing it",
                        self.pipeline_name, _describe(stale).split(", which")[0])
        me = {"pid": os.getpid(), "host": socket.gethostname(), "command": " ".join(sys.argv)[:200],
              "since": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(me).encode(), 0)
        except OSError as e:
            os.close(fd)
            raise from_os_error(OSError(e.errno, e.strerror, str(self.path)), "--pipelines-dir") from e
        self._fd, self._depth = fd, 1

    def release(self) -> None:
        if not self._depth:
            return
        self._depth -= 1
        if self._depth:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)  # an empty file: released cleanly (a recorded holder means it died holding)
        except OSError:
            pass
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> "PipelineLock":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
