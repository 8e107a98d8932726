"""Extract stage: resources and sources that yield items with table hints, incremental cursors and
date windows bound to the pipeline state, and the extractor that streams them into load packages."""
from .config import config, secrets
from .incremental import Incremental, incremental
from .resource import Resource, defer, resource, transformer
from .source import Source, source
from .windows import DateWindows, Window, date_windows

__all__ = ["DateWindows", "Incremental", "Resource", "Source", "Window", "config", "date_windows", "defer",
           "incremental", "resource", "secrets", "source", "transformer"]
