"""Servers the test run shares: one Spark Thrift server over the session's lakehouse, started the first
time a test runs dbt over the wire and stopped (its port checked free) when the run ends.

`tests/conftest.py` imports these fixtures, so every test folder can use them.
"""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def thrift_server(spark, lakehouse, tmp_path_factory):
    from python_extract.lakehouse.serve import start_thrift_server

    # `spark` first: this process then owns the H2 catalog server and the thrift server joins it
    server = start_thrift_server(lakehouse, run_dir=tmp_path_factory.mktemp("thrift-server"))
    os.environ["SPARKLOAD_THRIFT_HOST"] = server.host
    os.environ["SPARKLOAD_THRIFT_PORT"] = str(server.port)
    yield server
    server.stop()
