"""dlt's item transforms on a resource (python_extract/extract/resource.py): add_map, add_filter and
add_yield_map applied page by page in the order added (insert_at puts one earlier), a page or item a
filter drops entirely not yielded, an empty page kept; add_limit's arguments checked. The extractor's use
of them (before the cursor; add_limit after it) is judged against dlt in
tests/parity_extract/test_incremental_parity.py."""
from __future__ import annotations

import pytest

import python_extract as sl

pytestmark = pytest.mark.fast


def test_transforms__run_in_the_order_added_on_each_item_of_a_page_and_on_a_single_item():
    res = sl.resource(lambda: iter([[1, 2, 3], 4, [], [5]]), name="n")()
    res.add_map(lambda n: n * 10).add_filter(lambda n: n != 20).add_yield_map(lambda n: [n, -n])
    assert list(res.pages()) == [[10, -10, 30, -30], [40, -40], [], [50, -50]]


def test_transforms__a_filter_that_empties_a_page_or_drops_an_item_yields_nothing_for_it():
    res = sl.resource([[1, 1], 2, [3], 1], name="n").add_filter(lambda n: n != 1)
    assert list(res.pages()) == [2, [3]]


def test_transforms__insert_at_puts_a_step_earlier_and_a_bound_copy_keeps_its_own_steps():
    base = sl.resource(lambda k: iter([[k]]), name="n")
    bound = base(2).add_map(lambda n: n + 1)
    bound.add_map(lambda n: n * 10, insert_at=0)  # before the +1
    assert list(bound.pages()) == [[21]]
    assert list(base(2).pages()) == [[2]]  # the resource it was bound from has no steps


@pytest.mark.parametrize("kwargs, message", [
    ({"max_items": -1}, "max_items=-1"), ({"max_items": "3"}, "max_items='3'"), ({"max_time": True}, "max_time=True")])
def test_add_limit__a_bad_value_is_an_error_naming_it(kwargs, message):
    with pytest.raises(ValueError, match=rf"resource n: add_limit {message} is not a number >= 0"):
        sl.resource([1], name="n").add_limit(**kwargs)


def test_add_map__takes_a_function():
    with pytest.raises(TypeError, match="resource n: add_map takes a function"):
        sl.resource([1], name="n").add_map("upper")


def test_transforms__see_a_marked_pages_data_and_keep_its_table_mark():
    from python_extract.extract.mark import TableNamed

    res = sl.resource([sl.mark.with_table_name([1, 2], "evens"), sl.mark.with_table_name(3, "odds")], name="n")
    res.add_map(lambda n: n * 2).add_filter(lambda n: n != 6)
    assert list(res.pages()) == [TableNamed([2, 4], "evens")]  # the marked 3 became 6 and was dropped
    with pytest.raises(ValueError, match=r"mark.with_table_name: table_name='' is not a table name"):
        sl.mark.with_table_name({}, "")
