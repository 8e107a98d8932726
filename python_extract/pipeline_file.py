"""A pipeline YAML file (`sparkload run github.yaml`): read, checked, and turned into what `run` lands,
all before any Spark work.

    pipeline_name: github                 # letters, digits, _ . - (a directory and schema name)
    dataset_name: github_raw
    source: my_sources.github:github      # module:attribute, path/to/file.py:attribute, or a plugin:
                                          #   {type: rest_api, name: ..., config: {...}}
    args: {repo: acme/api}                # arguments of the source function, checked against its signature
                                          #   (a plugin takes none: its settings go under source.config)
    resources: [issues]
    table_name: issues                    # for a single resource or plain data
    write_disposition: merge              # append | replace | merge
    pipelines_dir: /var/lib/sparkload
    lock_wait: 60                         # seconds to wait for another writer of the pipeline
    keep_loaded_packages: 10              # loaded packages kept on disk
    lakehouse: {home: /data/lake, table_format: iceberg, master: "local[*]", jars_dir: ..., jars_cache: ...,
                catalog_uri: ..., spark_conf: {spark.executor.memory: 2g}}

Unknown keys are refused at every level (a plugin's `config` by the plugin's JSON Schema), with the
closest valid key suggested. `check_arguments` checks `args` against the signature of the function
they are passed to: unknown or missing arguments, and values that do not fit a plain annotation (`int`,
`float`, `bool`, `str`, `list`, `dict`, `Optional`/`Union`/`Literal` of them); a parameter whose default is
an incremental cursor or date windows takes no value (one would silently replace the cursor).

Errors: `PipelineFileError` (the file), `ConfigError` (arguments, target).
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import re
import sys
import traceback
import types
import typing
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import yaml

from .contract import TABLE_FORMATS, WRITE_DISPOSITIONS
from .errors import ConfigError, HintError, PipelineFileError, did_you_mean

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")
_STRING = {"type": "string", "minLength": 1}
LAKEHOUSE_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "home": _STRING, "table_format": {"enum": list(TABLE_FORMATS)}, "master": _STRING,
        "jars_dir": _STRING, "jars_cache": _STRING, "catalog_uri": _STRING,
        "app_name": _STRING,
        "spark_conf": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
    },
}
SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["source"],
    "properties": {
        "pipeline_name": {"type": "string", "pattern": NAME.pattern},
        "dataset_name": _STRING,
        "source": {"anyOf": [{"type": "string", "pattern": "^[^:]+:[^:]+$"}, {"type": "object"}]},
        "args": {"type": "object"},
        "resources": {"type": "array", "items": _STRING, "minItems": 1},
        "table_name": _STRING,
        "write_disposition": {"enum": list(WRITE_DISPOSITIONS)},
        "pipelines_dir": _STRING,
        "lock_wait": {"type": "number", "minimum": 0},
        "keep_loaded_packages": {"type": "integer", "minimum": 0},
        "lakehouse": LAKEHOUSE_SCHEMA,
    },
}
_EXPECTS = {"string": "a string", "object": "a mapping (key: value)", "array": "a list", "integer": "an integer",
            "number": "a number", "null": "null"}


def check_pipeline_name(name: Any, where: str = "pipeline_name") -> str:
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{where}: {str(name)[:120]!r} is not a pipeline name (1-100 letters, digits, _ . -, "
                          "not starting with . or -)")
    return name


def _where(parts: Any) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _message(error: Any, schema: Dict[str, Any]) -> str:
    """jsonschema's message, said for a person: the unknown key with the closest valid one, the type wanted."""
    if error.validator == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        hints = [f"{k!r}" + (f" (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(k, allowed, 1)) else "")
                 for k in map(str, unknown)]
        return f"unknown key {', '.join(hints)}; expected one of {', '.join(allowed)}"
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"expected {' or '.join(_EXPECTS.get(w, w) for w in wanted)}, got {type(error.instance).__name__} {str(error.instance)[:80]!r}"
    if error.validator == "enum":
        return error.message + did_you_mean(error.instance, error.validator_value)
    if error.validator == "pattern" and error.path and error.path[-1] == "pipeline_name":
        return f"{str(error.instance)[:120]!r} is not a pipeline name (1-100 letters, digits, _ . -)"
    if error.validator == "pattern":
        return f"{str(error.instance)[:120]!r} is not module:attribute or path/to/file.py:attribute"
    if error.validator == "anyOf" and error.path and error.path[-1] == "source":
        return (f"expected module:attribute, path/to/file.py:attribute or a plugin mapping {{type, config}}, "
                f"got {type(error.instance).__name__} {str(error.instance)[:80]!r}")
    return error.message


def read_pipeline_file(path: Any) -> Dict[str, Any]:
    """The checked settings of a pipeline YAML file; of several problems the error names the one
    jsonschema's `best_match` picks (the shallowest; inside `anyOf`, the branch that fits best)."""
    import jsonschema
    from jsonschema.exceptions import best_match

    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise PipelineFileError(path, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PipelineFileError(path, "", f"cannot be read: {e}") from None
    try:
        settings = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = " ".join(str(getattr(e, "problem", None) or e).split())
        raise PipelineFileError(path, where, f"not valid YAML: {problem}") from None
    if settings is None:
        raise PipelineFileError(path, "", "is empty; it needs at least `source:`")
    if not isinstance(settings, dict):
        raise PipelineFileError(path, "", f"expected a mapping of keys (pipeline_name, source, ...), got a {type(settings).__name__}")
    error = best_match(jsonschema.Draft202012Validator(SCHEMA).iter_errors(settings))
    if error is not None:
        raise PipelineFileError(path, _where(error.absolute_path), _message(error, SCHEMA))
    return settings


def import_target(spec: str) -> Any:
    """The object `module:attribute` or `path/to/file.py:attribute` names."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not attribute:
        raise ConfigError(f"target {spec!r}: expected module:attribute, path/to/file.py:attribute or a .yaml file")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name).resolve()
            if not path.is_file():
                raise FileNotFoundError(f"no file {path}")
            loaded = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(loaded)
            sys.modules[path.stem] = module
            loaded.loader.exec_module(module)
        else:
            module = _import_from_cwd(module_name)
        return getattr(module, attribute)
    except (ImportError, AttributeError, FileNotFoundError) as e:
        raise ConfigError(f"target {spec!r}: {type(e).__name__}: {e}") from e
    except HintError as e:  # a resource defined with a misspelt hint: name the line of the user's file too
        line = next((frame.lineno for frame in reversed(traceback.extract_tb(e.__traceback__))
                     if Path(frame.filename).name == Path(module_name).name), None)
        raise HintError(f"{module_name}{f' line {line}' if line else ''}: {e}") from e


def _import_from_cwd(name: str) -> Any:
    """Import module `name` as `python -m` would find it: the working directory first on sys.path. This loader
    serves the `sparkload` command (the process is the CLI's), and the entry stays for the run: a resource
    may import its siblings when it runs. Added once, not once per call."""
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    return importlib.import_module(name)


def _fits(value: Any, annotation: Any) -> bool:
    """Whether `value` fits a plain annotation; anything this cannot judge fits."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(value, a) for a in typing.get_args(annotation))
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    if annotation is type(None):
        return value is None
    if origin in (list, tuple, set) or annotation in (list, tuple, set):
        items = typing.get_args(annotation)
        return isinstance(value, list) and (not items or origin is not list or all(_fits(v, items[0]) for v in value))
    if origin is dict or annotation is dict:
        return isinstance(value, dict)
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is str:
        return isinstance(value, str)
    return True


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) if isinstance(annotation, type) else str(annotation).replace("typing.", "")


def check_arguments(fn: Any, args: Dict[str, Any], where: Callable[[str], str] = lambda key: f"args.{key}".rstrip(".")) -> None:
    """Refuse `args` that `fn`'s signature does not take, lacks, or types differently (module docstring);
    `where(key)` says where an argument was given (`pipeline.yaml: args`, `--arg`)."""
    from .extract import Incremental
    from .extract.windows import DateWindows

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    name = getattr(fn, "__name__", None) or getattr(fn, "name", "the target")
    shown = f"{name}{signature}"
    shown = shown if len(shown) <= 160 else shown[:157] + "..."
    try:
        signature.bind(**args)
    except TypeError as e:
        culprit = re.search(r"argument '(\w+)'", str(e))
        raise ConfigError(f"{where(culprit.group(1) if culprit else '')}: {e} (signature: {shown})") from None
    try:
        hints = typing.get_type_hints(inspect.unwrap(fn) if inspect.isfunction(inspect.unwrap(fn)) else fn)
    except Exception:  # noqa: BLE001 - unresolvable annotations: check what the signature shows
        hints = {}
    for key, value in args.items():
        param = signature.parameters.get(key)
        if param is None:
            continue
        if isinstance(param.default, (Incremental, DateWindows)):  # a value would silently replace the cursor
            kind = "incremental cursor" if isinstance(param.default, Incremental) else "date_windows argument"
            raise ConfigError(f"{where(key)}: {key} is the {kind} of {name} (set in its code), not an argument; "
                              f"got {type(value).__name__} {str(value)[:80]!r}; remove it (signature: {shown})")
        annotation = hints.get(key, param.annotation)
        if isinstance(annotation, str):
            continue
        if not _fits(value, annotation):
            raise ConfigError(f"{where(key)}: expected {_type_name(annotation)}, got {type(value).__name__} "
                              f"{str(value)[:80]!r} (signature: {shown})")


def build_data(settings: Dict[str, Any], where: Callable[[str], str] = lambda key: f"args.{key}".rstrip(".")) -> Any:
    """What `settings` (a checked pipeline file merged with options) asks `run` to land; `where(key)` names
    where an argument came from, for errors."""
    from .extract import Resource, Source

    args = settings.get("args") or {}
    if isinstance(settings["source"], dict):  # a source plugin: {type, name, config}
        from .sources.registry import build_source

        if args:
            raise ConfigError(f"{where(next(iter(args)))}: source plugin {settings['source'].get('type')!r} takes no "
                              "arguments; its settings go under source.config")
        from .lakehouse.config import LakehouseConfig

        return build_source(settings["source"], home=LakehouseConfig.from_env().home)
    data = import_target(settings["source"])
    if callable(data) and not isinstance(data, Source):
        if args or not isinstance(data, Resource):
            check_arguments(data, args, where)
            data = data(**args)
    elif args:
        raise ConfigError(f"{where('')}: {settings['source']} is a {type(data).__name__}, which takes no arguments")
    if settings.get("resources"):
        if not isinstance(data, Source):
            raise ConfigError("resources: selects resources of a source; the target is not a source")
        unknown = [r for r in settings["resources"] if r not in data.resources]
        if unknown:
            named = ", ".join(f"{r}{did_you_mean(r, data.resources)}" for r in unknown)
            raise ConfigError(f"resources: source {data.name} has no resource {named}; "
                              f"it has {', '.join(data.resources)}")
        data = data.with_resources(*settings["resources"])
    return data


def merge_options(settings: Optional[Dict[str, Any]], options: Dict[str, Any]) -> Dict[str, Any]:
    """`options` (non-None command-line values) over a pipeline file's `settings`; `args` and
    `lakehouse` are merged key by key."""
    merged = dict(settings or {})
    for key, value in options.items():
        if value is None or value == [] or value == {}:
            continue
        if key in ("args", "lakehouse"):
            merged[key] = {**(merged.get(key) or {}), **value}
        else:
            merged[key] = value
    if "pipeline_name" in merged:
        check_pipeline_name(merged["pipeline_name"])
    return merged


def pipeline_name_of(settings: Dict[str, Any], data: Any) -> str:
    """The pipeline name: set, else the source's name, else the target module's name."""
    name = settings.get("pipeline_name") or getattr(data, "name", None)
    if not name:
        source = settings["source"]
        name = Path(source.split(":")[0]).stem if isinstance(source, str) else source.get("name") or source["type"]
    return check_pipeline_name(name)


__all__: List[str] = ["build_data", "check_arguments", "check_pipeline_name", "import_target", "merge_options",
                      "pipeline_name_of", "read_pipeline_file"]
