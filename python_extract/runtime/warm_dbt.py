"""The warm server's dbt: a dbt process beside the warm server's JVM that runs `dbt run-operation` of the
sparkload package's macros with its project parsed once, so `sparkload lakehouse maintain --dry-run` pays
neither dbt's start (its imports) nor its parse, 4-5 s of the 7.5 s it took when the command ran dbt itself,
and the maintenance SQL still lives in the macros alone.

The supervisor (warm.serve) binds a loopback port for it, starts it (`python -m python_extract.runtime.warm_dbt
--listen-fd N ...`, in its own process group, dying with the supervisor), hands the listening socket over and
records the port in server.json (`dbt_port`). It starts lazily: until the first request it is a Python process
of 0.2 s start that imported no dbt and waits on the socket; the first request then imports dbt and parses the
project (3-5 s on 2 cores, which that one request waits for, in the socket's backlog), and later ones reuse the
parse. So a warm server's start never puts a dbt parse beside the first warm `dbt run` (what warm mode is for):
a parse only runs when someone asked for maintain, and it is not niced, as that someone waits for it. Its project (`warm/dbt/`) is the maintenance project (maintenance/operation.py
`write_project`: no models, the adapter over thrift on the server's public port, so its statements are the
server's activity). It answers one request at a time (dbt's state is process-wide):

  request   one JSON line {"macro": name, "args": {...}}: `dbt run-operation <macro> --args <args>`
  answer    one JSON line {"success", "exception", "lines": [[level, msg], ...] (dbt's events of level info and
            above), "parsed": how the manifest was had, "seconds"}, or {"restart": why} (below)

Never stale: before each request it compares the size and modification time of every file its manifest was
parsed from (its project, and the root of every package that gave it a macro: the sparkload package with its
macros, dbt-spark's, dbt's own) with what they were at that parse, and parses again on any change, addition or
removal, naming the file in `parsed`. A Python file of sparkload or of the adapter it loaded that changed (an
upgrade) cannot be re-read in place: it answers `restart` and re-executes itself on the same socket, and the
client asks again (waiting for the new process's parse).

Its log lines (start, parses, each request and its seconds) go to the server's log, `warm/server.log`.

Errors: `WarmServerError` on the client's side when the process does not answer (none runs, it died, it
answered nothing): the caller runs dbt itself (a dry run changes nothing, so running it again is safe).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .warm import DBT_MODULE, WarmServerError

log = logging.getLogger("sparkload.runtime.warm_dbt")

REQUEST_TIMEOUT = 30.0  # a client that connected sends its one line at once; one that does not is dropped
CONNECT_TIMEOUT = 5.0
LEVELS = ("info", "warn", "error")  # dbt's events sent back; debug ones (every statement) stay here
SKIPPED_DIRS = {"target", "logs", "__pycache__", ".git"}  # dbt's output, not its input


# ---- the client ---------------------------------------------------------------------------------


def run_operation(host: str, port: int, macro: str, args: Dict[str, Any]) -> Dict[str, Any]:
    """`dbt run-operation <macro> --args <args>` on the warm server's dbt at host:port: its answer (module
    docstring), after one restart at most. `WarmServerError` when it does not answer.

    >>> run_operation("127.0.0.1", 40120, "sparkload_maintain", {"tables": [], "file_format": "iceberg"})  # doctest: +SKIP
    {'success': True, 'exception': None, 'lines': [], 'parsed': 'the manifest parsed 42 s ago reused', 'seconds': 0.2}
    """
    restarted = None
    for _ in range(2):
        answer = _ask(host, port, {"macro": macro, "args": args})
        if "restart" not in answer:
            if restarted:
                answer["parsed"] = f"restarted ({restarted}), then {answer['parsed']}"
            return answer
        restarted = answer["restart"]
        log.info("the warm server's dbt restarts: %s", restarted)
    raise WarmServerError(f"the warm server's dbt on {host}:{port} restarted twice ({restarted})")


def answer_or_none(endpoint, macro: str, args: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """`run_operation` on the dbt of the warm server at `endpoint` (warm.Endpoint), with a log line saying who
    answered and where the time went; None, logged, when it does not answer (the caller runs dbt itself)."""
    if endpoint.dbt_port is None:
        log.info("the warm server pid %d runs no dbt of its own (started by an older sparkload); running dbt here",
                 endpoint.pid)
        return None
    started = time.monotonic()
    try:
        answer = run_operation(endpoint.host, endpoint.dbt_port, macro, args)
    except WarmServerError as e:
        log.info("%s; running dbt here", e)
        return None
    log.info("dbt run-operation %s: answered by the warm server's dbt on port %d in %.2f s, %.2f s of it there (%s; "
             "no dbt started here)", macro, endpoint.dbt_port, time.monotonic() - started, answer.get("seconds", 0.0),
             answer.get("parsed"))
    return answer


def _ask(host: str, port: int, request: Dict[str, Any]) -> Dict[str, Any]:
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT) as conn:
            conn.settimeout(None)  # an operation takes as long as its tables (a parse waits in the backlog)
            conn.sendall(json.dumps(request).encode() + b"\n")
            with conn.makefile("rb") as reader:
                line = reader.readline()
    except OSError as e:
        raise WarmServerError(f"the warm server's dbt on {host}:{port} did not answer: {e}") from e
    if not line:
        raise WarmServerError(f"the warm server's dbt on {host}:{port} closed the connection without an answer; "
                              "see the server's log")
    return json.loads(line)


# ---- the worker ---------------------------------------------------------------------------------


def _stat(path: str) -> Optional[Tuple[int, int]]:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size


def source_files(roots) -> Dict[str, Tuple[int, int]]:
    """{path: (mtime ns, size)} of every file under `roots` (links followed: the sparkload package's macros
    are a link), dbt's output folders left out."""
    found: Dict[str, Tuple[int, int]] = {}
    for root in sorted(set(map(str, roots))):
        for folder, dirs, files in os.walk(root, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in files:
                path = os.path.join(folder, name)
                stat = _stat(path)
                if stat is not None:
                    found[path] = stat
    return found


def first_difference(before: Dict[str, Any], now: Dict[str, Any]) -> Optional[str]:
    """The first file added, removed or changed between two `source_files`, said in words; None when equal.

    >>> first_difference({"a": (1, 2)}, {"a": (1, 3)})
    'a changed'
    """
    for path in sorted(set(before) | set(now)):
        if path not in now:
            return f"{path} removed"
        if path not in before:
            return f"{path} added"
        if before[path] != now[path]:
            return f"{path} changed"
    return None


def _code_files() -> Dict[str, Tuple[int, int]]:
    """The sparkload Python files this process loaded (the library and the adapter): what a parse cannot renew."""
    import python_extract
    from dbt.adapters import sparkload

    homes = tuple(str(Path(m.__file__).parent) + os.sep for m in (python_extract, sparkload))
    files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    return {f: _stat(f) for f in sorted(f for f in files if f and f.startswith(homes))}


class Worker:
    """The manifest of `project`, parsed again when one of its files changed, and the operations run on it."""

    def __init__(self, project: Path):
        self.project = project
        self.manifest = None
        self.roots = {str(project)}
        self.sources: Dict[str, Any] = {}
        self.parsed_at = 0.0

    def parse(self) -> float:
        from dbt.cli.main import dbtRunner

        from ..maintenance.operation import dbt_command

        started = time.monotonic()
        sources = source_files(self.roots)  # before the parse: a file changed during it is seen next time
        result = dbtRunner().invoke(dbt_command(self.project, ["parse"]))
        if not result.success:
            raise WarmServerError(f"dbt parse of {self.project} failed: {result.exception or 'see the log'}")
        self.manifest = result.result
        roots = {getattr(f.path, "project_root", None) for f in self.manifest.files.values()} - {None} | {str(self.project)}
        self.sources = {**source_files(roots - self.roots), **sources}  # the packages' roots, known after the first parse
        self.roots |= roots
        self.parsed_at = time.monotonic()
        return self.parsed_at - started

    def ensure_parsed(self) -> str:
        """Parse when never parsed or when a file the manifest came from changed; how the manifest was had."""
        if self.manifest is None:
            return f"parsed in {self.parse():.2f} s (none held before)"
        changed = first_difference(self.sources, source_files(self.roots))
        if changed:
            return f"re-parsed in {self.parse():.2f} s: {changed}"
        return f"the manifest parsed {time.monotonic() - self.parsed_at:.0f} s ago reused"

    def run(self, macro: str, args: Dict[str, Any]) -> Dict[str, Any]:
        from dbt.cli.main import dbtRunner

        from ..maintenance.operation import dbt_command

        started = time.monotonic()
        parsed = self.ensure_parsed()
        lines: List[Tuple[str, str]] = []

        def on_event(event) -> None:
            if event.info.level in LEVELS and event.info.msg:
                lines.append((event.info.level, event.info.msg))

        command = dbt_command(self.project, ["run-operation", macro, "--args", json.dumps(args)])
        result = dbtRunner(manifest=self.manifest, callbacks=[on_event]).invoke(command)
        return {"success": result.success, "exception": None if result.exception is None else str(result.exception),
                "lines": lines, "parsed": parsed, "seconds": round(time.monotonic() - started, 3)}


def serve(listener: socket.socket, project: Path) -> None:
    """Answer requests on `listener` until killed (the supervisor ends this process with its own). Lazy: dbt
    is imported and the project parsed on the first request, which waits for it (module docstring)."""
    worker, code = Worker(project), None
    log.info("waiting for the first operation; dbt is imported and %s parsed then", project)
    while True:
        conn, _ = listener.accept()
        with conn:
            try:
                conn.settimeout(REQUEST_TIMEOUT)
                with conn.makefile("rb") as reader:
                    request = json.loads(reader.readline() or b"null")
                macro, args = request["macro"], request["args"]
            except (OSError, ValueError, TypeError, KeyError) as e:
                log.info("dropped a request that was not one JSON line with macro and args (%s)", e)
                continue
            changed = code and first_difference(code, {f: _stat(f) for f in code})
            if changed:
                conn.sendall(json.dumps({"restart": changed}).encode() + b"\n")
                conn.close()
                log.info("restarting, %s", changed)
                os.set_inheritable(listener.fileno(), True)
                os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
            try:
                answer = worker.run(macro, args)
            except Exception as e:  # noqa: BLE001 - dbt's own failures arrive in the answer; this is a parse that failed
                answer = {"success": False, "exception": str(e).splitlines()[0] if str(e) else type(e).__name__,
                          "lines": [], "parsed": "not parsed", "seconds": 0.0}
            if code is None:  # what the first request imported: an upgrade of it later means a restart
                code = _code_files()
            log.info("run-operation %s: %s in %.2f s (%s)", macro, "ok" if answer["success"] else "failed",
                     answer["seconds"], answer["parsed"])
            try:
                conn.sendall(json.dumps(answer).encode() + b"\n")
            except OSError as e:
                log.info("the client of run-operation %s left before its answer (%s)", macro, e)


def start(files, listener: socket.socket, host: str, port: int):
    """Start the warm server's dbt on `listener` (kept by it; the caller closes its own copy) for the server
    on host:port; its `processes.SparkProcess` (its own group, dying with this process)."""
    from ..maintenance.operation import thrift_output, write_project
    from .processes import SparkProcess

    project = write_project(files.dir / "dbt", thrift_output(host, port))
    fd = listener.fileno()
    # `--home` first: warm._clean_stale knows the process by `<module> --home <lakehouse>`
    cmd = [sys.executable, "-m", DBT_MODULE, "--home", str(files.home), "--listen-fd", str(fd), "--project", str(project)]
    return SparkProcess("the warm server's dbt", cmd, files.log, cwd=files.dir, pass_fds=(fd,))


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {DBT_MODULE}")
    parser.add_argument("--listen-fd", type=int, required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--home", required=True)  # unused here: names the lakehouse on the command line
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s warm server dbt pid {os.getpid()}: %(message)s")
    logging.getLogger("pyhive").setLevel(logging.WARNING)  # it logs each statement
    listener = socket.socket(fileno=args.listen_fd)
    try:
        serve(listener, Path(args.project))
    except Exception as e:  # noqa: BLE001 - the log says why; clients then run dbt themselves
        log.error("stopped: %s", str(e).splitlines()[0] if str(e) else type(e).__name__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
