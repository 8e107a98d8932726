"""An Airbyte connector as a process speaking the Airbyte protocol: `spec`, `check`, `discover`,
`read --config --catalog [--state]`, one JSON message per line on stdout.

The connector is a PyPI package (`airbyte-source-faker`) installed on demand into a virtual
environment of its own (`<venvs dir>/<package>`), so its dependencies never mix with ours, or an
executable already on PATH. Messages are read line by line while the process runs (never all in
memory); LOG and TRACE messages go to logging; a TRACE error, a non-zero exit or a crash raises
`ConnectorError` with the connector's own message.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import subprocess
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ...errors import ConfigError, SparkloadError

log = logging.getLogger("sparkload.airbyte")


class ConnectorError(SparkloadError):
    pass


class ConnectorCheckFailed(ConfigError, ConnectorError):
    """The connector's own `check` refused its config (run before any read; a usage error, exit 2)."""


def install(package: str, venvs_dir: Path, version: Optional[str] = None) -> Path:
    """The connector's executable, installing `package` into `venvs_dir/<package>` when missing; two processes
    asking at once install it once (the second waits on the kernel's lock, then finds it)."""
    name = package.split("[")[0]
    home = Path(venvs_dir) / name
    executable = home / "bin" / name.replace("airbyte-", "")
    if executable.exists():
        return executable
    Path(venvs_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(venvs_dir) / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if executable.exists():
            return executable
        return _install(package, home, executable, version)


def _install(package: str, home: Path, executable: Path, version: Optional[str]) -> Path:
    log.info("installing %s into %s", package, home)
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    spec = f"{package}=={version}" if version else package
    done = subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", spec],
                          capture_output=True, text=True)
    if done.returncode != 0 or not executable.exists():
        raise ConnectorError(f"installing {spec} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return executable


def resolve_executable(config: Dict[str, Any], venvs_dir: Path) -> List[str]:
    if config.get("executable"):
        found = shutil.which(config["executable"])
        if not found:
            raise ConnectorError(f"connector executable {config['executable']!r} is not on PATH")
        return [found]
    return [str(install(config["package"], venvs_dir, config.get("version")))]


@dataclass
class Connector:
    """An Airbyte connector run as a process per command. The files a command reads (config with its
    secrets, catalog, state) are written to a private temporary folder (mode 0700) that is removed when the
    command ends, however it ends; it is the connector's temporary directory too (TMPDIR)."""
    command: List[str]
    config: Dict[str, Any]

    def messages(self, *args: str, files: Optional[Dict[str, Any]] = None) -> Iterator[Dict[str, Any]]:
        """The messages of one connector command, as they arrive; `files` {option: content} are passed as
        `--option <path of its JSON file>`."""
        with tempfile.TemporaryDirectory(prefix="sparkload-airbyte-") as workdir:
            for option, content in (files or {}).items():
                path = Path(workdir) / f"{option}.json"
                path.write_text(json.dumps(content))
                args += (f"--{option}", str(path))
            yield from self._run(args, workdir)

    def _run(self, args: Tuple[str, ...], workdir: str) -> Iterator[Dict[str, Any]]:
        # TMPDIR: the connector's own temporary files (airbyte-cdk writes the config there too) go into the
        # command's folder and are removed with it, also when the connector is stopped before it cleans up
        proc = subprocess.Popen([*self.command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=workdir, env={**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": workdir})
        error: Optional[str] = None
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    message = json.loads(line)
                except json.JSONDecodeError:
                    continue
                kind = message.get("type")
                if kind == "LOG":
                    log.log(_LEVELS.get(message["log"].get("level"), logging.INFO), "%s", message["log"].get("message"))
                elif kind == "TRACE":
                    trace = message["trace"]
                    if trace.get("type") == "ERROR":
                        error = trace["error"].get("message") or trace["error"].get("internal_message")
                        log.error("connector error: %s", error)
                    else:
                        log.debug("connector trace: %s", trace)
                else:
                    yield message
        finally:
            if proc.poll() is None:
                proc.stdout.close() if proc.stdout else None
            code = proc.wait()
            stderr = proc.stderr.read() if proc.stderr else ""
        if error is not None:
            raise ConnectorError(f"{' '.join(self.command[-1:])} {args[0]}: {error}")
        if code != 0:
            raise ConnectorError(f"{' '.join(self.command[-1:])} {args[0]} exited with code {code}: {stderr.strip()[-500:]}")

    def _one(self, kind: str, *args: str, files: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        for message in self.messages(*args, files=files):
            if message.get("type") == kind:
                return message
        raise ConnectorError(f"{args[0]} gave no {kind} message")

    def spec(self) -> Dict[str, Any]:
        return self._one("SPEC", "spec")["spec"]

    def check(self) -> None:
        status = self._one("CONNECTION_STATUS", "check", files={"config": self.config})
        if status["connectionStatus"]["status"] != "SUCCEEDED":
            raise ConnectorCheckFailed(
                f"{Path(self.command[-1]).name} check failed: {status['connectionStatus'].get('message')}; nothing was "
                "read: fix the connector's config (source.config.config), or set `check: false` to skip the check")

    def discover(self) -> Dict[str, Any]:
        return self._one("CATALOG", "discover", files={"config": self.config})["catalog"]

    def read(self, catalog: Dict[str, Any], state: Optional[List[Dict[str, Any]]] = None) -> Iterator[Dict[str, Any]]:
        files = {"config": self.config, "catalog": catalog, **({"state": state} if state else {})}
        yield from self.messages("read", files=files)


_LEVELS = {"FATAL": logging.CRITICAL, "ERROR": logging.ERROR, "WARN": logging.WARNING, "INFO": logging.INFO,
           "DEBUG": logging.DEBUG, "TRACE": logging.DEBUG}


def configured_catalog(catalog: Dict[str, Any], streams: Optional[List[Any]] = None) -> Dict[str, Any]:
    """The configured catalog for `read`: the selected streams (all by default) with their sync mode,
    incremental where the stream supports it unless configured otherwise, cursor and primary key."""
    wanted: Dict[str, Dict[str, Any]] = {}
    for entry in streams or [s["name"] for s in catalog["streams"]]:
        spec = {"name": entry} if isinstance(entry, str) else dict(entry)
        wanted[spec["name"]] = spec
    known = {s["name"]: s for s in catalog["streams"]}
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise ConnectorError(f"streams {', '.join(unknown)} are not in the connector's catalog ({', '.join(known)})")
    configured = []
    for name, spec in wanted.items():
        stream = known[name]
        supports = stream.get("supported_sync_modes", ["full_refresh"])
        mode = spec.get("sync_mode") or ("incremental" if "incremental" in supports else "full_refresh")
        if mode not in supports:
            raise ConnectorError(f"stream {name}: sync_mode {mode} is not supported ({', '.join(supports)})")
        configured.append({
            "stream": stream, "sync_mode": mode,
            "destination_sync_mode": "append_dedup" if stream.get("source_defined_primary_key") else "append",
            "cursor_field": spec.get("cursor_field") or stream.get("default_cursor_field") or [],
            "primary_key": stream.get("source_defined_primary_key") or [],
        })
    return {"streams": configured}
