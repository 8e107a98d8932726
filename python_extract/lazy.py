"""Lazy package faces (PEP 562): a package's `__init__` names what it offers and from which submodule,
and a name's submodule is imported on its first use, so importing the package loads nothing heavy.

    __getattr__, __dir__ = lazy_face(__name__, {"LakehouseConfig": "config", "get_session": "session"})
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Dict, List, Tuple


def lazy_face(package: str, names: Dict[str, str]) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package`, whose `names` live in the given submodules."""
    module = sys.modules[package]

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{names[name]}", package), name)
        setattr(module, name, value)
        return value

    def __dir__() -> List[str]:
        return sorted({*vars(module), *names})

    return __getattr__, __dir__
