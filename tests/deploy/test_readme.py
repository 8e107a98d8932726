"""The "dbt Cloud" example of docs/deployments.md, run as written: the README Quickstart's extractor,
then a fresh dbt project assembled from the docs' blocks that installs the package (its `git:` entry
becomes `local:`, the one change: there is no network) and runs with `type: spark` over the wire, through
the run's thrift server, itself started with the "Thrift server" command of docs/deployments.md
(tests/support/shared_servers.py) and reached with that section's profile. Blocks are found by section title in
README.md and docs/*.md (`readme_block`); tests/test_docs.py checks, without a JVM, that each exists once."""
from __future__ import annotations

import re

import pytest

from python_extract.lakehouse import session_format

from ..support.paths import REPO
from ..support.tables import rows
from ..support.doc_commands import readme_block

pytestmark = pytest.mark.each_format  # the format changes what this tests (docs/testing.md)

QUICKSTART = "Quickstart (embedded lakehouse)"


def _project_from_readme(path, port: int, file_format: str):
    (path / "models").mkdir(parents=True)
    header = "name: shop\nversion: '1.0'\nconfig-version: 2\nprofile: shop\n"
    vars_block = readme_block("dbt Cloud", "# dbt_project.yml").replace("iceberg  ", f"{file_format}  ", 1)
    (path / "dbt_project.yml").write_text(header + vars_block)
    packages = re.sub(r'- git: .*\n\s*revision: .*\n', f"- local: {REPO}\n", readme_block("dbt Cloud", "# packages.yml"))
    assert f"local: {REPO}" in packages
    (path / "packages.yml").write_text(packages)
    (path / "models" / "sources.yml").write_text(readme_block("dbt Cloud", "# models/sources.yml"))
    (path / "models" / "customers.sql").write_text(readme_block(QUICKSTART, "-- models/shop_raw/customers.sql"))
    (path / "profiles.yml").write_text(readme_block("Thrift server", "# profiles.yml").replace("10000", str(port)))
    return path


def _dbt(project, *args):
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke([*args, "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, f"dbt {' '.join(args)}: {result.exception}"


def test_readme_dbt_cloud__package_alone_upserts_over_the_wire(spark, thrift_server, tmp_path):
    exec(readme_block(QUICKSTART, "import python_extract"), {})  # lands into SPARKLOAD_HOME: this run's lakehouse

    project = _project_from_readme(tmp_path / "shop", thrift_server.port, session_format(spark))
    _dbt(project, "deps")
    _dbt(project, "run")

    assert rows(spark, "select * from analytics.customers") == [{"id": 1, "name": "Ann", "address__city": "Oslo"}]
