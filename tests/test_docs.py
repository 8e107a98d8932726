"""The docs hold together without a JVM: every relative link of README.md and docs/*.md reaches an
existing file (and heading, for `#anchor` links), every docs page is linked from the README, every code
block a test executes (through `tests/support/doc_commands.py`) is found on exactly one page, and the
materialization reference lists exactly the model config keys of the contract (python_extract/contract.py)."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

from markdown_it import MarkdownIt

from python_extract.contract import MODEL_CONFIG_KEYS

from .support.doc_commands import readme_block, readme_blocks

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MD = MarkdownIt("commonmark").enable("table")


def _anchors(page: Path) -> List[str]:
    """GitHub's heading anchors of `page`: lowercased text, punctuation dropped, spaces as `-`, and a
    `-1`, `-2`, ... suffix on repeats."""
    tokens, seen, anchors = MD.parse(page.read_text()), {}, []
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            text = "".join(c.content for c in inline.children if c.type in ("text", "code_inline"))
            slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
            anchors.append(f"{slug}-{seen[slug]}" if slug in seen else slug)
            seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _links(page: Path) -> Iterator[str]:
    """The targets of the links of `page` (code blocks and inline code hold none)."""
    for token in MD.parse(page.read_text()):
        for child in token.children or ():
            if child.type == "link_open":
                yield child.attrs["href"]


def test_docs__every_relative_link_reaches_an_existing_file_and_heading():
    checked, broken = 0, []
    for page in PAGES:
        for href in _links(page):
            if re.match(r"^[a-z]+:", href):  # http:, https:, mailto:: not ours to check offline
                continue
            path, _, anchor = href.partition("#")
            target = (page.parent / path).resolve() if path else page
            checked += 1
            if not target.exists():
                broken.append(f"{page.relative_to(REPO)}: {href}: no file {target.relative_to(REPO)}")
            elif anchor and (target.suffix != ".md" or anchor not in _anchors(target)):
                broken.append(f"{page.relative_to(REPO)}: {href}: no heading #{anchor} in {target.relative_to(REPO)}")
    assert checked >= 20, f"only {checked} relative links found: is the link parser still reading the pages?"
    assert broken == []


def test_docs__every_page_under_docs_is_linked_from_the_readme():
    linked = {(REPO / href.partition("#")[0]).resolve() for href in _links(REPO / "README.md")}
    assert [p.name for p in PAGES[1:] if p.resolve() not in linked] == []


def _block_lookups() -> Iterator[Tuple[str, str, list]]:
    """(test file, function, arguments) of every `readme_block`/`readme_blocks` call under tests/,
    arguments resolved through the module's string constants (`QUICKSTART = "..."`)."""
    for path in sorted((REPO / "tests").rglob("*.py")):
        if path.name == "doc_commands.py" or path == Path(__file__):  # where they are defined, and this check
            continue
        tree = ast.parse(path.read_text())
        constants: Dict[str, str] = {
            target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("readme_block", "readme_blocks"):
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                args = [a.value if isinstance(a, ast.Constant) else constants.get(getattr(a, "id", None)) for a in node.args]
                assert all(isinstance(a, str) for a in args), f"{where}: pass the section as a literal or a module constant"
                yield where, node.func.id, args


def test_docs__every_block_a_test_executes_is_found_on_exactly_one_page():
    lookups = list(_block_lookups())
    sections = {args[0] for _, _, args in lookups}
    # the Quickstart (README) and the deployment examples (docs/deployments.md) at the least
    assert {"Quickstart (embedded lakehouse)", "dbt Cloud", "Thrift server", "The warm dbt loop", "Cluster"} <= sections
    for where, function, args in lookups:
        if function == "readme_block":
            assert readme_block(*args), where  # asserts one page, one block
        else:
            assert readme_blocks(*args), f"{where}: section {args[0]!r} has no code block"


def test_materialization_reference__lists_every_config_key_the_materialization_accepts():
    text = (REPO / "docs" / "materialization.md").read_text()
    table = re.search(r"^\| config \| purpose \|.*?\n((?:\|.*\n)+)", text, re.M)
    assert table, "docs/materialization.md has no `| config | purpose |` table"
    documented = re.findall(r"^\| `([a-z_]+)` \|", table.group(1), re.M)
    assert sorted(documented) == sorted(MODEL_CONFIG_KEYS)  # the contract; tests/test_contract.py ties the macros to it
    rows = [row for row in table.group(1).splitlines() if row.startswith("| `")]
    assert all(re.search(r"\| `[a-z_]+=[^`]+` \|$", row) for row in rows), "every key needs an example"
