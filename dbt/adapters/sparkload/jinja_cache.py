"""Macros compiled once per machine, not once per dbt process.

dbt turns each macro's Jinja into Python the first time a process calls it (dbt-common's `template_cache`
keeps it for that process only). A `dbt run` of sparkload models calls some 90 macros, whose compilation
took 0.6-0.9 s of every run on a 2-core machine, the same work in every process; loading the same code
compiled before takes about 0.01 s (issue 37, goal 2; docs/benchmarks.md).

With the adapter loaded, a macro's compiled code is kept in Jinja's own bytecode cache
(`jinja2.FileSystemBytecodeCache`), one file per macro source, in `SPARKLOAD_JINJA_CACHE` (default
`~/.cache/sparkload/jinja`; `off`: no cache). A file holds the code of exactly one source: its name is a
hash of the source and of what compiles it (dbt-common's environment class and version, Jinja's version),
and Jinja checks the source's checksum and the Python version again when it loads it, so an edited
macro, another dbt-common or another Python compiles anew. The template is built as dbt-common builds it
(its environment, `catch_jinja` for a macro that does not compile); only the compile is skipped. Files
not written for 30 days are removed when a new one is written. A folder that cannot be written leaves
the cache to the process's memory, as dbt does (one debug line).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import os
import time
from pathlib import Path
from typing import Any, Optional

import jinja2
from jinja2.bccache import Bucket, FileSystemBytecodeCache

ENV_VAR = "SPARKLOAD_JINJA_CACHE"
DEFAULT_FOLDER = Path("~/.cache/sparkload/jinja")
OFF = "off"
PATTERN = "sparkload-macro-%s.jinja"
KEEP_SECONDS = 30 * 24 * 3600

_installed: Optional["MacroCodeCache"] = None


def folder() -> Optional[Path]:
    """The cache's folder, or None when `SPARKLOAD_JINJA_CACHE=off`."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value.lower() == OFF:
        return None
    return Path(value or DEFAULT_FOLDER).expanduser()


class MacroCodeCache:
    """Compiled macro code on disk, read and written through Jinja's bytecode cache."""

    def __init__(self, where: Path, log: Any = None):
        self.where = where
        self.bytecode = FileSystemBytecodeCache(str(where), PATTERN)
        self.log = log
        self.writable = True
        self.compiled = 0  # macros this process compiled (misses), for tests and debugging
        self._compiler = f"dbt-common {importlib.metadata.version('dbt-common')}|jinja2 {jinja2.__version__}"

    def template(self, node: Any) -> jinja2.Template:
        """The template of a macro node, as dbt-common's `get_template(node.macro_sql, {}, node)` makes it."""
        from dbt_common.clients import jinja as dbt_jinja

        source = node.macro_sql
        with dbt_jinja.catch_jinja(node):
            env = dbt_jinja.get_environment(node)
            bucket = self._read(env, source)
            code = bucket.code
            if code is None:
                code = env.compile(source)
                self.compiled += 1
                bucket.code = code
                self._write(bucket)
            return env.template_class.from_code(env, code, env.make_globals({}), None)

    def name(self, env: jinja2.Environment, source: str) -> str:
        """The cache's name of a source's code: what compiles it and the source's hash."""
        return f"{type(env).__module__}.{type(env).__qualname__}|{self._compiler}|{hashlib.sha256(source.encode()).hexdigest()}"

    def _read(self, env: jinja2.Environment, source: str) -> Bucket:
        name = self.name(env, source)
        try:
            return self.bytecode.get_bucket(env, name, None, source)
        except Exception:  # noqa: BLE001  a damaged or unreadable file (Jinja lets a cut pickle through): compile, replace it
            return Bucket(env, self.bytecode.get_cache_key(name), self.bytecode.get_source_checksum(source))

    def _write(self, bucket: Any) -> None:
        if not self.writable:
            return
        try:
            self.where.mkdir(parents=True, exist_ok=True)
            self.bytecode.set_bucket(bucket)
            self._prune()
        except OSError as e:
            self.writable = False
            if self.log is not None:
                self.log.debug(f"sparkload: compiled macros are not kept in {self.where} ({e}); "
                               "this process compiles each macro it calls, as dbt does")

    def _prune(self) -> None:
        old = time.time() - KEEP_SECONDS
        for entry in os.scandir(self.where):
            if entry.name.startswith(PATTERN.split("%")[0]):
                try:
                    if entry.stat().st_mtime < old:
                        os.remove(entry.path)
                except FileNotFoundError:  # another process pruned it first
                    pass


def install(log: Any = None) -> Optional[MacroCodeCache]:
    """Serve dbt-common's per-process macro templates through the cache, once per process (a second call
    returns the first's cache). Returns the cache, or None when it is off or dbt's debugging of macro code
    (`DBT_MACRO_DEBUGGING`, which needs the generated source) is on."""
    global _installed
    from dbt_common.clients import jinja as dbt_jinja

    where = folder()
    if _installed is not None or where is None or dbt_jinja.MACRO_DEBUGGING:
        return _installed
    templates = getattr(dbt_jinja, "template_cache", None)
    if not (isinstance(getattr(templates, "file_cache", None), dict)
            and all(hasattr(dbt_jinja, name) for name in ("get_environment", "catch_jinja"))):
        if log is not None:  # another dbt-common than the one this was written for: dbt's own per-process cache
            log.debug("sparkload: this dbt-common keeps its macro templates differently; compiled macros are not kept")
        return None
    cache = MacroCodeCache(where, log)

    def get_node_template(node: Any) -> jinja2.Template:
        found = templates.file_cache.get(node.macro_sql)
        if found is None:
            found = templates.file_cache[node.macro_sql] = cache.template(node)
        return found

    templates.get_node_template = get_node_template  # type: ignore[method-assign]
    _installed = cache
    return cache
