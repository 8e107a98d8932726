"""dbt on integration_tests/ in this process, as the suite runs it: a test's schemas (`Names`), the environment
that points the project at them (`dbt_env`), and `Dbt`, which runs dbt commands in-process (dbtRunner) on the
run's session (target `embedded`) or through the run's thrift server (`thrift`, `sparkload_thrift`), reusing
the last parse's manifest while nothing it depends on changed. The fixtures that hand them to tests:
tests/conftest.py."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from .paths import INTEGRATION, REPO

DBT_TARGETS = ("embedded", "thrift")
SERVER_TARGETS = ("thrift", "sparkload_thrift")  # reach the lakehouse through the `thrift_server` fixture
DEPS_INSTALLED = "SPARKLOAD_TEST_DBT_DEPS_INSTALLED"  # set once `dbt deps` ran for the run (by xdist's controller)
# the dbt targets every materialization test runs on (thrift: the package alone over the wire, type: spark,
# through the run's thrift server), and with `spark_session` (plain dbt-spark, the package without the adapter)
# for a representative set; to run them all over another target, add it here
TARGETS = ("embedded", "thrift")
PACKAGE_TARGETS = ("embedded", "spark_session", "thrift")


@dataclass
class Names:
    """Per-test schema names: the staging dataset the extractor writes, the schema dbt builds into."""
    staging: str
    target: str


def dbt_env(names: Names, staging: Optional[str] = None) -> Dict[str, str]:
    """The environment that points integration_tests/ at a test's schemas: the models' schema
    (models/test_schemas.yml) and the staging dataset its sources read (sources.yml). Env vars, not the
    profile's schema or vars, so that dbt re-parses only those files and their models for each test."""
    return {"SPARKLOAD_TARGET_SCHEMA": names.target, "SPARKLOAD_STAGING_DATASET": staging or names.staging}


class Dbt:
    """Runs dbt commands of integration_tests/ in this process: on the shared SparkSession (target
    `embedded`) or through the thrift server over the same lakehouse (`thrift`, `sparkload_thrift`)."""

    def __init__(self, names: Names, target: str = "embedded"):
        self.names = names
        self.target = target
        self.logs: List[str] = []
        self.queries: List[tuple] = []  # (node name or None, SQL) of each statement dbt sent, in order

    def invoke(self, *args: str, vars: Optional[Dict[str, Any]] = None, staging: Optional[str] = None,
               expect_success: bool = True):
        """`dbt <args>` on the test's schemas (env vars: see dbt_env); `staging` reads another staging dataset."""
        import yaml
        from dbt.cli.main import dbtRunner

        _capture_parses()

        os.environ.update(dbt_env(self.names, staging))
        cli = [*args, "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION), "--target", self.target,
               "--no-write-json"]  # no test reads manifest.json or run_results.json; writing both costs ~0.7 s a call
        if vars:  # only when given: new vars make dbt parse the whole project again
            cli += ["--vars", yaml.safe_dump(vars)]
        events: List[str] = []

        def on_event(e) -> None:
            events.append(e.info.msg)
            if e.info.name == "SQLQuery":
                node = getattr(e.data, "node_info", None)
                self.queries.append((node.node_name if node and node.node_name else None, e.data.sql))

        key = _manifest_key(self.target, args, vars)
        reused = key is not None and _MANIFEST.get("key") == key
        _MANIFEST["parsed"] = None
        result = dbtRunner(manifest=_MANIFEST["manifest"] if reused else None, callbacks=[on_event]).invoke(cli)
        if key is not None and not reused:
            _keep_manifest(key)
        self.logs.extend(events)
        if expect_success and not result.success:
            tail = "\n".join(events[-30:])
            raise AssertionError(f"dbt {' '.join(args)} failed: {result.exception}\n{tail}")
        return result

    def run(self, select: str, **kw):
        return self.invoke("run", "--select", select, **kw)


# The manifest of this process's last dbt parse, reused by the next invocation that would parse the same
# project the same way (dbt's documented programmatic reuse, `dbtRunner(manifest=...)`): a test's second and
# later dbt calls skip parsing (0.3-0.7 s each). The key is what a parse depends on: the target, `--vars`, the
# environment the project reads (SPARKLOAD_*, DBT_*) and every project and package file's mtime and size.
_MANIFEST: Dict[str, Any] = {"key": None, "manifest": None, "parsed": None}
_REUSING = frozenset({"run", "build", "test", "seed", "snapshot", "compile", "run-operation", "show", "ls", "list"})
_PROJECT_FILES = (INTEGRATION / "dbt_project.yml", INTEGRATION / "models", INTEGRATION / "macros", INTEGRATION / "seeds",
                  INTEGRATION / "tests", INTEGRATION / "snapshots", REPO / "dbt_project.yml", REPO / "macros")


def _project_fingerprint() -> tuple:
    files = []
    for root in _PROJECT_FILES:
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for path in paths:
            st = path.stat()
            files.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(files)


def _manifest_key(target: str, args: Sequence[str], vars: Optional[Dict[str, Any]]) -> Optional[tuple]:
    """What the manifest of `dbt <args>` depends on; None for a command that should parse itself."""
    if not args or args[0] not in _REUSING:
        return None
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(("SPARKLOAD_", "DBT_"))))
    return (target, repr(sorted((vars or {}).items())), env, _project_fingerprint())


def _capture_parses() -> None:
    """Let `_keep_manifest` see the manifest dbt parsed (dbt does not return it from `run`)."""
    import dbt.cli.requires as requires

    if getattr(requires.parse_manifest, "sparkload_capture", False):
        return
    parse = requires.parse_manifest

    def capture(*args, **kwargs):
        _MANIFEST["parsed"] = manifest = parse(*args, **kwargs)
        return manifest

    capture.sparkload_capture = True  # type: ignore[attr-defined]
    requires.parse_manifest = capture


def _keep_manifest(key: tuple) -> None:
    parsed, _MANIFEST["parsed"] = _MANIFEST["parsed"], None
    # a run compiles ephemeral models into their callers once (dbt marks them injected): parse again
    usable = parsed is not None and not any(getattr(n.config, "materialized", None) == "ephemeral"
                                            for n in parsed.nodes.values())
    _MANIFEST.update(key=key if usable else None, manifest=parsed if usable else None)


def install_dbt_deps() -> None:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(["deps", "--project-dir", str(INTEGRATION), "--profiles-dir", str(INTEGRATION)])
    assert result.success, result.exception
