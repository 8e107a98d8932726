"""The `sparkload` command: parses arguments, calls one library function, prints. A leaf: nothing
in the library imports it.

    sparkload lakehouse setup [--table-format iceberg]   cache the jars the format needs offline
    sparkload lakehouse check [--table-format delta]     say which format a session would get, and why
    sparkload demo [--home DIR]                          sample data -> extractor -> dbt run -> final table
    sparkload run TARGET | sparkload pipeline {info,loads,reset,drop} NAME   the extractor (cli_pipeline.py)
    sparkload lakehouse serve [--port 10000]             the Spark Thrift server over the lakehouse (foreground)
    sparkload cluster start [--workers 2]                a Spark standalone master + workers on this machine (foreground)
"""
from __future__ import annotations

import argparse
import logging
import sys
from typing import List, Optional

from .cli_pipeline import add_pipeline_commands
from .cli_sources import add_source_commands
from .lakehouse import LakehouseConfig, LakehouseConfigError
from .lakehouse.processes import SparkProcessError


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


def _spark_conf_pair(text: str):
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--conf expects KEY=VALUE, got {text!r}")
    return key, value


def _cmd_serve(args: argparse.Namespace) -> int:
    from .lakehouse.processes import run_until_interrupted
    from .lakehouse.serve import start_thrift_server

    config = _config(args)
    config = config.with_(spark_conf={**config.spark_conf, **dict(args.conf)})
    server = start_thrift_server(config, host=args.host, port=args.port, run_dir=args.run_dir)
    print(f"thrift server listening on {server.host}:{server.port} (lakehouse {config.home}, master "
          f"{config.master}); log {server.log}; Ctrl-C stops it", flush=True)
    return run_until_interrupted(server)


def _cmd_cluster_start(args: argparse.Namespace) -> int:
    from .lakehouse.cluster import start_cluster
    from .lakehouse.processes import run_until_interrupted

    cluster = start_cluster(workers=args.workers, cores=args.cores, memory=args.memory, host=args.host,
                            port=args.port, webui_port=args.webui_port, run_dir=args.run_dir)
    print(f"spark master {cluster.master_url} ready with {args.workers} workers ({args.cores} core, "
          f"{args.memory} each); UI {cluster.webui_url}; logs {cluster.master.log.parent}; Ctrl-C stops it", flush=True)
    return run_until_interrupted(cluster)


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
    serve = lake.add_parser("serve", help="run the Spark Thrift server over the lakehouse until Ctrl-C")
    _lakehouse_args(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=10000, help="thrift port (default 10000)")
    serve.add_argument("--conf", type=_spark_conf_pair, action="append", default=[], metavar="KEY=VALUE",
                       help="extra Spark setting, repeatable (e.g. spark.executor.memory=2g)")
    serve.add_argument("--run-dir", help="log and working directory (default: a new temporary one)")
    serve.set_defaults(func=_cmd_serve)
    cluster = sub.add_parser("cluster", help="a Spark standalone cluster on this machine").add_subparsers(dest="action", required=True)
    start = cluster.add_parser("start", help="run a master and workers until Ctrl-C")
    start.add_argument("--host", default="127.0.0.1", help="address of the master and workers (default 127.0.0.1)")
    start.add_argument("--port", type=int, default=7077, help="master port (default 7077)")
    start.add_argument("--webui-port", type=int, default=8080, help="master web UI / JSON status port (default 8080)")
    start.add_argument("--workers", type=int, default=2, help="number of workers (default 2)")
    start.add_argument("--cores", type=int, default=1, help="cores per worker (default 1)")
    start.add_argument("--memory", default="1g", help="executor memory per worker (default 1g)")
    start.add_argument("--run-dir", help="log and work directory (default: a new temporary one)")
    start.set_defaults(func=_cmd_cluster_start)
    add_pipeline_commands(sub, _lakehouse_args)
    add_source_commands(sub, _lakehouse_args, _config)
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
    except (LakehouseConfigError, SparkProcessError) as e:
        print(f"sparkload: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
