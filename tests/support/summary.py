"""A pytest plugin (loaded by tests/conftest.py): the closing lines of the run's summary, by section title
("" for lines without one). A folder's conftest adds them at the end of its session (`add_summary`); under
xdist each worker hands its own to the controller, which prints them all."""
from __future__ import annotations

from typing import Dict, List, Sequence

import pytest

SUMMARIES: Dict[str, List[str]] = {}


def add_summary(config, section: str, lines: Sequence[str]) -> None:
    """Print `lines` under `section` at the end of the run (from a worker too)."""
    if hasattr(config, "workeroutput"):  # an xdist worker: its terminal summary is the controller's
        config.workeroutput.setdefault("summaries", {}).setdefault(section, []).extend(lines)
    else:
        SUMMARIES.setdefault(section, []).extend(lines)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for section, lines in getattr(node, "workeroutput", {}).get("summaries", {}).items():
        SUMMARIES.setdefault(section, []).extend(lines)


def pytest_terminal_summary(terminalreporter):
    for section, lines in SUMMARIES.items():
        if section:
            terminalreporter.section(section)
        for line in lines:
            terminalreporter.write_line(line)
