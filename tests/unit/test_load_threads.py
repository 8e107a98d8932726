"""The load stage's threads (python_extract/load/threads.py): calls run at once, results by name, and the
first failure in the calls' order raised only once every call has finished (a load's other commits are
never cut off half way)."""
from __future__ import annotations

import threading
import time

import pytest

from python_extract.load import threads


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
