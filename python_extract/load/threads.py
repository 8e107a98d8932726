"""The load stage's threads: independent Spark statements of one step sent at once (a load's commits to
different tables, the state and schema a run starts from). Each mostly waits on its own commit or
catalog lookup, so they overlap even on a small driver.

The threads are kept for the process: under PySpark's pinned-thread mode (the default) each Python thread
has a JVM thread and a gateway connection of its own, which a fresh pool per step would open again."""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Dict, Optional

THREADS = 4
_pool: Optional[ThreadPoolExecutor] = None
_lock = threading.Lock()


def _forget() -> None:
    """In a forked child: its parent's threads are not there, so a pool of its own is started on first use."""
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget)


def submit(call: Callable[[], Any]) -> Future:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="sparkload-load")
        return _pool.submit(call)


def at_once(calls: Dict[str, Callable[[], Any]]) -> Dict[str, Any]:
    """{name: result} of the calls, run at once; once all have finished, the first failure (in the
    calls' order) is raised."""
    futures = {name: submit(call) for name, call in calls.items()}
    for future in futures.values():
        future.exception()  # waits
    for future in futures.values():
        if future.exception() is not None:
            raise future.exception()
    return {name: future.result() for name, future in futures.items()}
