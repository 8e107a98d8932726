"""A real `moto_server` (the S3 API over HTTP) on loopback for the S3 tests: one per test run, shared
by every test that asks for it (`shared_s3_server`), stopped when the run ends.

It never outlives the run, even when pytest is killed: it runs in its own process group (through
`SparkProcess`, which also has the kernel send it SIGTERM when the test process dies), and the run's
`watchdog` (tests/conftest.py) guards that group. `stop()` ends the whole group and checks the port
is free.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List, Optional

from python_extract.runtime.processes import LOOPBACK, SparkProcess, free_port

ACCESS_KEY = "sparkload-test-key"
SECRET_KEY = "sparkload-test-secret-5e1f9a"  # grepped for in logs and command lines: it must never show
REGION = "us-east-1"
MOTO_SERVER = Path(sys.executable).parent / "moto_server"


class S3Server:
    def __init__(self, run_dir: Path, watchdog):
        self.port = free_port()
        self.watchdog = watchdog
        self.process = SparkProcess(f"moto_server on {LOOPBACK}:{self.port}",
                                    [str(MOTO_SERVER), "-H", LOOPBACK, "-p", str(self.port)], run_dir / "moto_server.log")
        watchdog.guard_group(self.process.pgid)
        self.process.wait_for_port(LOOPBACK, self.port, timeout=60)

    @property
    def endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)

    def create_bucket(self, bucket: str) -> None:
        client = self.client()
        if bucket not in {b["Name"] for b in client.list_buckets().get("Buckets", [])}:
            client.create_bucket(Bucket=bucket)

    def keys(self, bucket: str, prefix: str = "") -> List[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        return sorted(obj["Key"] for page in pages for obj in page.get("Contents", []))

    def lakehouse_env(self, bucket: str, prefix: str, credentials: str = "settings") -> Dict[str, str]:
        """Environment of a lakehouse whose warehouse is `s3a://bucket/prefix` on this server. The
        credentials come from sparkload's settings (`SPARKLOAD_S3_*`) or from AWS's own variables."""
        self.create_bucket(bucket)
        env = {"SPARKLOAD_WAREHOUSE": f"s3a://{bucket}/{prefix}", "SPARKLOAD_S3_ENDPOINT": self.endpoint,
               "SPARKLOAD_S3_PATH_STYLE": "true", "SPARKLOAD_S3_REGION": REGION}
        if credentials == "settings":
            env.update(SPARKLOAD_S3_ACCESS_KEY_ID=ACCESS_KEY, SPARKLOAD_S3_SECRET_ACCESS_KEY=SECRET_KEY)
        else:
            env.update(AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
        return env

    def stop(self) -> None:
        self.process.stop(grace=10.0, ports=[self.port])
        if not self.watchdog.popen.stdin.closed:  # at the run's end the watchdog may have closed (and ended it) first
            self.watchdog.release_group(self.process.pgid)


_SERVER: Optional[S3Server] = None


def shared_s3_server(request) -> S3Server:
    """The run's moto_server, started on first use (by any test folder); stopped when the run ends."""
    global _SERVER
    if _SERVER is None:
        # its log under the run's base temporary folder (pytest rotates those), not in /tmp for good
        run_dir = request.getfixturevalue("tmp_path_factory").mktemp("moto-server")
        _SERVER = S3Server(run_dir, request.getfixturevalue("watchdog"))
        request.config.add_cleanup(_stop_shared)
    return _SERVER


def _stop_shared() -> None:
    global _SERVER
    server, _SERVER = _SERVER, None
    if server is not None:
        server.stop()


def without_aws_env(env: Dict[str, str]) -> Dict[str, str]:
    """`env` without AWS credentials or sparkload's S3 settings, so a test decides them."""
    return {k: v for k, v in env.items() if not k.startswith(("AWS_", "SPARKLOAD_S3_", "SPARKLOAD_WAREHOUSE"))}
