"""The macro package's layout (issue 39), read from the files, no Jinja rendering: a strategy's name is
compared only where it lives (the contract mirror, macros/helpers/contract.sql, and the strategy's own
folder macros/strategies/<strategy>/); no two macro files call each other round a cycle; no `validate_`
macro reads a table (its facts are fetched before it and passed in). Fast tier.

Run as a script (`python tests/materialization/test_macro_layout.py [ROOT]`) it prints the counts for a tree."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, List, Mapping, Set, Tuple

import pytest

from python_extract import contract

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_MIRROR = "macros/helpers/contract.sql"
NAMES = (*contract.MERGE_STRATEGIES, *(d for d in contract.WRITE_DISPOSITIONS if d != "merge"))
LITERAL = re.compile(r"""['"](%s)['"]""" % "|".join(re.escape(n) for n in NAMES))
DEFINITION = re.compile(r"{%-?\s*macro\s+(\w+)\s*\(")
COMMENT = re.compile(r"{#.*?#}", re.S)
# a call: `sl.name(`, `sparkload.name(`, `name(` (dbt's context), or `adapter.dispatch('name'`
CALL = re.compile(r"dispatch\(\s*'(\w+)'|(?:\b(?:sl|sparkload|context)\.)?\b(\w+)\s*\(")


def macro_files(root: Path = ROOT) -> Dict[str, str]:
    """Every macro file of the package: its path relative to `root` -> its text."""
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted((root / "macros").rglob("*.sql"))}


def home_of(name: str) -> str:
    return f"macros/strategies/{name.replace('-', '_')}/"


def literals_outside_homes(files: Mapping[str, str]) -> List[Tuple[str, int, str]]:
    """(file, line, name) of each quoted strategy name outside the contract mirror and that strategy's folder."""
    found = []
    for path, text in files.items():
        if path == CONTRACT_MIRROR:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            found += [(path, number, m.group(1)) for m in LITERAL.finditer(line) if not path.startswith(home_of(m.group(1)))]
    return found


def call_graph(files: Mapping[str, str]) -> Dict[str, Set[str]]:
    """file -> the other files whose macros it calls (comments ignored; a `default__x` counts as `x`)."""
    owner: Dict[str, str] = {}
    for path, text in files.items():
        for name in DEFINITION.findall(COMMENT.sub("", text)):
            owner.setdefault(name, path)
            owner.setdefault(name.removeprefix("default__"), path)
    graph: Dict[str, Set[str]] = {path: set() for path in files}
    for path, text in files.items():
        for m in CALL.finditer(COMMENT.sub("", text)):
            callee = owner.get(m.group(1) or m.group(2))
            if callee is not None and callee != path:
                graph[path].add(callee)
    return graph


def cycles(graph: Mapping[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one file (Tarjan), each sorted: every cycle lies in one."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


MACRO = re.compile(r"{%-?\s*macro\s+(\w+)\s*\((.*?){%-?\s*endmacro\s*-?%}", re.S)
# what reads or writes a table: dbt's query helpers, the adapter's catalog calls, and the package's own
# fetch_/run_ macros (a `validate_` macro gets what it checks passed in)
IO = re.compile(r"\brun_query\(|\bcall\s+statement\(|\bload_result\(|\badapter\.(?:get_relation|get_columns_in_relation|"
                r"fetch_table_names|list_relations|execute)\(")
IO_MACRO = re.compile(r"^_?(?:fetch|run)_")


def macro_bodies(files: Mapping[str, str]) -> Dict[str, str]:
    """macro name -> its body (comments removed); `default__x` is folded into `x`."""
    bodies: Dict[str, str] = {}
    for text in files.values():
        for name, body in MACRO.findall(COMMENT.sub("", text)):
            key = name.removeprefix("default__")
            bodies[key] = bodies.get(key, "") + body
    return bodies


def io_in_validation(files: Mapping[str, str]) -> List[Tuple[str, str]]:
    """(validator, what it reaches that reads or writes a table) for each `validate_` macro (public or
    `_sparkload_validate_`) whose calls, followed through the package's macros, reach I/O."""
    bodies = macro_bodies(files)
    found = []
    for start in sorted(n for n in bodies if re.match(r"^_?(?:sparkload_)?validate_", n)):
        seen, todo = {start}, [start]
        while todo:
            name = todo.pop()
            body = bodies[name]
            hit = IO.search(body)
            if hit or IO_MACRO.match(name):
                found.append((start, name if IO_MACRO.match(name) else f"{name}: {hit.group(0)}"))
                break
            for m in CALL.finditer(body):
                callee = m.group(1) or m.group(2)
                if callee in bodies and callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
    return found


def test_layout__no_validator_reads_a_table():
    found = io_in_validation(macro_files())
    assert found == [], f"validators that reach I/O (fetch it before, pass it in): {found}"


def test_layout__no_strategy_name_is_compared_outside_its_home():
    found = literals_outside_homes(macro_files())
    assert found == [], "strategy names outside the contract mirror and their folder (read the spec instead: " \
                        "macros/helpers/strategy_spec.sql): " + "; ".join(f"{p}:{n} {s}" for p, n, s in found)


def test_layout__every_strategy_has_its_folder():
    for name in NAMES:
        assert (ROOT / home_of(name) / f"{name.replace('-', '_')}.sql").is_file(), name


def test_layout__no_macro_files_call_each_other_round_a_cycle():
    found = cycles(call_graph(macro_files()))
    assert found == [], f"macro files in a call cycle: {found}"


# -- each check can fail
def test_layout__a_name_compared_outside_its_home_is_found():
    files = {"macros/helpers/x.sql": "{%- if cfg.strategy == 'scd2' -%}",
             "macros/strategies/scd2/scd2.sql": "{%- if cfg.strategy == 'scd2' -%}",
             "macros/strategies/upsert/upsert.sql": "{#- strategy='insert-only' -#}",
             CONTRACT_MIRROR: "'merge_strategies': ['delete-insert', 'upsert']"}
    assert literals_outside_homes(files) == [("macros/helpers/x.sql", 1, "scd2"),
                                             ("macros/strategies/upsert/upsert.sql", 1, "insert-only")]


def test_layout__a_validator_that_queries_is_found():
    files = {"macros/v.sql": "{% macro validate_x(t) %}{{ sl._check(t) }}{% endmacro %}"
                             "{% macro validate_y(t, found) %}{{ found }}{% endmacro %}",
             "macros/c.sql": "{% macro default___check(t) %}{% set r = sl.fetch_sparkload_rows(t) %}{% endmacro %}"
                             "{% macro fetch_sparkload_rows(t) %}{{ return(run_query('select 1')) }}{% endmacro %}"}
    assert io_in_validation(files) == [("validate_x", "fetch_sparkload_rows")]


def test_layout__a_cycle_of_calls_between_files_is_found():
    files = {"macros/a.sql": "{% macro a() %}{{ sl.b() }}{% endmacro %}",
             "macros/b.sql": "{% macro b() %}{{ return(adapter.dispatch('c', 'sparkload')()) }}{% endmacro %}",
             "macros/c.sql": "{% macro default__c() %}{{ sl.a() }}{% endmacro %}",
             "macros/d.sql": "{% macro d() %}{{ sl.a() }}{#- sl.d() -#}{% endmacro %}"}
    graph = call_graph(files)
    assert graph["macros/d.sql"] == {"macros/a.sql"}
    assert cycles(graph) == [["macros/a.sql", "macros/b.sql", "macros/c.sql"]]
    del files["macros/c.sql"]
    assert cycles(call_graph(files)) == []


if __name__ == "__main__":
    tree = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    files = macro_files(tree)
    print(f"strategy-name literals outside their homes: {len(literals_outside_homes(files))}")
    found = cycles(call_graph(files))
    print(f"macro-file call cycles: {len(found)} ({', '.join(str(len(c)) + ' files' for c in found)})")
    for c in found:
        print("  ", " ".join(c))
    print(f"validators reaching I/O: {io_in_validation(files)}")
