"""Both table formats in one benchmark run: each format in a process of its own (one SparkSession, one
lakehouse per process), one after the other, each writing its figures as JSON for the parent to compare
(Delta ÷ Iceberg). Used by bench_merge, bench_extract and bench_maintenance."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

FORMATS = ("delta", "iceberg")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS),
                        help="table formats, each in a process of its own (default: both, then Delta ÷ Iceberg)")
    parser.add_argument("--json", help=argparse.SUPPRESS)  # a format's process writes its figures here


def run_each(script: str, formats: Sequence[str], argv: List[str], home: Optional[str] = None) -> Dict[str, dict]:
    """Runs `script` once per format with `argv` (its own options, without --formats/--json/--home), its
    output going to this process's; returns each format's figures."""
    figures = {}
    for fmt in formats:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            subprocess.run([sys.executable, script, *argv, "--formats", fmt, "--json", out.name,
                            *(["--home", str(Path(home) / fmt)] if home else [])], check=True)
            figures[fmt] = json.loads(Path(out.name).read_text())
    return figures


def write(path: Optional[str], figures: dict) -> None:
    if path:
        Path(path).write_text(json.dumps(figures))


def side_by_side(rows: List[tuple], unit: str = "s") -> None:
    """Prints (label, delta value, iceberg value) rows with Delta ÷ Iceberg."""
    width = max(len(r[0]) for r in rows) + 2
    print(f"  {'':<{width}}{'delta ' + unit:>12}{'iceberg ' + unit:>14}{'D ÷ I':>8}")
    for label, d, i in rows:
        print(f"  {label:<{width}}{d:>12.2f}{i:>14.2f}{d / i if i else float('nan'):>8.2f}")
