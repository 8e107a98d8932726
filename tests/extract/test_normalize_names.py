"""Fast tier (no JVM): column names of flattened items, and the bound on the memory they take."""
from __future__ import annotations

import pytest

from python_extract.normalize import relational
from python_extract.normalize.relational import normalize_item

pytestmark = pytest.mark.fast


def test_flattened_names__follow_dlts_snake_case_paths():
    (_, row), = normalize_item({"userId": 1, "Price (EUR)": 2, "meta": {"aB": 3}, "x__y": 4}, "t", "1")
    assert [k for k in row if not k.startswith("_dlt")] == ["user_id", "price_eurx", "x__y", "meta__a_b"]


def test_name_cache__stays_bounded_when_every_item_brings_new_keys():
    relational._column.cache_clear()
    for n in range(relational.NAME_CACHE + 500):
        list(normalize_item({f"key_{n}": n}, "t", "1"))
    info = relational._column.cache_info()
    assert info.currsize == info.maxsize == relational.NAME_CACHE
