"""The `sparkload` command: parses arguments, calls one library function, prints. A leaf: nothing
in the library imports it.

    sparkload lakehouse setup [--table-format iceberg]   cache the jars the format needs offline
    sparkload lakehouse check [--table-format delta]     say which format a session would get, and why
    sparkload demo [--home DIR]                          sample data -> extractor -> dbt run -> final table
"""
from __future__ import annotations

import argparse
import logging
import sys
from typing import List, Optional

from .lakehouse import LakehouseConfig, LakehouseConfigError


def _lakehouse_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="lakehouse directory (SPARKLOAD_HOME, default ./.sparkload)")
    p.add_argument("--table-format", choices=["auto", "delta", "iceberg"], help="SPARKLOAD_TABLE_FORMAT, default auto")
    p.add_argument("--jars-dir", help="directory with Delta jars (SPARKLOAD_JARS)")
    p.add_argument("--master", help="Spark master (SPARKLOAD_MASTER, default local[*])")


def _config(args: argparse.Namespace) -> LakehouseConfig:
    return LakehouseConfig.from_env(
        home=args.home, table_format=args.table_format, jars_dir=args.jars_dir, master=args.master
    )


def _cmd_setup(args: argparse.Namespace) -> int:
    from .lakehouse import provision

    for jar in provision(_config(args)):
        print(jar)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .lakehouse import choose_format

    choice = choose_format(_config(args))
    print(f"table format {choice.table_format}: {choice.reason}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo(_config(args))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sparkload", description="dlt-style incremental loading for Spark lakehouses")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    lake = sub.add_parser("lakehouse", help="the embedded Spark lakehouse").add_subparsers(dest="action", required=True)
    for name, fn, text in (("setup", _cmd_setup, "cache the jars of the table format"),
                           ("check", _cmd_check, "which table format a session gets, and why")):
        p = lake.add_parser(name, help=text)
        _lakehouse_args(p)
        p.set_defaults(func=fn)
    demo = sub.add_parser("demo", help="bundled sample data -> extractor -> dbt run -> final table")
    _lakehouse_args(demo)
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("py4j").setLevel(logging.WARNING)
    try:
        return args.func(args)
    except LakehouseConfigError as e:
        print(f"sparkload: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
