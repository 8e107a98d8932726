#!/usr/bin/env bash
# Sets up this checkout on a fresh machine: system packages (Java 17, jarjar, an H2 JDBC driver),
# a virtual environment at .venv/ with sparkload and its test dependencies, and the cached jars of
# the offline Iceberg lakehouse. Safe to run again; it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
[ -f /usr/share/java/jarjar.jar ] || need+=(libjarjar-java)
[ -f /usr/share/java/h2.jar ] || need+=(libh2-java)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)  # SQL source tests
# the JDBC driver of an Iceberg catalog on PostgreSQL (tests/deploy/test_cluster.py)
{ ls ~/.m2/repository/org/postgresql/postgresql/*/postgresql-*.jar || ls /usr/share/java/postgresql.jar; } >/dev/null 2>&1 \
  || need+=(libpostgresql-jdbc-java)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
# compat mode: the checkout goes on sys.path, so dbt's namespace packages (dbt.adapters, dbt.include)
# pick up dbt/adapters/sparkload and dbt/include/sparkload straight from the source tree
.venv/bin/pip install -q --disable-pip-version-check -e '.[test]' --config-settings editable_mode=compat
# --s3: hadoop-aws for S3 warehouses (tests/lakehouse/test_s3.py), from the PyPI sdist sagemaker-pyspark
.venv/bin/sparkload lakehouse setup --table-format iceberg --s3 >/dev/null
echo "setup: done (.venv/bin/sparkload, .venv/bin/dbt)"
