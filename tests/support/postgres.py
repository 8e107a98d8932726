"""A throwaway PostgreSQL server on 127.0.0.1 for tests: initdb into a temporary directory, start on a
free port, stop (fast) on exit. Runs the server as the `postgres` user when the tests run as root
(PostgreSQL refuses to run as root). Needs Debian's `postgresql` package (scripts/setup.sh installs it).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import List, Optional

from python_extract.runtime.processes import free_port


def pg_bin() -> Optional[Path]:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    def __init__(self) -> None:
        self.bin = pg_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL server binaries not found: apt-get install postgresql")
        self.dir = Path(tempfile.mkdtemp(prefix="sparkload-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self._as_user: List[str] = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def url(self) -> str:
        return f"postgresql+psycopg2://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/postgres?user=postgres"

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> "PostgresServer":
        if self._as_user:
            shutil.chown(self.dir, "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.dir} -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w", "start")
        return self

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "PostgresServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
