"""The embedded Spark lakehouse: settings (`config`), jar provisioning (`jars`), the SparkSession factory
(`session`) and Java error text (`java_errors`). Thrift, warm and cluster servers live in
`python_extract.servers`.

The face is lazy (PEP 562): `from python_extract.lakehouse import LakehouseConfig` loads the settings
module alone, so a dbt invocation loads only what its connection uses."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_FACE = {
    **dict.fromkeys(["LakehouseConfig", "LakehouseConfigError"], "config"),
    "provision": "jars",
    **dict.fromkeys(["FormatChoice", "choose_format", "get_session", "session_format"], "session"),
}

if TYPE_CHECKING:
    from .config import LakehouseConfig, LakehouseConfigError
    from .jars import provision
    from .session import FormatChoice, choose_format, get_session, session_format


def __getattr__(name: str) -> Any:
    if name not in _FACE:
        raise AttributeError(f"module 'python_extract.lakehouse' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_FACE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_FACE])


__all__ = ["FormatChoice", "LakehouseConfig", "LakehouseConfigError", "choose_format", "get_session", "provision", "session_format"]
