"""The differential scenarios, one module per theme; each module's SCENARIOS list is data."""
from __future__ import annotations

from . import delete_insert, dispositions, extract, failures, nested, scd2, switches, upsert

SCENARIOS = [s for m in (dispositions, delete_insert, upsert, scd2, nested, switches, failures, extract) for s in m.SCENARIOS]
_names = [s.name for s in SCENARIOS]
assert len(_names) == len(set(_names)), sorted({n for n in _names if _names.count(n) > 1})
