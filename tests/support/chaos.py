"""scripts/chaos.py as a module, for the tests that drive the chaos run (tests/reliability)."""
from __future__ import annotations

import importlib.util
import sys

from .paths import REPO


def load_chaos():
    spec = importlib.util.spec_from_file_location("chaos", REPO / "scripts" / "chaos.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["chaos"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module
