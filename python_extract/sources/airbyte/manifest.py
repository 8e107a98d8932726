"""Airbyte low-code manifests as sparkload sources: a connector's declarative `manifest.yaml` run in
process by airbyte-cdk's own engine (`ConcurrentDeclarativeSource`), one resource per selected stream.

    source = manifest_source("source_dixa/manifest.yaml", config={"api_token": "...", "start_date": "2024-01-01"})
    pipeline.run(source)

What this module maps, and nothing else (requests, pagination, windows, partitions and their state are
the CDK's):
- a stream is a resource of the same name; its `primary_key` is the resource's (a nested key path is
  joined with `__`, as the normalizer names the column), its cursor field gets `dedup_sort: desc`, so a
  record read twice in one load (a window's boundary, a lookback) keeps its latest version;
- incremental with a primary key is `merge` (delete-insert unless the stream's `write_disposition`
  says otherwise: upsert, scd2, ...); incremental without one `append`; full refresh `replace`; an
  incremental stream under scd2 gets its primary key as `merge_key` (a load holds the changed records
  only: a key absent from it is not retired);
- the stream's state (the CDK's STATE message for it, whatever its shape: a cursor, per-partition
  states, a parent's state) is the resource's `airbyte_state`, handed back to the CDK on the next run;
- a STATE message is a checkpoint: the records before it and that state land as one load; a load is
  sealed at the first STATE after `checkpoint_records` records (default 10,000; 1: at every STATE, also
  one that follows no new record).
  Records after the last STATE land with the run but the state stays at that STATE (the next run
  reads them again; merge deduplicates by key). A stream that fails fails the run with the CDK's
  message; the checkpoints it reached stay.

`dynamic_streams` (streams a components resolver makes from an API's answer or the config) are the CDK's
too: they are in the catalog, each a resource, judged in tests/parity_airbyte.

Errors (all `ConfigError`, one line, before any request): airbyte-cdk missing, a manifest that is not
a file, not YAML or not a valid declarative manifest, a custom Python component (`class_name:`: the
connector's own code, which runs from its package through the `airbyte` source instead), a stream the
manifest lacks, a connector config key its spec does not declare or a config the spec refuses; the manifest's `check` failing
(`ConnectorCheckFailed`, a `ConfigError` too; skipped with `check=False`). While reading: `ConnectorError`.
"""
from __future__ import annotations

import contextlib
import copy
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Union

import yaml

from ...errors import ConfigError
from ...extract import Source
from ...extract.checkpoint import CHECKPOINT
from ...extract.resource import Resource, ResourceState
from .connector import ConnectorCheckFailed, ConnectorError

log = logging.getLogger("sparkload.airbyte")
CDK_LOGGER = "airbyte"
REQUEST_CACHE_PATH = "REQUEST_CACHE_PATH"  # airbyte_cdk.utils.constants.ENV_REQUEST_CACHE_PATH
INSTALL = "pip install 'dbt-sparkload[airbyte]'"


@contextlib.contextmanager
def _logging_kept() -> Iterator[None]:
    """Put the root logger back as it was: airbyte_cdk configures it (importing its entrypoint prints every
    log line as an Airbyte message on stdout, and its module-level `logging` calls add a handler)."""
    root, airbyte = logging.getLogger(), logging.getLogger(CDK_LOGGER)
    handlers, level, airbyte_level = list(root.handlers), root.level, airbyte.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        airbyte.setLevel(airbyte_level)


@contextlib.contextmanager
def _one_sync() -> Iterator[None]:
    """What the CDK's entrypoint gives each sync: its own HTTP cache folder (REQUEST_CACHE_PATH). Without
    it the cache of parent streams is one in-memory database for the whole process, and a second sync in
    the same process would read the first sync's parent pages. The environment is put back afterwards."""
    before = os.environ.get(REQUEST_CACHE_PATH)
    with tempfile.TemporaryDirectory(prefix="sparkload-manifest-") as folder, _logging_kept():
        os.environ[REQUEST_CACHE_PATH] = folder
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(REQUEST_CACHE_PATH, None)
            else:
                os.environ[REQUEST_CACHE_PATH] = before


def _cdk():
    """The CDK's modules, or a one-line ConfigError saying how to install them."""
    try:
        with _logging_kept():
            from airbyte_cdk import models
            from airbyte_cdk.sources.declarative.concurrent_declarative_source import ConcurrentDeclarativeSource
    except ImportError as e:
        raise ConfigError(f"an Airbyte manifest source needs airbyte-cdk ({e.name} is missing): {INSTALL}") from None
    return models, ConcurrentDeclarativeSource


def load_manifest(manifest: Union[str, Path, Mapping[str, Any]]) -> Dict[str, Any]:
    """The manifest as a mapping: a path to its YAML file, or the mapping itself."""
    if isinstance(manifest, Mapping):
        return copy.deepcopy(dict(manifest))
    path = Path(manifest)
    if not path.is_file():
        raise ConfigError(f"manifest {str(path)!r} is not a file")
    try:
        loaded = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"manifest {str(path)!r} does not parse as YAML: {_first_line(e)}") from None
    if not isinstance(loaded, dict) or "streams" not in loaded and "dynamic_streams" not in loaded:
        raise ConfigError(f"manifest {str(path)!r} is not a declarative manifest (a mapping with `streams`)")
    return loaded


def _first_line(error: Any) -> str:
    return " ".join(str(error).split())[:300]


def _reason(error: BaseException) -> str:
    """The CDK's reason, where it wraps a JSON Schema error: the innermost one, at its path in the manifest."""
    import jsonschema

    found, seen = None, error
    while seen is not None:
        if isinstance(seen, jsonschema.ValidationError):
            found = seen
        seen = seen.__cause__ or seen.__context__
    if found is None:
        return _first_line(error)
    best = jsonschema.exceptions.best_match(found.context) if found.context else found
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in best.absolute_path).lstrip(".")
    return f"{path or 'manifest'}: {' '.join(best.message.split())[:300]}"


def _json(value: Any) -> Any:
    """A CDK state blob (or anything holding one) as plain JSON data."""
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: _json(v) for k, v in vars(value).items()}
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    return value


def _custom_component(node: Any, path: str = "") -> Optional[tuple]:
    """(path, class_name) of the first custom component (`class_name:`) in a manifest, or None."""
    if isinstance(node, Mapping):
        if isinstance(node.get("class_name"), str):
            return path or "manifest", node["class_name"]
        found = (_custom_component(v, f"{path}.{k}".lstrip(".")) for k, v in node.items())
    elif isinstance(node, list):
        found = (_custom_component(v, f"{path}[{i}]") for i, v in enumerate(node))
    else:
        return None
    return next((f for f in found if f is not None), None)


def _refuse_custom_components(manifest: Mapping[str, Any], where: str) -> None:
    """A custom component is Python code of the connector's package (its components.py, imported by the CDK):
    refused here, so no connector code runs in sparkload's own process; the connector's package runs it in an
    environment of its own (the `airbyte` source)."""
    found = _custom_component(manifest)
    if found is not None:
        path, class_name = found
        raise ConfigError(f"{where}: {path} is a custom Python component (class_name: {class_name}); a manifest source "
                          "runs no connector code in sparkload's process: run the connector's package instead "
                          "(source type `airbyte`, package: airbyte-source-<name>), in an environment of its own")


class ManifestSource:
    """A declarative manifest with its connector config; `source()` is the sparkload Source."""

    def __init__(self, manifest: Union[str, Path, Mapping[str, Any]], config: Optional[Dict[str, Any]] = None,
                 streams: Optional[List[Union[str, Dict[str, Any]]]] = None, name: str = "manifest",
                 checkpoint_records: int = 10_000, check: bool = True):
        self.models, self._engine = _cdk()
        self.manifest, self.config, self.name = load_manifest(manifest), dict(config or {}), name
        self.where = f"manifest {str(manifest)!r}" if not isinstance(manifest, Mapping) else "the manifest"
        self.checkpoint_records = checkpoint_records
        _refuse_custom_components(self.manifest, self.where)
        self._check_config()  # first: building the streams evaluates the config (a missing start date fails there)
        with _one_sync():
            engine = self._build(None, None)
            try:
                discovered = engine.discover(logging.getLogger(CDK_LOGGER), self.config)
            except Exception as e:  # a component the config or the manifest cannot build
                raise ConfigError(f"{self.where}: its streams cannot be built: {_reason(e)}") from None
        self.catalog = {s.name: s for s in discovered.streams}
        self.selected = self._select(streams)
        if check and self.manifest.get("check"):
            with _one_sync():
                self._check(self._build(None, None))

    def _build(self, catalog: Any, state: Any) -> Any:
        try:
            return self._engine(catalog=catalog, config=self.config, state=state, source_config=copy.deepcopy(self.manifest))
        except Exception as e:  # the CDK's validation errors have no common base
            raise ConfigError(f"{self.where} is not a valid declarative manifest: {_reason(e)}") from None

    def _check(self, engine: Any) -> None:
        """The manifest's own `check` (the CDK's, e.g. one page of a stream) before any read."""
        try:
            status = engine.check(logging.getLogger(CDK_LOGGER), self.config)
        except Exception as e:  # a check component the manifest cannot build
            raise ConfigError(f"{self.where}: its check cannot be built: {_reason(e)}") from None
        if status.status != self.models.Status.SUCCEEDED:
            raise ConnectorCheckFailed(f"{self.where}: check failed: {_first_line(status.message)}; nothing was read: fix "
                                       "the connector's config (source.config.config), or set `check: false` to skip the check")

    def _check_config(self) -> None:
        import jsonschema

        spec = (self.manifest.get("spec") or {}).get("connection_specification") or {}
        declared = spec.get("properties")
        if declared is not None:
            unknown = sorted(set(self.config) - set(declared))
            if unknown:
                raise ConfigError(f"connector config: unknown key(s) {', '.join(unknown)}; {self.where} declares {', '.join(declared)}")
        error = jsonschema.exceptions.best_match(jsonschema.Draft7Validator(spec).iter_errors(self.config))
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "config"
            raise ConfigError(f"connector config: {where}: {error.message}")

    def _select(self, streams: Optional[List[Union[str, Dict[str, Any]]]]) -> Dict[str, Dict[str, Any]]:
        wanted: Dict[str, Dict[str, Any]] = {}
        for entry in streams or list(self.catalog):
            spec = {"name": entry} if isinstance(entry, str) else dict(entry)
            wanted[spec["name"]] = spec
        unknown = sorted(set(wanted) - set(self.catalog))
        if unknown:
            raise ConfigError(f"stream(s) {', '.join(unknown)} not in {self.where}; it has {', '.join(self.catalog)}")
        for name, spec in wanted.items():
            modes = [m.value for m in self.catalog[name].supported_sync_modes]
            spec.setdefault("sync_mode", "incremental" if "incremental" in modes else "full_refresh")
            if spec["sync_mode"] not in modes:
                raise ConfigError(f"stream {name}: sync_mode {spec['sync_mode']} is not supported ({', '.join(modes)})")
        return wanted

    def configured_catalog(self, name: str) -> Any:
        m, stream = self.models, self.catalog[name]
        incremental = self.selected[name]["sync_mode"] == "incremental"
        return m.ConfiguredAirbyteCatalog(streams=[m.ConfiguredAirbyteStream(
            stream=stream, sync_mode=m.SyncMode.incremental if incremental else m.SyncMode.full_refresh,
            destination_sync_mode=m.DestinationSyncMode.append,
            cursor_field=stream.default_cursor_field if incremental else None,
            primary_key=stream.source_defined_primary_key)])

    def state_messages(self, name: str, state: Optional[Dict[str, Any]]) -> Optional[List[Any]]:
        """The CDK's input state for one stream: its stream state as the last run stored it."""
        if state is None:
            return None
        m = self.models
        return [m.AirbyteStateMessage(type=m.AirbyteStateType.STREAM, stream=m.AirbyteStreamState(
            stream_descriptor=m.StreamDescriptor(name=name), stream_state=m.AirbyteStateBlob(copy.deepcopy(state))))]

    def read(self, name: str, state: Optional[Dict[str, Any]]) -> Iterator[Any]:
        """The CDK's messages of one stream's sync: ("record", data) and ("state", stream state)."""
        messages = self.state_messages(name, state)
        catalog = self.configured_catalog(name)
        with _one_sync():
            engine = self._build(catalog, messages)
            yield from self._messages(name, engine, catalog, messages)

    def _messages(self, name: str, engine: Any, catalog: Any, messages: Any) -> Iterator[Any]:
        """The sync's records and states; after an error the read goes on to its end, because the CDK's other
        workers still finish the windows they hold and emit their STATEs after the error (stopping at the
        error kept an earlier state than the CDK's, a flake of dixa_fails_in_window_3); then the first error
        fails the sync."""
        m, error, cause = self.models, None, None
        try:
            for message in engine.read(logging.getLogger(CDK_LOGGER), self.config, catalog, messages):
                if message.type == m.Type.RECORD:
                    yield "record", message.record.data
                elif message.type == m.Type.STATE:
                    yield "state", _json(message.state.stream.stream_state)
                elif message.type == m.Type.TRACE and message.trace.error is not None and error is None:
                    error = message.trace.error.message or message.trace.error.internal_message
        except Exception as e:  # the CDK's stream failures (AirbyteTracedException, HTTP errors)
            cause = e
            error = error or getattr(e, "message", None) or getattr(e, "internal_message", None) or _first_line(e)
        if error is not None:
            raise ConnectorError(f"stream {name}: {error}") from cause

    def resource(self, name: str) -> Resource:
        spec, stream = self.selected[name], self.catalog[name]
        incremental = spec["sync_mode"] == "incremental"

        def read(saved=ResourceState()) -> Iterator[Any]:
            records = since_checkpoint = states = 0
            for kind, value in self.read(name, saved.get("airbyte_state") if incremental else None):
                if kind == "record":
                    records, since_checkpoint = records + 1, since_checkpoint + 1
                    yield value
                else:
                    states += 1
                    saved["airbyte_state"] = value
                    # 1: every STATE, also one after no new record (the CDK's workers can finish a window
                    # whose records came before the previous STATE): its state covers rows already landed
                    if since_checkpoint >= self.checkpoint_records or self.checkpoint_records == 1:
                        since_checkpoint = 0
                        yield CHECKPOINT
            log.info("manifest stream %s: %d records, %d state messages", name, records, states)

        primary_key = ["__".join(path) for path in stream.source_defined_primary_key or []]
        cursor = "__".join(stream.default_cursor_field or [])
        disposition = spec.get("write_disposition") or (
            ("merge" if primary_key else "append") if incremental else "replace")
        columns = {cursor: {"dedup_sort": "desc"}} if cursor and primary_key and incremental else None
        strategy = disposition.get("strategy") if isinstance(disposition, dict) else None
        # an incremental read holds the changed records only: scd2 without a merge_key takes a load for a full
        # extract and retires every key absent from it, so only the keys in a load may be retired
        merge_key = primary_key if incremental and primary_key and strategy == "scd2" else None
        return Resource(read, name, primary_key=primary_key or None, merge_key=merge_key or None,
                        write_disposition=disposition, columns=columns)

    def source(self) -> Source:
        return Source(self.name, [self.resource(n) for n in self.selected])


def manifest_source(manifest: Union[str, Path, Mapping[str, Any]], config: Optional[Dict[str, Any]] = None,
                    streams: Optional[List[Union[str, Dict[str, Any]]]] = None, name: str = "manifest",
                    checkpoint_records: int = 10_000, check: bool = True) -> Source:
    """A sparkload Source running `manifest` (a path to a connector's manifest.yaml, or its mapping) with
    the connector's `config`; `streams` picks streams (names, or {name, sync_mode, write_disposition});
    `check`: run the manifest's `check` first (a refusal is `ConnectorCheckFailed`, nothing read)."""
    return ManifestSource(manifest, config, streams, name, checkpoint_records, check).source()
