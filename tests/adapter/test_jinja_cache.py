"""Macros compiled once per machine (dbt/adapters/sparkload/jinja_cache.py): a macro's code read back from
the cache is the code a fresh compile makes, for every macro file of the package; a changed source, a
damaged file, a folder that cannot be written and a macro that does not compile behave as dbt does without
the cache. Every `dbt run` of the suites goes through it too (the adapter installs it)."""
from __future__ import annotations

import marshal
import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from dbt_common.clients import jinja as dbt_jinja
from dbt_common.exceptions import CompilationError

import dbt.adapters.sparkload  # noqa: F401  (installs the cache, as dbt's plugin loading does)
from dbt.adapters.sparkload import jinja_cache
from dbt.adapters.sparkload.jinja_cache import MacroCodeCache

pytestmark = pytest.mark.fast

REPO = Path(__file__).resolve().parents[2]
MACRO = "{% macro greet(name) %}hello {{ name | upper }}{% endmacro %}"


def node(source: str, name: str = "greet") -> SimpleNamespace:
    return SimpleNamespace(macro_sql=source, name=name, unique_id=f"macro.test.{name}", original_file_path=name)


def render(template, name: str = "greet", *args) -> str:
    return str(template.make_module(vars={}).__dict__[dbt_jinja.get_dbt_macro_name(name)](*args))


def files(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir())


def test_a_second_process_reads_the_code_the_first_compiled(tmp_path):
    first = MacroCodeCache(tmp_path / "cache")
    assert render(first.template(node(MACRO)), "greet", "ann") == "hello ANN" and first.compiled == 1
    assert len(files(tmp_path / "cache")) == 1
    second = MacroCodeCache(tmp_path / "cache")  # a new process: nothing compiled in memory
    assert render(second.template(node(MACRO)), "greet", "bob") == "hello BOB" and second.compiled == 0


def test_every_package_macro_file_reads_back_as_a_fresh_compile(tmp_path):
    """The check that can fail: the code loaded from the cache is byte for byte what dbt-common's environment
    compiles from the same source now."""
    sources = sorted({p.resolve() for folder in ("macros", "dbt/include/sparkload") for p in (REPO / folder).rglob("*.sql")})
    assert len(sources) > 40
    for path in sources:
        MacroCodeCache(tmp_path).template(node(path.read_text(), path.name))
    reader = MacroCodeCache(tmp_path)
    for path in sources:
        source = path.read_text()
        env = dbt_jinja.get_environment(None)
        bucket = reader.bytecode.get_bucket(env, reader.name(env, source), None, source)
        assert bucket.code is not None, path
        assert marshal.dumps(bucket.code) == marshal.dumps(env.compile(source)), path
        reader.template(node(source, path.name))
    assert reader.compiled == 0


def test_an_edited_macro_compiles_anew(tmp_path):
    cache = MacroCodeCache(tmp_path)
    cache.template(node(MACRO))
    edited = MacroCodeCache(tmp_path).template(node(MACRO.replace("hello", "goodbye")))
    assert render(edited, "greet", "ann") == "goodbye ANN" and len(files(tmp_path)) == 2


def test_a_damaged_file_is_compiled_again_and_replaced(tmp_path):
    MacroCodeCache(tmp_path).template(node(MACRO))
    (only,) = tmp_path.iterdir()
    only.write_bytes(only.read_bytes()[:40])  # cut short, as by a full disk
    again = MacroCodeCache(tmp_path)
    assert render(again.template(node(MACRO)), "greet", "ann") == "hello ANN" and again.compiled == 1
    assert MacroCodeCache(tmp_path).template(node(MACRO)) and MacroCodeCache(tmp_path).compiled == 0


def test_a_folder_that_cannot_be_written_leaves_the_cache_to_memory(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    said = []
    cache = MacroCodeCache(blocked / "cache", SimpleNamespace(debug=said.append))
    assert render(cache.template(node(MACRO)), "greet", "ann") == "hello ANN"
    assert not cache.writable and len(said) == 1 and "are not kept in" in said[0]
    cache.template(node(MACRO.replace("hello", "hi")))
    assert len(said) == 1  # said once


def test_a_macro_that_does_not_compile_fails_as_without_the_cache(tmp_path):
    broken = "{% macro broken() %}{{ 1 + }}{% endmacro %}"
    with pytest.raises(CompilationError) as ours:
        MacroCodeCache(tmp_path).template(node(broken, "broken"))
    with pytest.raises(CompilationError) as dbts:
        dbt_jinja.get_template(broken, {}, node=node(broken, "broken"))
    assert str(ours.value) == str(dbts.value) and not list(tmp_path.iterdir())


def test_files_not_written_for_30_days_go_when_a_new_one_is_written(tmp_path):
    cache = MacroCodeCache(tmp_path)
    cache.template(node(MACRO))
    (old,) = tmp_path.iterdir()
    month = time.time() - 31 * 24 * 3600
    os.utime(old, (month, month))
    (tmp_path / "someone-elses.txt").write_text("kept")
    os.utime(tmp_path / "someone-elses.txt", (month, month))
    cache.template(node(MACRO.replace("hello", "hi")))
    assert not old.exists() and len(files(tmp_path)) == 2 and (tmp_path / "someone-elses.txt").exists()


def test_the_folder_setting(monkeypatch, tmp_path):
    monkeypatch.delenv(jinja_cache.ENV_VAR, raising=False)
    assert jinja_cache.folder() == Path("~/.cache/sparkload/jinja").expanduser()
    monkeypatch.setenv(jinja_cache.ENV_VAR, str(tmp_path / "j"))
    assert jinja_cache.folder() == tmp_path / "j"
    for off in ("off", "OFF"):
        monkeypatch.setenv(jinja_cache.ENV_VAR, off)
        assert jinja_cache.folder() is None


def test_the_adapter_serves_dbts_macro_templates_through_the_cache(monkeypatch):
    installed = jinja_cache.install()
    if os.environ.get(jinja_cache.ENV_VAR, "").lower() == "off":
        assert installed is None
        return
    assert installed is not None and jinja_cache.install() is installed
    asked = []
    monkeypatch.setattr(installed, "template", lambda n: asked.append(n) or dbt_jinja.get_template(n.macro_sql, {}, node=n))
    probe = node("{% macro sparkload_cache_probe() %}probe{% endmacro %}", "sparkload_cache_probe")
    dbt_jinja.template_cache.file_cache.pop(probe.macro_sql, None)
    template = dbt_jinja.template_cache.get_node_template(probe)
    assert asked == [probe] and dbt_jinja.template_cache.get_node_template(probe) is template and asked == [probe]
    assert render(template, "sparkload_cache_probe") == "probe"
