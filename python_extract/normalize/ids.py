"""Row ids (`_dlt_id`): 14 base64 characters (84 bits), as dlt's.

- a root row gets a random id (`os.urandom`, never a seeded generator);
- a child row gets an id derived from (its parent's id, its table, its list index), so normalizing
  the same item twice (with the same root id) links the same children. `child_id` (one row) and
  `child_ids` (a whole Arrow column at once) compute the same function: a splitmix64 mix of the
  parent id's bytes, a digest of the table name and the index.
"""
from __future__ import annotations

import base64
import hashlib
import os
from functools import lru_cache

import numpy as np

ID_CHARS = 14
_MASK = (1 << 64) - 1
_GOLDEN, _MUL1, _MUL2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def uniq_id() -> str:
    """A random 14-character id, as dlt's `_dlt_id` of root rows."""
    return base64.b64encode(os.urandom(10)).decode("ascii")[:ID_CHARS]


def random_ids(n: int):
    """n random ids as an Arrow string array (12 random bytes -> 16 base64 characters, cut to 14)."""
    return _as_strings(np.frombuffer(os.urandom(12 * n), dtype=np.uint8).reshape(n, 12))


@lru_cache(maxsize=4096)
def _table_key(table: str) -> int:
    return int.from_bytes(hashlib.blake2b(table.encode(), digest_size=8).digest(), "little")


def _mix(x: int) -> int:
    x = (x + _GOLDEN) & _MASK
    x = ((x ^ (x >> 30)) * _MUL1) & _MASK
    x = ((x ^ (x >> 27)) * _MUL2) & _MASK
    return x ^ (x >> 31)


def _parent_bytes(parent_id: str) -> bytes:
    raw = parent_id.encode()
    # our ids are 14 ASCII characters; any other id (a user's `_dlt_id`) is digested to that size first
    return raw if len(raw) == ID_CHARS else hashlib.blake2b(raw, digest_size=ID_CHARS).digest()


def child_id(parent_id: str, table: str, idx: int) -> str:
    """The id of element `idx` of a list in `table` whose parent row has `parent_id`."""
    raw = _parent_bytes(parent_id)
    a, b, t = int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little"), _table_key(table)
    h1 = _mix(a ^ t ^ _mix(idx))
    h2 = _mix(b ^ h1 ^ _mix(idx ^ t))
    return base64.b64encode(h1.to_bytes(8, "little") + h2.to_bytes(8, "little")[:4]).decode("ascii")[:ID_CHARS]


def _vmix(x: np.ndarray) -> np.ndarray:
    x = x + np.uint64(_GOLDEN)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(_MUL1)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(_MUL2)
    return x ^ (x >> np.uint64(31))


def child_ids(parent_ids, table: str, idx: np.ndarray):
    """`child_id` for a whole column: `parent_ids` an Arrow string array, `idx` the list indexes."""
    import pyarrow as pa

    n = len(parent_ids)
    if n == 0:
        return pa.array([], pa.string())
    offsets = np.frombuffer(parent_ids.buffers()[1], dtype=np.int32)[parent_ids.offset:parent_ids.offset + n + 1]
    if parent_ids.null_count or offsets[-1] - offsets[0] != ID_CHARS * n or np.any(np.diff(offsets) != ID_CHARS):
        return pa.array([child_id(p, table, int(i)) for p, i in zip(parent_ids.to_pylist(), idx)], pa.string())
    raw = np.frombuffer(parent_ids.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]].reshape(n, ID_CHARS)
    words = np.zeros((n, 16), dtype=np.uint8)
    words[:, :ID_CHARS] = raw
    words = words.view("<u8")
    t, i = np.uint64(_table_key(table)), np.asarray(idx, dtype=np.uint64)
    h1 = _vmix(words[:, 0] ^ t ^ _vmix(i))
    h2 = _vmix(words[:, 1] ^ h1 ^ _vmix(i ^ t))
    out = np.concatenate([h1.astype("<u8").view(np.uint8).reshape(n, 8),
                          h2.astype("<u8").view(np.uint8).reshape(n, 8)[:, :4]], axis=1)
    return _as_strings(out)


def _as_strings(raw12: np.ndarray):
    """Rows of 12 bytes as an Arrow array of their base64 text cut to 14 characters."""
    import pyarrow as pa

    n = len(raw12)
    text = np.frombuffer(base64.b64encode(np.ascontiguousarray(raw12).tobytes()), dtype=np.uint8).reshape(n, 16)[:, :ID_CHARS]
    offsets = np.arange(0, ID_CHARS * (n + 1), ID_CHARS, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets.tobytes()), pa.py_buffer(np.ascontiguousarray(text).tobytes()))
