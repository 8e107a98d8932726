"""What the real `sparkload run` process shows while it works (issue 19, items 4 and 6): progress on a
terminal (a pseudo-terminal) counts a slow resource's rows while it runs, each resource with
its own clock and its own tables, a rate only once a second has passed and never faster than the
source can yield, on one line redrawn in place (rich); off a terminal no progress at all; `-v` adds the
library's INFO log, which a run without it does not show."""
from __future__ import annotations

import re

import pytest

from ..support.sparkload_process import on_a_terminal, sparkload, write_source

SOURCE = '''
import time

import python_extract as sl


@sl.source
def shop(pages: int = 6):
    @sl.resource(primary_key="id")
    def slow():
        for page in range(pages):
            time.sleep(0.5)  # an API page every half second
            yield [{"id": page * 10 + n, "tags": ["a"]} for n in range(10)]

    @sl.resource(primary_key="id")
    def fast():
        yield [{"id": n, "tags": ["b"]} for n in range(10)]

    return slow, fast
'''
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LINE = re.compile(r"^extract (\w+): ([\d,]+) rows?(?: \(([^)]*)\))? \| ([\d,]+) pages?(?: \| ([\d,]+) rows/s)?$")


def test_progress__a_slow_resource_counts_while_it_runs_and_every_rate_is_one_the_source_allows(tmp_path, names):
    write_source(tmp_path, SOURCE, "shop.py")
    code, shown = on_a_terminal("run", "shop.py:shop", "--pipeline-name", names.staging, home=tmp_path / "lake", cwd=tmp_path)
    assert code == 0, shown[-3000:]
    screen = ANSI.sub("", shown)  # rich's live line: hide/show the cursor, erase the line before each refresh
    lines = [part for line in screen.splitlines() for part in line.split("\r") if part.strip()]
    extract = [LINE.match(line) for line in lines if line.startswith("extract ")]
    assert all(extract), [line for line in lines if line.startswith("extract ")]
    slow = [m for m in extract if m.group(1) == "slow"]
    fast = [m for m in extract if m.group(1) == "fast"]
    number = lambda text: int(text.replace(",", ""))  # noqa: E731
    # the slow resource: shown from its start, counting pages while it runs, its last count complete
    assert slow[0].group(0) == "extract slow: 0 rows | 0 pages"
    assert any(0 < number(m.group(4)) < 6 for m in slow), [m.group(0) for m in slow]
    assert slow[-1].group(2, 3, 4) == ("120", "slow 60, slow__tags 60", "6")
    # a rate only after a second, and never above what half a second per page allows
    assert slow[-1].group(5) is not None
    for m in slow:
        rows, pages, rate = number(m.group(2)), number(m.group(4)), m.group(5)
        if rate is not None:
            assert pages >= 2 and number(rate) <= rows / (0.5 * pages) + 1, m.group(0)
    # the fast resource: its own tables (not the load's), no rate from the slow one's clock
    assert fast[-1].group(2, 3, 4) == ("20", "fast 10, fast__tags 10", "1"), fast[-1].group(0)
    assert fast[-1].group(5) is None or number(fast[-1].group(5)) <= 20, fast[-1].group(0)
    assert "\x1b[2K" in shown  # one line redrawn in place, not a line per refresh
    assert not re.search(r"\brows? rows\b", shown)
    assert "load " in shown and "complete" in shown
    assert f"pipeline {names.staging}: 1 load(s)" in shown and "(140 rows: slow 60, slow__tags 60, fast 10, fast__tags 10)" in shown
    assert "INFO " not in shown  # no library log without -v


@pytest.mark.extended  # the log level's switch; the progress test above runs the same command line
def test_verbose__a_run_that_succeeds_shows_the_info_log_and_no_progress_off_a_terminal(tmp_path, names):
    write_source(tmp_path, SOURCE, "shop.py")
    done = sparkload("run", "shop.py:shop", "--arg", "pages=1", "--pipeline-name", names.staging, "-v",
                     home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\nextract " not in done.stderr and "\x1b[" not in done.stderr  # stderr is a pipe: no progress
    assert re.search(rf"^INFO sparkload.pipeline: pipeline {names.staging} loaded \S+ into {names.staging}_dataset",
                     done.stderr, re.M), done.stderr[-3000:]
    assert "INFO sparkload.lakehouse: sparkload lakehouse: table format" in done.stderr
