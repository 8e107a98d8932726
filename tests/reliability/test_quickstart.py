"""The README's Quickstart, run as written from an empty directory by the commands a user types (each a
real process: the extractor script, `sparkload dbt scaffold`, `dbt run`, `dbt show`) on a lakehouse of
its own, with no SPARKLOAD_* setting from this test run; then `dbt run` once more, which has nothing to
apply and says so."""
from __future__ import annotations

import os
import re
import shlex
import subprocess

import yaml

from ..support.doc_commands import BIN, command_line, readme_block, readme_blocks

QUICKSTART = "Quickstart (embedded lakehouse)"


def test_readme_quickstart__runs_as_written_from_an_empty_directory(tmp_path):
    shop = tmp_path / "shop"
    shop.mkdir()
    (shop / "extract.py").write_text(readme_block(QUICKSTART, "import python_extract"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARKLOAD_", "DBT_"))}
    env["PATH"] = f"{BIN}:{env['PATH']}"
    commands = [b for b in readme_blocks(QUICKSTART) if b.startswith("python extract.py")][0]
    outputs = []
    for line in commands.strip().splitlines():
        argv, extra = command_line(shlex.join(shlex.split(line, comments=True)), {})
        done = subprocess.run(argv, cwd=shop, env={**env, **extra}, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        outputs.append(done.stdout)

    model = readme_block(QUICKSTART, "-- models/shop_raw/customers.sql").split("\n", 1)[1]
    assert (shop / "models" / "shop_raw" / "customers.sql").read_text() == model
    profile = yaml.safe_load(readme_block(QUICKSTART, "# profiles.yml"))
    profile["shop"]["outputs"]["dev"]["lakehouse_dir"] = str(shop / ".sparkload")
    assert yaml.safe_load((shop / "profiles.yml").read_text()) == profile
    shown = outputs[-1]
    assert re.search(r"\|\s*1\s*\|\s*Ann\s*\|\s*Oslo\s*\|", shown), shown

    # `dbt run` again with no new load: each model says NO-OP after dbt's own "OK created"
    argv, extra = command_line("dbt run --profiles-dir .", {})
    again = subprocess.run(argv, cwd=shop, env={**env, **extra}, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stdout[-3000:]
    said = re.sub(r"\x1b\[[0-9;]*m", "", again.stdout)  # dbt's colours
    for model in ("customers", "customers__orders"):
        assert re.search(rf"OK created sql sparkload model analytics\.{model} \.* ?\[NO-OP: no pending loads in [\d.]+s\]",
                         said), said[-3000:]
        assert f"sparkload model {model} (table analytics.{model}): NO-OP: no pending loads; nothing changed." in said
