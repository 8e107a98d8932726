"""The warm lakehouse server: one background thrift server per lakehouse, shared by `dbt run`s of the
embedded adapter with `warm: true`, which exits by itself after an idle timeout.

A dbt process with `warm: true` starts no JVM. `ensure_server(config, idle_timeout)` returns the
address of the lakehouse's running server, starting one detached when there is none (or when the
recorded one is gone), so the JVM start is paid once per idle period instead of once per `dbt run`.

Files, all under `home/warm/`:
  server.json   the running server: supervisor pid, address, JVM pid and port, idle timeout, settings
  server.pid    the supervisor's pid alone (what a `processes.Watchdog.guard_pidfile` reads)
  start.lock    `flock`ed while a server is checked, cleaned up or started: two dbt runs starting at
                once start one server, the second waits and uses it
  server.log    the supervisor's log: start, each connection, idle exit (and its dbt's lines); the JVM logs under run/
  dbt/          the project the server's own dbt holds parsed (warm_dbt.py)

The server is a supervisor process (`python -m python_extract.runtime.warm serve ...`, its own
session) that starts HiveThriftServer2 (`serve.start_thrift_server`, JVM on an internal loopback port,
dying with the supervisor) and forwards the public loopback port to it. HiveThriftServer2 has no
server-wide idle exit, so the forwarder is what sees every request: after `idle_timeout` seconds
without a byte either way (a connection that sends nothing does not count) it removes server.json and server.pid, stops the JVM (which checks its port
is free) and exits. A dead JVM ends the supervisor at once; a supervisor killed hard leaves its files,
which the next `ensure_server` finds stale (pid gone), logs, cleans (ending a JVM left behind) and
replaces. The server answers `set spark.sparkload.home` with its lakehouse, which the adapter checks.

The small commands (`pipeline info`, `loads`, `expire --dry-run`, `lakehouse maintain --dry-run`) ask a
running server through `WarmSession` (`running_server` finds it; it never starts one), which answers the
few SparkSession calls they make over thrift (pyhive and pyspark's `Row` class imported on use, no JVM),
and hands `maintain`'s dbt operation to the server's own dbt process (warm_dbt.py: started beside the JVM,
dying with the supervisor, its project parsed once), so no dbt starts in the command either.

Only the standard library, `errors`, the lakehouse `config` and `processes` are imported here (and `timeutil` when an
idle timeout is read): the dbt process never loads pyspark.

Errors: `WarmServerError` (one line: what failed, the log, the remedy).
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import fcntl
import hashlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Optional

from ..errors import SparkloadError
from ..lakehouse.config import SECRETS, LakehouseConfig
from .processes import group_has_members, process_command_line, started_at, wait_gone

log = logging.getLogger("sparkload.runtime.warm")

HOME_CONF = "spark.sparkload.home"  # the server's answer to `set spark.sparkload.home`
DBT_MODULE = "python_extract.runtime.warm_dbt"  # the server's own dbt process
DEFAULT_IDLE_TIMEOUT = "15m"
START_TIMEOUT = 600.0  # a JVM start on a loaded machine; the wait ends at once when the server fails
SUPERVISOR_MODULE = "python_extract.runtime.warm"
OVERRIDES_ENV = "SPARKLOAD_WARM_OVERRIDES"  # the profile's lakehouse settings, for the supervisor
MAX_LOG_BYTES = 5 * 2**20  # server.log is moved to server.log.1 past this, when a server starts
ERROR_MARK = ": ERROR "


class WarmServerError(SparkloadError):
    """The warm server could not be found, started or stopped, or its idle timeout is not a duration."""


def parse_idle_timeout(value: Any, name: str = "warm_idle_timeout") -> float:
    """Seconds from `900`, `"90s"`, `"15m"` or `"1h"`.

    >>> parse_idle_timeout("15m")
    900.0
    """
    from ..timeutil import parse_span

    span = parse_span(value)
    if span is None or span <= dt.timedelta(0):
        raise WarmServerError(f"{name}: {value!r} is not a duration; expected seconds (900) or a number with "
                              f"s, m, h or d (90s, 15m, 1h), greater than zero")
    return span.total_seconds()


@dataclasses.dataclass(frozen=True)
class WarmFiles:
    """Where a lakehouse's warm server keeps its state (module docstring)."""
    home: Path

    @property
    def dir(self) -> Path:
        return self.home / "warm"

    @property
    def state(self) -> Path:
        return self.dir / "server.json"

    @property
    def pidfile(self) -> Path:
        return self.dir / "server.pid"

    @property
    def lock(self) -> Path:
        return self.dir / "start.lock"

    @property
    def log(self) -> Path:
        return self.dir / "server.log"

    @property
    def run_dir(self) -> Path:
        return self.dir / "run"

    def read(self) -> Optional[Dict[str, Any]]:
        """The recorded server, or None (no file, or one being written)."""
        try:
            return json.loads(self.state.read_text())
        except (FileNotFoundError, ValueError):
            return None

    def write(self, state: Dict[str, Any]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        for path, text in ((self.state, json.dumps(state, indent=1)), (self.pidfile, f"{state['pid']}\n")):
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(text)
            tmp.replace(path)  # a reader sees the old file or the whole new one

    def remove(self, pid: Optional[int] = None) -> None:
        """Remove the state files (only if they still name `pid`, when given)."""
        if pid is not None and (self.read() or {}).get("pid") != pid:
            return
        for path in (self.state, self.pidfile):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    @contextlib.contextmanager
    def locked(self, timeout: float = START_TIMEOUT + 60) -> Iterator[None]:
        """The start lock (the kernel's, so a killed holder releases it)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.lock, "a+") as f:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise WarmServerError(f"{self.lock}: another process has held the warm server's start lock "
                                              f"for {timeout:.0f} s; is a server start hanging? see {self.log}")
                    time.sleep(0.2)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


@dataclasses.dataclass(frozen=True)
class Endpoint:
    host: str
    port: int
    pid: int
    started: bool  # by this call
    dbt_port: Optional[int] = None  # the server's own dbt (warm_dbt.py), on the same host

    @classmethod
    def of(cls, state: Dict[str, Any], started: bool) -> "Endpoint":
        """The server `state` (server.json) records."""
        return cls(state["host"], state["port"], state["pid"], started, state.get("dbt_port"))


def settings_key(config: LakehouseConfig, idle_timeout: float) -> str:
    """A digest of what the server was started with (no secret in it): a profile whose settings
    differ gets a server of its own settings."""
    values = {f.name: str(getattr(config, f.name)) for f in dataclasses.fields(config) if f.name not in SECRETS}
    values["idle_timeout"] = str(idle_timeout)
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


def _is_supervisor(pid: Any, home: Path) -> bool:
    """Whether `pid` is a live warm server supervisor of `home` (not a recycled pid)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    cmdline = process_command_line(pid)  # empty for a zombie, which its starter has not reaped yet
    return SUPERVISOR_MODULE in cmdline and str(home) in cmdline


def _end_group(pgid: Any, must_contain: str, grace: float = 20.0) -> None:
    """SIGTERM, then SIGKILL, a process group left behind (only if its leader still is what we started),
    and wait until no live process of it is left. A leader already exiting (its cmdline reads empty
    while it is torn down) is waited for, not signalled."""
    if not isinstance(pgid, int) or pgid <= 0:
        return
    cmdline = process_command_line(pgid)
    if not cmdline:
        wait_gone(pgid, started_at(pgid), grace)
        return
    if must_contain not in cmdline:
        return  # a later process that got the id
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and group_has_members(pgid):
            time.sleep(0.2)
        if not group_has_members(pgid):
            return


def _clean_stale(files: WarmFiles, state: Dict[str, Any]) -> None:
    """The files of a server whose supervisor is gone, and its JVM if it is still there."""
    _end_group(state.get("jvm_pid"), f"{HOME_CONF}={files.home}")  # only the JVM of this lakehouse's server
    _end_group(state.get("dbt_pid"), f"{DBT_MODULE} --home {files.home}")  # gone already, where it died with its parent
    files.remove()


def ensure_server(config: LakehouseConfig, idle_timeout: float, say: Callable[[str], None] = log.info,
                  replace_pid: Optional[int] = None) -> Endpoint:
    """The address of this lakehouse's warm server, started (detached) when none runs.

    `replace_pid`: the server that process runs did not answer; stop it and start a new one.

    >>> ensure_server(LakehouseConfig.from_env(home="lake"), idle_timeout=900)   # doctest: +SKIP
    Endpoint(host='127.0.0.1', port=41233, pid=5120, started=False)
    """
    files, key = WarmFiles(config.home), settings_key(config, idle_timeout)
    state = files.read()
    if replace_pid is None and state and state.get("settings") == key and _is_supervisor(state.get("pid"), config.home):
        return Endpoint.of(state, started=False)
    with files.locked():
        state = files.read()  # another run may have started or replaced it while we waited for the lock
        if state:
            pid = state.get("pid")
            if not _is_supervisor(pid, config.home):
                say(f"sparkload warm server: the server recorded in {files.state} (pid {pid}, port {state.get('port')}) "
                    "is gone; cleaning its files and starting a new one")
                _clean_stale(files, state)
            elif pid == replace_pid:
                say(f"sparkload warm server: pid {pid} on port {state.get('port')} does not answer; stopping it "
                    "and starting a new one")
                _stop(files, state)
            elif state.get("settings") != key:
                say(f"sparkload warm server: pid {pid} on port {state.get('port')} runs with other settings "
                    "(lakehouse settings or idle timeout changed); stopping it and starting one with these")
                _stop(files, state)
            else:
                return Endpoint.of(state, started=False)
        return _start(files, config, idle_timeout, key, say)


def _start(files: WarmFiles, config: LakehouseConfig, idle_timeout: float, key: str,
           say: Callable[[str], None]) -> Endpoint:
    files.dir.mkdir(parents=True, exist_ok=True)
    overrides = {"table_format": config.table_format, "master": config.master,
                 "jars_dir": str(config.jars_dir) if config.jars_dir else None, "spark_conf": config.spark_conf}
    cmd = [sys.executable, "-m", SUPERVISOR_MODULE, "serve", "--home", str(config.home),
           "--idle-timeout", str(idle_timeout), "--settings", key]
    env = {**os.environ, OVERRIDES_ENV: json.dumps(overrides)}  # not argv: spark_conf may hold a secret
    say(f"sparkload warm server: starting one for lakehouse {config.home} (exits after {idle_timeout:.0f} s idle; "
        f"log {files.log})")
    if files.log.exists() and files.log.stat().st_size > MAX_LOG_BYTES:
        files.log.replace(files.log.with_name(files.log.name + ".1"))
    since = files.log.stat().st_size if files.log.exists() else 0
    with open(files.log, "ab") as out:
        # detached on purpose: it must outlive this dbt run, and it ends itself when idle
        popen = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True, cwd=str(files.dir), env=env)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        state = files.read()
        if state and state.get("pid") == popen.pid:
            popen.returncode = 0  # not ours to reap: it outlives this process (silences Popen.__del__)
            return Endpoint.of(state, started=True)
        if popen.poll() is not None:
            raise WarmServerError(f"the warm server for lakehouse {config.home} exited with code {popen.returncode} "
                                  f"before serving: {_last_error(files.log, since)}; log {files.log}")
        time.sleep(0.2)
    _end_group(popen.pid, SUPERVISOR_MODULE)
    raise WarmServerError(f"the warm server for lakehouse {config.home} did not serve within {START_TIMEOUT:.0f} s; "
                          f"log {files.log}")


def _last_error(path: Path, since: int) -> str:
    """The supervisor's error line written after byte `since` of its log (else its last line)."""
    with open(path, "rb") as f:
        f.seek(since)
        lines = [line for line in f.read().decode(errors="replace").splitlines() if line.strip()]
    failed = [line.split(ERROR_MARK, 1)[1] for line in lines if ERROR_MARK in line]
    return (failed or lines or ["(nothing logged)"])[-1][:600]


def _stop(files: WarmFiles, state: Dict[str, Any], timeout: float = 60.0) -> None:
    pid = state["pid"]
    start = started_at(pid)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if not wait_gone(pid, start, timeout):
        _end_group(pid, SUPERVISOR_MODULE)
    _clean_stale(files, state)


def stop_server(home: Path) -> Optional[Dict[str, Any]]:
    """Stop the lakehouse's warm server; what it was (None when none ran). Stale files are cleaned."""
    files = WarmFiles(Path(home).expanduser().resolve())
    with files.locked():
        state = files.read()
        if not state:
            return None
        if not _is_supervisor(state.get("pid"), files.home):
            _clean_stale(files, state)
            return None
        _stop(files, state)
        return state


# ---- a client for the small commands ----------------------------------------------------------


def running_server(home: Path) -> Optional[Endpoint]:
    """This lakehouse's warm server when one runs (whatever its settings); never starts one."""
    files = WarmFiles(Path(home).expanduser().resolve())
    state = files.read()
    if state and _is_supervisor(state.get("pid"), files.home):
        return Endpoint.of(state, started=False)
    return None


class WarmSession:
    """What the small commands (`pipeline info`, `loads`, `expire --dry-run`, `lakehouse maintain
    --dry-run`) ask of a SparkSession, answered by the lakehouse's warm server over thrift, so they start no
    JVM: `sql(q).collect() / take(n) / first()` with rows as pyspark's `Row`, `catalog.tableExists(name)`
    and `conf.get(key, default)`. Typed as the session types them: TIMESTAMP and DATE values, which thrift
    sends as text, become datetime and date.

    >>> spark = WarmSession.connect(running_server(Path(".sparkload")), Path(".sparkload"))   # doctest: +SKIP
    >>> spark.sql("select 1 as one").collect()                                                # doctest: +SKIP
    [Row(one=1)]
    """

    def __init__(self, connection, endpoint: Endpoint):
        import threading

        self._connection, self.endpoint = connection, endpoint
        self._lock = threading.Lock()  # one thrift connection: callers' threads take turns (sync_destination reads in two)
        self.catalog, self.conf = _WarmCatalog(self), _WarmConf(self)

    @classmethod
    def connect(cls, endpoint: Endpoint, home: Path) -> "WarmSession":
        """A session on `endpoint`, checked to serve `home` (WarmServerError when it serves another)."""
        from pyhive import hive

        session = cls(hive.connect(host=endpoint.host, port=endpoint.port, username="sparkload"), endpoint)
        served = session.conf.get(HOME_CONF, None)
        if served != str(Path(home).expanduser().resolve()):
            session.close()
            raise WarmServerError(f"the warm server pid {endpoint.pid} on {endpoint.host}:{endpoint.port} serves "
                                  f"lakehouse {served}, not {home}")
        return session

    def sql(self, query: str) -> "_WarmResult":
        with self._lock:
            return self._sql(query)

    def _sql(self, query: str) -> "_WarmResult":
        cursor = self._connection.cursor()
        try:
            cursor.execute(query)
            if not cursor.description:
                return _WarmResult([])
            names = [d[0] for d in cursor.description]
            convert = [_CONVERTERS.get(d[1], _same) for d in cursor.description]
            return _WarmResult([_row(names, [c(v) for c, v in zip(convert, values)]) for values in cursor.fetchall()])
        finally:
            cursor.close()

    def run_operation(self, macro: str, args: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """`dbt run-operation` on the server's own dbt, which holds its project parsed (warm_dbt.py): its
        answer, or None when it does not answer (logged; the caller runs dbt itself)."""
        from .warm_dbt import answer_or_none

        return answer_or_none(self.endpoint, macro, args)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._connection.close()


def _row(names, values):
    from pyspark.sql import Row  # the class only: no JVM

    row = Row(*names)
    return row(*values)


def _same(value: Any) -> Any:
    return value


def _timestamp(value: Any) -> Any:
    """Thrift's text of a TIMESTAMP, naive in the session's time zone as pyspark gives it."""
    from ..timeutil import parse_timestamp

    return parse_timestamp(value).replace(tzinfo=None) if isinstance(value, str) else value


def _date(value: Any) -> Any:
    from ..timeutil import parse_date

    return parse_date(value) if isinstance(value, str) else value


_CONVERTERS: Dict[str, Callable[[Any], Any]] = {"TIMESTAMP_TYPE": _timestamp, "DATE_TYPE": _date}


class _WarmResult:
    def __init__(self, rows: list):
        self._rows = rows

    def collect(self) -> list:
        return list(self._rows)

    def take(self, n: int) -> list:
        return self._rows[:n]

    def first(self):
        return self._rows[0] if self._rows else None


class _WarmCatalog:
    def __init__(self, session: WarmSession):
        self._session = session

    def tableExists(self, name: str) -> bool:  # noqa: N802 - pyspark's name
        from ..load.sql import ident

        dataset, _, table = name.rpartition(".")
        try:
            rows = self._session.sql(f"show tables in {ident(dataset)}").collect()
        except Exception:  # noqa: BLE001 - a missing namespace: pyhive raises its OperationalError
            return False
        return any(r["tableName"] == table and not r["isTemporary"] for r in rows)


class _WarmConf:
    def __init__(self, session: WarmSession):
        self._session = session

    def get(self, key: str, default: Any = None) -> Any:
        rows = self._session.sql(f"set {key}").collect()
        value = rows[0][1] if rows else None
        return default if value in (None, "<undefined>") else value


# ---- the supervisor process -------------------------------------------------------------------


class Supervisor:
    """Forwards the public port to the JVM and ends both after `idle_timeout` s without traffic."""

    def __init__(self, server, files: WarmFiles, idle_timeout: float):
        self.server, self.files, self.idle_timeout = server, files, idle_timeout
        self.last_activity = time.monotonic()
        self.connections = 0
        self.exit_code: Optional[int] = None

    async def _pump(self, reader, writer) -> None:
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                self.last_activity = time.monotonic()
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _client(self, reader, writer) -> None:
        import asyncio

        self.connections += 1  # a connection that sends nothing (a port probe) is no activity
        peer = writer.get_extra_info("peername")
        log.info("connection %d from %s:%s", self.connections, *(peer or ("?", "?"))[:2])
        try:
            up_reader, up_writer = await asyncio.open_connection(self.server.host, self.server.port)
        except OSError as e:
            log.error("the JVM on port %d refused connection %d: %s", self.server.port, self.connections, e)
            writer.close()
            return
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))

    async def run(self, listener: socket.socket) -> int:
        import asyncio

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._finish, 0, f"stopped by signal {sig.name}")
        proxy = await asyncio.start_server(self._client, sock=listener)
        while self.exit_code is None:
            await asyncio.sleep(0.5)
            code = self.server.process.popen.poll()
            if code is not None:
                self._finish(1, f"the thrift server JVM exited with code {code}; log {self.server.log}")
            elif time.monotonic() - self.last_activity >= self.idle_timeout:
                self._finish(0, f"idle for {self.idle_timeout:.0f} s")
        proxy.close()  # no new connection from here on; the files are already gone
        return self.exit_code

    def _finish(self, code: int, why: str) -> None:
        if self.exit_code is None:
            log.info("stopping: %s", why)
            self.files.remove(pid=os.getpid())  # first: a dbt run arriving now starts a new server
            self.exit_code = code


WARM_UP_DATASETS = 10  # the staging datasets whose pipeline reads the warm-up runs once, at most


def _warm_up(server) -> None:
    """Run, once and straight on the JVM (not through the proxy: no activity), the reads a small command
    makes first (a pipeline's state, schema and loads, as `pipeline info` reads them) on a few staging
    datasets, so the JVM's first compilation of them is paid while nobody waits: a server's first query of
    a kind costs seconds more than the next. A failure changes nothing and is logged."""
    from ..contract import LOADS_TABLE
    from ..load.destination import list_loads, read_schema, read_state

    started = time.monotonic()
    try:
        from pyhive import hive

        session = WarmSession(hive.connect(host=server.host, port=server.port, username="sparkload"),
                              Endpoint(server.host, server.port, os.getpid(), started=False))
        try:
            datasets = [r[0] for r in session.sql("show namespaces").collect()]
            warmed = 0
            for dataset in datasets:
                if warmed >= WARM_UP_DATASETS:
                    break
                if not session.catalog.tableExists(f"{dataset}.{LOADS_TABLE}"):
                    continue
                read_state(session, dataset, "")  # no pipeline has an empty name: the plan, not a row
                read_schema(session, dataset, "")
                list_loads(session, dataset, "")
                warmed += 1
        finally:
            session.close()
        log.info("warmed up on %d staging datasets in %.1f s", warmed, time.monotonic() - started)
    except Exception as e:  # noqa: BLE001 - a warm-up that fails costs the first query its seconds, nothing more
        log.info("warm-up skipped after %.1f s: %s", time.monotonic() - started,
                 (str(e).splitlines() or [type(e).__name__])[0])


def serve(config: LakehouseConfig, idle_timeout: float, settings: str) -> int:
    """The supervisor's body: start the JVM, record the server, forward until idle, stop everything."""
    import asyncio
    import shutil

    from . import warm_dbt
    from .processes import LOOPBACK
    from .serve import start_thrift_server

    files = WarmFiles(config.home)
    listener = socket.create_server((LOOPBACK, 0))  # the public port: ours from bind to exit, never reused meanwhile
    port = listener.getsockname()[1]
    shutil.rmtree(files.run_dir, ignore_errors=True)
    served = config.with_(spark_conf={**config.spark_conf, HOME_CONF: str(config.home),
                                      "spark.app.name": f"{config.app_name} warm thrift server"})
    server = start_thrift_server(served, host=LOOPBACK, run_dir=files.run_dir)
    supervisor, dbt = Supervisor(server, files, idle_timeout), None
    try:
        # the dbt process answers on a port bound here, so it is recorded at once; a request sent while it
        # still starts waits in the socket's backlog. Started from the main thread: it dies with this process
        with socket.create_server((LOOPBACK, 0)) as dbt_listener:
            dbt = warm_dbt.start(files, dbt_listener, LOOPBACK, port)
            dbt_port = dbt_listener.getsockname()[1]
        files.write({"pid": os.getpid(), "host": LOOPBACK, "port": port, "home": str(config.home),
                     "jvm_pid": server.process.pid, "jvm_port": server.port, "idle_timeout": idle_timeout,
                     "dbt_pid": dbt.pid, "dbt_port": dbt_port,
                     "settings": settings, "log": str(files.log), "jvm_log": str(server.log),
                     "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        log.info("serving lakehouse %s on %s:%d (JVM pid %d on port %d, dbt pid %d on port %d); exits after %.0f s idle",
                 config.home, LOOPBACK, port, server.process.pid, server.port, dbt.pid, dbt_port, idle_timeout)
        threading.Thread(target=_warm_up, args=(server,), name="warm-up", daemon=True).start()
        return asyncio.run(supervisor.run(listener))
    finally:
        supervisor._finish(supervisor.exit_code or 0, "shutting down")
        listener.close()
        if dbt is not None:
            dbt.stop(grace=5.0)
        server.stop()
        log.info("stopped; port %d and JVM port %d are free", port, server.port)


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {SUPERVISOR_MODULE}")
    parser.add_argument("action", choices=["serve"])
    parser.add_argument("--home", required=True)
    parser.add_argument("--idle-timeout", type=float, required=True)
    parser.add_argument("--settings", required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s warm server pid {os.getpid()}: %(message)s")
    logging.getLogger("pyhive").setLevel(logging.WARNING)  # it logs each statement of the start-up check
    overrides = {k: v for k, v in json.loads(os.environ.get(OVERRIDES_ENV, "{}")).items() if v is not None}
    config = LakehouseConfig.from_env(home=args.home, **overrides)
    try:
        return serve(config, args.idle_timeout, args.settings)
    except Exception as e:  # noqa: BLE001 - the starting dbt run reads this line from the log
        log.error("%s%s", ERROR_MARK.lstrip(": "), str(e).splitlines()[0] if str(e) else type(e).__name__)
        log.debug("details", exc_info=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
