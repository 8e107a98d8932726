"""The one lazy-import mechanism (PEP 562): a package's `__init__` names what it offers and where from,
and the module is imported on the name's first use, so importing the package loads nothing heavy.

Each name maps to the module it lives in, written as the `from` of the import it stands for (relative to
the package: `.config`, `..extract`); `modules` names modules offered as attributes themselves (dlt's
`dlt.sources`, `dlt.current`).

    __getattr__, __dir__ = lazy_face(__name__, {"LakehouseConfig": ".config", "get_session": ".session"})
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, List, Mapping, Optional, Tuple


def lazy_face(package: str, names: Mapping[str, str], modules: Optional[Mapping[str, str]] = None,
              ) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package`: `from <names[name]> import name` on the
    first use of `name`, `import <modules[name]>` for a module offered as `name`; the value is kept."""
    module = sys.modules[package]
    modules = dict(modules or {})

    def __getattr__(name: str) -> Any:
        if name in modules:
            value = importlib.import_module(modules[name], package)
        elif name in names:
            value = getattr(importlib.import_module(names[name], package), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(module, name, value)
        return value

    def __dir__() -> List[str]:
        return sorted({*vars(module), *names, *modules})

    return __getattr__, __dir__


__all__: List[str] = ["lazy_face"]
