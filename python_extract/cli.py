"""The `sparkload` command: parses arguments, calls one library function, prints. A leaf: nothing
in the library imports it.

    sparkload lakehouse setup [--home DIR] [--table-format iceberg] [--s3] [--jars SET ...]   fetch the jars
                                                         the format (and S3) need from Maven once, create the
                                                         lakehouse at its home (records its format), train the
                                                         JVM class archive (--no-class-archive: don't)
    sparkload lakehouse check [--table-format delta]     say which format a session would get, and why
    sparkload demo [--home DIR]                          sample data -> extractor -> dbt run -> final table
    sparkload run TARGET | sparkload pipeline {info,loads,reset,drop} NAME   the extractor (cli_pipeline.py)
    sparkload lakehouse serve [--port 10000]             the Spark Thrift server over the lakehouse (foreground)
    sparkload lakehouse serve --connect [--port 15002]   the Spark Connect server over the lakehouse (foreground)
    sparkload lakehouse serve --stop                     stop the lakehouse's warm server (dbt `warm: true`)
    sparkload lakehouse maintain [--dataset D] [--dry-run]   compact, apply deletes, expire snapshots (python_extract/maintenance)
    sparkload cluster start [--workers 2]                a Spark standalone master + workers on this machine (foreground)
    sparkload --version

Exit-code policy (`main`, `explain`): a failure prints one line on stderr, `sparkload: <what, where>;
<remedy>`, and exits with the code of its class in the one error tree under `SparkloadError` (errors.py):

    0    done
    1    a step failed (PipelineStepFailed, a server that did not start: SparkProcessError, WarmServerError)
    2    usage or configuration: bad arguments (argparse), ConfigError and its subclasses (pipeline file,
         source config, lakehouse settings and jars, another lakehouse than the running session's), an
         unreachable lakehouse catalog
    3    local state: a file or directory cannot be used (LocalStateError, a failed file operation)
    4    busy: another writer holds the pipeline (PipelineLocked) or the catalog database (CatalogBusy)
    70   a bug: any exception that is not a SparkloadError (one line asking to report it)
    130  interrupted (Ctrl-C)

`-v`/`--verbose` (anywhere on the line) adds INFO logs, the JVM's own log and the traceback; `--debug`
DEBUG logs too. Without them the JVM's log is silenced (log4j2-quiet.properties).
"""
from __future__ import annotations

import argparse
import errno
import logging
import os
import re
import sys
import time
import traceback
from contextlib import contextmanager, nullcontext
from typing import Iterator, List, Optional, Tuple

from .cli_pipeline import add_pipeline_commands
from .cli_sources import add_source_commands
from .errors import (
    CatalogBusy, ConfigError, EXIT_INTERNAL, EXIT_INTERRUPTED, LocalStateError, PipelineStepFailed, SparkloadError,
    from_os_error,
)
from .lakehouse import LakehouseConfig
from .lakehouse.jars import JAR_SETS
from .lakehouse.java_errors import concise, root_cause
from .lakehouse.session import QUIET_LOG4J


def _lakehouse_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="lakehouse directory (SPARKLOAD_HOME, default ./.sparkload)")
    p.add_argument("--table-format", choices=["delta", "iceberg"],
                   help="SPARKLOAD_TABLE_FORMAT; default: the lakehouse's own, else delta")
    p.add_argument("--jars-dir", help="directory holding the lakehouse's jars (SPARKLOAD_JARS)")
    p.add_argument("--master", help="Spark master (SPARKLOAD_MASTER, default local[*])")


def _config(args: argparse.Namespace) -> LakehouseConfig:
    return LakehouseConfig.from_env(
        home=args.home, table_format=args.table_format, jars_dir=args.jars_dir, master=args.master
    )


def _cmd_setup(args: argparse.Namespace) -> int:
    from .lakehouse import choose_format
    from .runtime import archive_training
    from .lakehouse.jars import provision, sets_of
    from .lakehouse.config import DEFAULT_FORMAT, FORMAT_RECORD, pinned_format
    from .lakehouse.session import pin_format

    config = _config(args)
    pinned = pinned_format(config)
    sets = sets_of(config, pinned or config.table_format or DEFAULT_FORMAT) + (["s3"] if args.s3 else [])
    for jar in provision(config, sets + list(args.jars or [])):
        print(jar)
    choice = choose_format(config)  # the format's jars are all there now, or this says which are not
    # the lakehouse exists once its format is recorded: what dbt's embedded profile checks for (it never creates one)
    pin_format(config, choice)
    print(f"lakehouse {config.home}: table format {choice.table_format} "
          f"({'already there' if pinned else 'created'}; {config.home / FORMAT_RECORD})")
    if args.class_archive:
        started = time.monotonic()
        found = archive_training.ensure(config)
        if found is None:
            print("class archive: none (the JVM options choose their own class sharing)")
        else:
            archive, trained = found
            print(f"class archive: {archive} ({f'trained in {time.monotonic() - started:.0f} s' if trained else 'present'})")
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
    from .runtime.processes import run_until_interrupted

    config = _config(args)
    if args.stop:
        if args.connect:
            raise ConfigError("--stop stops the warm (thrift) server and cannot be combined with --connect; "
                              "stop a Connect server with Ctrl-C or SIGTERM")
        return _stop_warm(config)
    config = config.with_(spark_conf={**config.spark_conf, **dict(args.conf)})
    if args.connect:
        from .runtime.connect import DEFAULT_PORT, start_connect_server

        server = start_connect_server(config, host=args.host, port=args.port or DEFAULT_PORT, run_dir=args.run_dir)
        print(f"Spark Connect server at {server.url} (listening on every interface: Spark 3.5 has no bind address; "
              f"lakehouse {config.home}, master {config.master}); log {server.log}; Ctrl-C stops it", flush=True)
    else:
        from .runtime.serve import start_thrift_server

        server = start_thrift_server(config, host=args.host, port=args.port or 10000, run_dir=args.run_dir)
        print(f"thrift server listening on {server.host}:{server.port} (lakehouse {config.home}, master "
              f"{config.master}); log {server.log}; Ctrl-C stops it", flush=True)
    return run_until_interrupted(server)


def _stop_warm(config: LakehouseConfig) -> int:
    from .runtime.warm import stop_server

    stopped = stop_server(config.home)
    if stopped is None:
        print(f"no warm server runs for lakehouse {config.home}", flush=True)
    else:
        print(f"stopped the warm server of lakehouse {config.home} (pid {stopped['pid']}, port {stopped['port']})", flush=True)
    return 0


def _cmd_maintain(args: argparse.Namespace) -> int:
    import yaml

    from .cli_pipeline import warm_session
    from .maintenance import MaintenanceError, describe, maintain

    try:
        policy = yaml.safe_load(args.policy) if args.policy else True
    except yaml.YAMLError as e:
        raise MaintenanceError(f"--policy is not YAML: {e}") from e
    config = _config(args)
    # a dry run changes nothing: the lakehouse's warm server answers it when one runs, no JVM starts here
    warm = warm_session(config) if args.dry_run else None
    reports = maintain(config, datasets=args.dataset, dry_run=args.dry_run, policy=policy,
                       on_report=lambda r: print(describe(r), flush=True), warm=warm)
    return 1 if any(r.get("skipped") for r in reports) else 0


def _cmd_cluster_start(args: argparse.Namespace) -> int:
    from .runtime.cluster import start_cluster
    from .runtime.processes import run_until_interrupted

    cluster = start_cluster(workers=args.workers, cores=args.cores, memory=args.memory, host=args.host,
                            port=args.port, webui_port=args.webui_port, run_dir=args.run_dir, app_data_ttl=args.app_data_ttl)
    print(f"spark master {cluster.master_url} ready with {args.workers} workers ({args.cores} core, "
          f"{args.memory} each); UI {cluster.webui_url}; logs {cluster.master.log.parent}; Ctrl-C stops it", flush=True)
    return run_until_interrupted(cluster)


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    logging.getLogger("sparkload").setLevel(min(logging.INFO, logging.getLogger("sparkload").getEffectiveLevel()))
    run_demo(_config(args))
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    def of(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    return (f"sparkload {of('dbt-sparkload')} (pyspark {of('pyspark')}, dbt-core {of('dbt-core')}, "
            f"Python {sys.version.split()[0]})")


def _verbosity_options(parser: argparse.ArgumentParser, top: bool) -> None:
    # on every subcommand too, so `sparkload run x.yaml -v` works; SUPPRESS keeps a top-level -v
    default = {} if top else {"default": argparse.SUPPRESS}
    parser.add_argument("-v", "--verbose", action="store_true", help="INFO logs, the JVM's log, tracebacks of failures", **default)
    parser.add_argument("--debug", action="store_true", help="DEBUG logs, the JVM's log, tracebacks of failures", **default)


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield sub
                yield from _subparsers(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sparkload", description="dlt-style incremental loading for Spark lakehouses",
                                     epilog="exit codes: 0 done, 1 a step failed, 2 bad arguments or configuration, "
                                            "3 local files unusable, 4 busy (another writer), 70 internal error, 130 interrupted")
    _verbosity_options(parser, top=True)
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)
    lake = sub.add_parser("lakehouse", help="the embedded Spark lakehouse").add_subparsers(dest="action", required=True)
    for name, fn, text in (("setup", _cmd_setup, "cache the jars of the table format, create the lakehouse at its home"),
                           ("check", _cmd_check, "which table format a session gets, and why")):
        p = lake.add_parser(name, help=text)
        _lakehouse_args(p)
        p.set_defaults(func=fn, s3=False)
        if name == "setup":
            p.add_argument("--s3", action="store_true", help="also cache hadoop-aws for a warehouse on S3 (s3a://)")
            p.add_argument("--jars", nargs="+", choices=sorted(JAR_SETS), metavar="SET",
                           help=f"also fetch these jar sets ({', '.join(sorted(JAR_SETS))}), e.g. both formats on one machine")
            p.add_argument("--no-class-archive", dest="class_archive", action="store_false",
                           help="skip training the JVM class archive that makes each session start faster (30-45 s, 160 MB)")
    serve = lake.add_parser("serve", help="run the Spark Thrift (or Connect) server over the lakehouse until Ctrl-C")
    _lakehouse_args(serve)
    serve.add_argument("--connect", action="store_true",
                       help="a Spark Connect server (dbt `method: connect`, pyspark's remote sessions) instead of thrift")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; a Connect server listens on every interface)")
    serve.add_argument("--port", type=int, default=None, help="port (default 10000, with --connect 15002)")
    serve.add_argument("--conf", type=_spark_conf_pair, action="append", default=[], metavar="KEY=VALUE",
                       help="extra Spark setting, repeatable (e.g. spark.executor.memory=2g)")
    serve.add_argument("--run-dir", help="log and working directory, kept (default: a new temporary one, removed when the server is stopped)")
    serve.add_argument("--stop", action="store_true",
                       help="stop the lakehouse's warm server (dbt profiles with `warm: true`) instead, and exit")
    serve.set_defaults(func=_cmd_serve)
    maintain = lake.add_parser("maintain", help="compact small files, apply delete files, expire snapshots, remove orphan files")
    _lakehouse_args(maintain)
    maintain.add_argument("--dataset", action="append", metavar="NAME", help="maintain only this dataset (repeatable; default all)")
    maintain.add_argument("--dry-run", action="store_true", help="say what would be done, change nothing")
    maintain.add_argument("--policy", metavar="YAML", help="thresholds, e.g. '{compact_when: {small_files: 20}, keep_snapshots_for: 7d}'")
    maintain.set_defaults(func=_cmd_maintain)
    cluster = sub.add_parser("cluster", help="a Spark standalone cluster on this machine").add_subparsers(dest="action", required=True)
    start = cluster.add_parser("start", help="run a master and workers until Ctrl-C")
    start.add_argument("--host", default="127.0.0.1", help="address of the master and workers (default 127.0.0.1)")
    start.add_argument("--port", type=int, default=7077, help="master port (default 7077)")
    start.add_argument("--webui-port", type=int, default=8080, help="master web UI / JSON status port (default 8080)")
    start.add_argument("--workers", type=int, default=2, help="number of workers (default 2)")
    start.add_argument("--cores", type=int, default=1, help="cores per worker (default 1)")
    start.add_argument("--memory", default="1g", help="executor memory per worker (default 1g)")
    start.add_argument("--run-dir", help="log and work directory, kept (default: a new temporary one, removed when the cluster is stopped)")
    from .runtime.cluster import APP_DATA_TTL

    start.add_argument("--app-data-ttl", type=int, default=APP_DATA_TTL, metavar="SECONDS",
                       help=f"remove a finished app's work directory (its copies of the jars) from a worker once unchanged this long (default {APP_DATA_TTL})")
    start.set_defaults(func=_cmd_cluster_start)
    add_pipeline_commands(sub, _lakehouse_args)
    add_source_commands(sub, _lakehouse_args, _config)
    demo = sub.add_parser("demo", help="bundled sample data -> extractor -> dbt run -> final table")
    _lakehouse_args(demo)
    demo.set_defaults(func=_cmd_demo)
    for subparser in _subparsers(parser):
        if not any("--verbose" in a.option_strings for a in subparser._actions):
            _verbosity_options(subparser, top=False)
    return parser


JAVA_CALL = "An error occurred while calling o"  # how py4j's Py4JJavaError starts its text
# the catalog database refused the connection: Iceberg's JdbcCatalog, or the Hive metastore's pool (delta)
CATALOG_CONNECT = re.compile(r"UncheckedSQLException: Failed to connect: (\S+)|test connection to the given database\. "
                             r"JDBC url = (\S+?), username")


def _one_line(text: str, limit: int = 600) -> str:
    text = str(text)
    if JAVA_CALL in text:
        text = concise(text, raised_first=False)  # Java's stack frames say nothing a user acts on; -v prints them
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _causes(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


CATALOG_HELD = ("Database may be already in use", "Another instance of Derby may have already booted")


def explain(error: BaseException) -> Tuple[int, str]:
    """The exit code and the one line `main` prints for `error`."""
    chain = list(_causes(error))
    os_error = next((e for e in chain if isinstance(e, OSError) and e.errno in (
        errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG)), None)
    where = ""
    if isinstance(error, PipelineStepFailed):
        where = f" ({error.step} step" + (f", load {error.load_id}" if error.load_id else "") + \
                (f", table {error.table}" if error.table else "") + ")"
    if os_error is not None and not isinstance(error, LocalStateError):
        state = from_os_error(os_error, "the option that chose it (--pipelines-dir, --home)")
        return state.exit_code, _one_line(f"{state}{where}")
    held = next((e for e in chain if any(marker in str(e) for marker in CATALOG_HELD)), None)
    if held is not None:
        # H2 2 names the database in its message, H2 1.4 (a Delta lakehouse's metastore) in its cause, Derby in its own
        path = re.search(r'already in use: "([^"]+)"|The file is locked: nio:(\S+)|booted the database (\S+?)\.?\s', str(held))
        busy = CatalogBusy(f"{next(g for g in path.groups() if g) if path else 'the lakehouse catalog'}: the lakehouse "
                           "catalog database is opened by another process that does not share it; close that process "
                           "(an SQL console, a Spark with other catalog settings) or wait for it, then run again")
        return busy.exit_code, _one_line(f"{busy}{where}")
    java = next((str(e) for e in chain if JAVA_CALL in str(e)), "")
    connect = CATALOG_CONNECT.search(java)
    if connect:
        return ConfigError.exit_code, _one_line(f"the lakehouse catalog {connect.group(1) or connect.group(2)} cannot be opened: {root_cause(java) or 'failed to connect'}"
                            f"{where}; check catalog_uri (`lakehouse: {{catalog_uri: ...}}` in the pipeline file, "
                            "SPARKLOAD_CATALOG_URI) or leave it unset for the lakehouse's own catalog")
    if isinstance(error, SparkloadError):
        return error.exit_code, _one_line(error.summary() if hasattr(error, "summary") else error)
    if isinstance(error, OSError) and error.errno is not None:
        state = from_os_error(error)
        return state.exit_code, _one_line(state)
    return EXIT_INTERNAL, _one_line(f"internal error: {type(error).__name__}: {str(error)[:300]} (this is a bug, "
                                    "please report it with the traceback `-v` prints)")


@contextmanager
def quiet_jvm() -> Iterator[None]:
    """A JVM started inside this block, this process's or a child's (the command's process is ours), logs
    nothing on the terminal: its errors come back as exceptions, where Spark's console log would print each
    failed task's Java stack trace first. A log4j configuration already in SPARK_SUBMIT_OPTS wins. The
    environment is restored after. Once this process runs a JVM the block changes nothing. The library's
    own sessions are quiet without it (lakehouse/session.py `quiet_log_options`, on the JVM's command line)."""
    current = os.environ.get("SPARK_SUBMIT_OPTS")
    pyspark = sys.modules.get("pyspark")
    if (current and "log4j2.configurationFile" in current) or (pyspark and pyspark.SparkContext._gateway is not None):
        yield
        return
    os.environ["SPARK_SUBMIT_OPTS"] = f"{current or ''} -Dlog4j2.configurationFile={QUIET_LOG4J.as_uri()}".strip()
    try:
        yield
    finally:
        if current is None:
            os.environ.pop("SPARK_SUBMIT_OPTS", None)
        else:
            os.environ["SPARK_SUBMIT_OPTS"] = current


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    verbose = args.verbose or args.debug
    level = logging.DEBUG if args.debug else logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("sparkload").setLevel(level)
    logging.getLogger("py4j").setLevel(logging.WARNING if args.debug else logging.ERROR)
    quiet = not verbose and args.command not in ("lakehouse", "cluster")
    try:
        with quiet_jvm() if quiet else nullcontext():
            return args.func(args)
    except KeyboardInterrupt:
        print("sparkload: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # noqa: BLE001 - the CLI's one error policy: one line, a code per class
        code, line = explain(e)
        if verbose:
            traceback.print_exc()
        print(f"sparkload: {line}", file=sys.stderr)
        return code


if __name__ == "__main__":
    sys.exit(main())
