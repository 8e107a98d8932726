"""The differential scenarios, one module per theme; each module's SCENARIOS list is data.

The suite runs a fixed sample (`SAMPLE`): every scenario that pins an issue item or an on-purpose difference,
and every 8th of the others; `SPARKLOAD_PARITY_ALL=1` runs them all (README, "Parity with dlt"). `make test`
(`--suite ci`) runs `CI_SAMPLE` of it: every 2nd on-purpose difference, every 6th scenario pinning an issue item
and every 8th of the others; the rest of SAMPLE is marked extended (make test-all runs it). `EACH_FORMAT` names
the scenarios of CI_SAMPLE that also run on the formats other than the main one (marked each_format): one per
statement shape whose SQL or types the format answers (delete-insert with a hard delete, upsert with children,
scd2 with a reinsert, a type change under scd2, text coerced to timestamps), so dlt judges Delta's tables too.
`make test` runs one of them (`EACH_FORMAT_CI`: upsert with children) in the Delta run only and the other four in
the Iceberg run only (the Delta batch of five was CI's longest group: 479 s on one worker, of three 320 s);
`make test-all` runs all five on both formats."""
from __future__ import annotations

import os

from . import delete_insert, dispositions, extract, failures, insert_only, nested, scd2, switches, upsert

ALL = [s for m in (dispositions, delete_insert, upsert, insert_only, scd2, nested, switches, failures, extract) for s in m.SCENARIOS]
_names = [s.name for s in ALL]
assert len(_names) == len(set(_names)), sorted({n for n in _names if _names.count(n) > 1})
_others = [s for s in ALL if s.item is None and s.on_purpose is None]
SAMPLE = [s for s in ALL if s.item is not None or s.on_purpose is not None or _others.index(s) % 8 == 0]
_purpose = [s for s in SAMPLE if s.on_purpose is not None]
_pinned = [s for s in SAMPLE if s.on_purpose is None and s.item is not None]
_sampled = [s for s in SAMPLE if s.on_purpose is None and s.item is None]
CI_SAMPLE = {s.name for group, every in ((_purpose, 2), (_pinned, 6), (_sampled, 8)) for s in group[::every]}
EACH_FORMAT = {"di_hard_delete_column_never_seen", "up_nested_other_record_keeps_children", "scd2_reinsert",
               "type_change_in_scd2", "coerce_text_to_timestamp"}
EACH_FORMAT_CI = {"up_nested_other_record_keeps_children"}
assert EACH_FORMAT_CI <= EACH_FORMAT <= CI_SAMPLE, sorted(EACH_FORMAT - CI_SAMPLE)
SCENARIOS = ALL if os.environ.get("SPARKLOAD_PARITY_ALL") == "1" else SAMPLE
