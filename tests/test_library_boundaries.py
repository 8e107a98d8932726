"""The library apart from the runtime (issue 39 item 3), read from the code and checked in-process:

- the library's modules (python_extract/ but the runtime package and the CLI) import nothing of
  `python_extract.runtime`, at any level; the dbt adapter's modules not at import time (their connection
  code imports the warm server's helpers when it starts one);
- source plugins (python_extract/sources/) do not import `python_extract.lakehouse`: what they need
  (the lakehouse home) is passed in;
- a library call leaves process-wide state as it found it: the extractor's GC thresholds, the JVM's quiet
  log option (on the JVM's command line, not in os.environ), the demo's environment.
- one lazy-import mechanism (item 4): no module of the library or the adapter writes its own PEP 562
  `__getattr__` / `__dir__`; a lazy package face is `python_extract.lazy.lazy_face`.

The import rules walk every `import` statement's AST (relative imports resolved), so a function-level
import counts too."""
from __future__ import annotations

import ast
import gc
import os
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from .support.paths import REPO

pytestmark = pytest.mark.fast
PACKAGE = REPO / "python_extract"
ADAPTER = REPO / "dbt" / "adapters" / "sparkload"
CLI = {"python_extract.cli", "python_extract.cli_pipeline", "python_extract.cli_sources"}  # the entry points


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, top_level_only: bool = False) -> Iterator[Tuple[int, str]]:
    """(line, absolute module name) of each import in `path`; `from a import b` yields `a` and `a.b`
    (b may be a submodule)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module_name(path).split(".") if path.name == "__init__.py" else module_name(path).split(".")[:-1]
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def offences(files: List[Path], forbidden: str, top_level_only: bool = False) -> List[str]:
    return sorted({f"{path.relative_to(REPO)}:{line} imports {name}" for path in files
                   for line, name in imports(path, top_level_only)
                   if name == forbidden or name.startswith(forbidden + ".")})


def library_modules() -> List[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not module_name(p).startswith("python_extract.runtime") and module_name(p) not in CLI]


def test_imports_are_read_with_relative_imports_resolved():
    """The walk itself can see an offence: the CLI does import the runtime, relatively."""
    assert any("imports python_extract.runtime" in o for o in offences([PACKAGE / "cli.py"], "python_extract.runtime"))
    assert offences([PACKAGE / "runtime" / "warm.py"], "python_extract.lakehouse.config")  # `from ..lakehouse.config import`


def test_library_modules_do_not_import_the_runtime():
    assert len(library_modules()) > 100
    assert offences(library_modules(), "python_extract.runtime") == []


def test_the_adapter_does_not_import_the_runtime_at_import_time():
    assert offences(sorted(ADAPTER.rglob("*.py")), "python_extract.runtime", top_level_only=True) == []


def test_source_plugins_do_not_import_the_lakehouse():
    assert offences(sorted((PACKAGE / "sources").rglob("*.py")), "python_extract.lakehouse") == []


def hand_rolled_faces(files: List[Path]) -> List[str]:
    """Each module-level `def __getattr__` / `def __dir__` of `files` (a lazy face written by hand)."""
    return [f"{path}:{node.lineno} defines {node.name}" for path in files for node in ast.parse(path.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__getattr__", "__dir__")]


def test_one_lazy_import_mechanism__no_module_writes_its_own_module_getattr(tmp_path):
    hand_rolled = tmp_path / "face.py"
    hand_rolled.write_text("def __getattr__(name):\n    raise AttributeError(name)\n")
    assert hand_rolled_faces([hand_rolled]) == [f"{hand_rolled}:1 defines __getattr__"]  # the rule can fail
    assert hand_rolled_faces(sorted(PACKAGE.rglob("*.py")) + sorted(ADAPTER.rglob("*.py"))) == []


def test_overlapping_extractions_leave_the_gc_thresholds_as_they_found_them():
    """Two runs in two threads whose scopes overlap and end in the order they started: the first one out
    must not restore the thresholds under the second, nor the second restore the first one's."""
    from python_extract.pipeline import _fewer_gc_passes

    before = gc.get_threshold()
    first, second = _fewer_gc_passes(), _fewer_gc_passes()
    try:
        first.__enter__()
        tuned = gc.get_threshold()
        assert tuned != before
        second.__enter__()
        first.__exit__(None, None, None)
        assert gc.get_threshold() == tuned  # the second run is still extracting
        second.__exit__(None, None, None)
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)


def test_the_quiet_log_option_goes_on_the_jvm_command_line_not_the_environment(monkeypatch):
    from python_extract.lakehouse import session

    monkeypatch.delenv("SPARK_SUBMIT_OPTS", raising=False)
    options = session.quiet_log_options({"spark.driver.extraJavaOptions": "-Dx=1"})
    assert options == f"-Dx=1 -Dlog4j2.configurationFile={session.QUIET_LOG4J.as_uri()}"
    assert "SPARK_SUBMIT_OPTS" not in os.environ
    # a log4j configuration the user chose wins, wherever it is given
    assert session.quiet_log_options({"spark.driver.extraJavaOptions": "-Dlog4j2.configurationFile=mine"}) is None
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-Dlog4j2.configurationFile=mine")
    assert session.quiet_log_options({}) is None


def test_the_demo_puts_the_environment_back(monkeypatch, tmp_path):
    import python_extract.demo as demo
    from python_extract.lakehouse import LakehouseConfig

    monkeypatch.setenv("SPARKLOAD_MASTER", "local[3]")
    monkeypatch.delenv("SPARKLOAD_HOME", raising=False)
    seen = {}

    def demo_that_fails(config):
        seen.update(os.environ)
        raise ValueError("dbt run failed")

    monkeypatch.setattr(demo, "_demo", demo_that_fails)
    with pytest.raises(ValueError):  # put back on the way out of a failure too
        demo.run_demo(LakehouseConfig.from_env(home=tmp_path, master="local[1]"))
    assert seen["SPARKLOAD_HOME"] == str(tmp_path) and seen["SPARKLOAD_MASTER"] == "local[1]"
    assert "SPARKLOAD_HOME" not in os.environ and os.environ["SPARKLOAD_MASTER"] == "local[3]"
