"""Fast tier (no JVM): how the Spark Connect client tells a gone server from a statement's own failure
(python_extract/connect_client.py); the execution tier kills real servers in test_connect.py and
test_connect_extract.py."""
from __future__ import annotations

import pytest

from python_extract.connect_client import unreachable

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("text", [
    "<_MultiThreadedRendezvous of RPC that terminated with:\n\tstatus = StatusCode.UNAVAILABLE\n\tdetails = \"Socket closed\"",
    "(java.lang.IllegalStateException) Cannot call methods on a stopped SparkContext.",
    # the server's JVM killed while a statement runs: its SparkEnv is gone before its gRPC service (seen in CI)
    '(java.lang.NullPointerException) Cannot invoke "org.apache.spark.SparkEnv.conf()" because the return value of '
    '"org.apache.spark.SparkEnv$.get()" is null',
])
def test_a_server_gone_or_stopping__is_told_as_unreachable(text):
    assert unreachable(RuntimeError(text))


@pytest.mark.parametrize("text", [
    "[TABLE_OR_VIEW_NOT_FOUND] The table or view `raw`.`customers` cannot be found.",
    "(java.lang.NullPointerException) Cannot invoke \"String.length()\" because \"s\" is null",
])
def test_a_statements_own_failure__is_not_told_as_unreachable(text):
    assert unreachable(RuntimeError(text)) is None
