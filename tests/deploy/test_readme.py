"""The README's "Thrift server" and "dbt Cloud" examples, run as written: `sparkload lakehouse serve`
as a real foreground process (port and lakehouse swapped for this run's), the Quickstart's extractor,
and a fresh dbt project assembled from the README's blocks that installs the package (its `git:` entry
becomes `local:`, the one change: there is no network) and runs with `type: spark` over the wire."""
from __future__ import annotations

import re

from python_extract.lakehouse import session_format
from python_extract.lakehouse.processes import free_port

from ..conftest import REPO, rows
from .commands import Foreground, command_line, readme_block, readme_blocks

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
    (path / "models" / "customers.sql").write_text(readme_block(QUICKSTART, "-- models/customers.sql"))
    (path / "profiles.yml").write_text(readme_block("Thrift server", "# profiles.yml").replace("10000", str(port)))
    return path


def _dbt(project, *args):
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke([*args, "--project-dir", str(project), "--profiles-dir", str(project)])
    assert result.success, f"dbt {' '.join(args)}: {result.exception}"


def test_readme_thrift_and_dbt_cloud__package_alone_upserts_over_the_wire(spark, lakehouse, tmp_path):
    port = free_port()
    argv, env = command_line(readme_blocks("Thrift server")[0].strip(),
                             {".sparkload": str(lakehouse.home), "10000": str(port)})
    server = Foreground(argv, env, cwd=tmp_path)
    try:
        server.wait_for_line(rf"thrift server listening on 127\.0\.0\.1:{port}", timeout=300)
        exec(readme_block(QUICKSTART, "import python_extract"), {})  # lands into SPARKLOAD_HOME: this run's lakehouse

        project = _project_from_readme(tmp_path / "shop", port, session_format(spark))
        _dbt(project, "deps")
        _dbt(project, "run")

        assert rows(spark, "select * from analytics.customers") == [{"id": 1, "name": "Ann", "address__city": "Oslo"}]
        code = server.interrupt()
    except BaseException:
        server.kill()
        raise
    assert code == 0
    assert server.leftovers([port]) == []
