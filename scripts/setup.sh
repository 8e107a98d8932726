#!/usr/bin/env bash
# Sets up this checkout on a fresh machine: system packages (Java 17, Maven, PostgreSQL for the SQL source
# tests), a virtual environment at .venv/ with sparkload and its test dependencies, the jars both table
# formats, S3 and a PostgreSQL catalog need (fetched from Maven Central once, checked against the SHA-256
# sums pinned in python_extract/lakehouse/jars.py) and the JVM class archive. Safe to run again; it only
# does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)  # SQL source tests
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
# compat mode: the checkout goes on sys.path, so dbt's namespace packages (dbt.adapters, dbt.include)
# pick up dbt/adapters/sparkload and dbt/include/sparkload straight from the source tree
# uv (from PyPI) resolves and installs the same packages as pip in a quarter of the time (a fresh machine:
# 59 s against 266 s, the same `pip freeze`)
.venv/bin/pip install -q --disable-pip-version-check uv
.venv/bin/uv pip install -q --python .venv/bin/python -e '.[test]' -C editable_mode=compat
# the jars of both formats (the tests run both), S3A (tests/lakehouse/test_s3.py) and the PostgreSQL driver (an
# Iceberg catalog on PostgreSQL, tests/deploy/test_cluster.py), the Spark Connect server (tests/deploy/test_connect.py);
# the class archive of a delta session
.venv/bin/sparkload lakehouse setup --s3 --jars iceberg postgresql connect >/dev/null
echo "setup: done (.venv/bin/sparkload, .venv/bin/dbt)"
