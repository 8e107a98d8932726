"""The load stage's threads (python_extract/load/threads.py): calls run at once, results by name, and the
first failure in the calls' order raised only once every call has finished (a load's other commits are
never cut off half way)."""
from __future__ import annotations

import os
import threading
import time

import pytest

from python_extract.load import threads

pytestmark = pytest.mark.fast


def test_at_once__runs_the_calls_together_and_returns_each_result_by_name():
    both = threading.Barrier(2, timeout=30)  # passes only if the two calls run at the same time
    assert threads.at_once({"a": lambda: both.wait() * 0 + 1, "b": lambda: both.wait() * 0 + 2}) == {"a": 1, "b": 2}


def test_at_once__raises_the_first_failure_in_order_after_every_call_finished():
    finished = []

    def slow_ok():
        time.sleep(0.3)
        finished.append("slow")

    def fails(message):
        def call():
            raise ValueError(message)
        return call

    with pytest.raises(ValueError, match="^first$"):
        threads.at_once({"slow": slow_ok, "x": fails("first"), "y": fails("second")})
    assert finished == ["slow"]


def test_a_forked_child__runs_calls_on_threads_of_its_own():
    threads.at_once({"parent": lambda: 1})  # the parent's pool exists before the fork
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are gone; without a pool of its own the call never runs
        try:
            os._exit(0 if threads.at_once({"child": lambda: 7}) == {"child": 7} else 1)
        finally:
            os._exit(2)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's call never ran")
