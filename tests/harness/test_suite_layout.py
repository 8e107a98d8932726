"""The suite's layout (docs/testing.md): a subject folder holds its test modules, its conftest and nothing
else (a folder of case files, as tests/parity/cases/, aside); helpers live in tests/support/, and no module
imports a conftest or a test module. Read from the files, no import."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import List

import pytest

from ..support.paths import REPO

pytestmark = pytest.mark.fast

TESTS = REPO / "tests"
CASE_FOLDERS = {TESTS / "parity" / "cases"}  # expected results as data, beside their tests


def helpers_in_subject_folders(tests: Path) -> List[str]:
    """Each module of a subject folder of `tests` that is not a test module, a conftest or an `__init__`."""
    return sorted(str(path.relative_to(tests)) for folder in tests.iterdir()
                  if folder.is_dir() and folder.name not in ("support", "__pycache__")
                  for path in folder.rglob("*.py") if path.parent not in CASE_FOLDERS
                  and not (path.name.startswith("test_") or path.name in ("conftest.py", "__init__.py")))


def imports_of_tests_or_conftests(tests: Path) -> List[str]:
    """Each `import` of a conftest or a test module by a module under `tests`, relative imports resolved."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        package = list(path.relative_to(tests.parent).parent.parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] + [f"{module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found += [f"{path.relative_to(tests)}:{node.lineno} imports {name}" for name in names
                      if name.startswith(f"{tests.name}.") and name.rsplit(".", 1)[-1].startswith(("test_", "conftest"))]
    return found


def test_layout__a_subject_folder_holds_only_tests_and_its_conftest():
    assert helpers_in_subject_folders(TESTS) == []


def test_layout__no_module_imports_a_conftest_or_a_test_module():
    assert imports_of_tests_or_conftests(TESTS) == []


def test_layout__both_rules_can_fail(tmp_path):
    tests = tmp_path / "tests"
    (tests / "subject").mkdir(parents=True)
    (tests / "subject" / "helpers.py").write_text("")
    (tests / "subject" / "test_a.py").write_text("from .conftest import fixture\nfrom . import test_b\n")
    assert helpers_in_subject_folders(tests) == ["subject/helpers.py"]
    assert imports_of_tests_or_conftests(tests) == ["subject/test_a.py:1 imports tests.subject.conftest",
                                                    "subject/test_a.py:2 imports tests.subject.test_b"]
