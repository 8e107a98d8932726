"""The embedded Spark lakehouse: settings (`config`), jar provisioning (`jars`), the SparkSession factory
(`session`) and Java error text (`java_errors`). Thrift, warm and cluster servers live in
`python_extract.runtime`.

The face is lazy (PEP 562): `from python_extract.lakehouse import LakehouseConfig` loads the settings
module alone, so a dbt invocation loads only what its connection uses."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_face

_FACE = {
    **dict.fromkeys(["LakehouseConfig", "LakehouseConfigError"], ".config"),
    "provision": ".jars",
    **dict.fromkeys(["FormatChoice", "choose_format", "get_session", "session_format"], ".session"),
}

if TYPE_CHECKING:
    from .config import LakehouseConfig, LakehouseConfigError
    from .jars import provision
    from .session import FormatChoice, choose_format, get_session, session_format


__getattr__, __dir__ = lazy_face(__name__, _FACE)

__all__ = ["FormatChoice", "LakehouseConfig", "LakehouseConfigError", "choose_format", "get_session", "provision", "session_format"]
