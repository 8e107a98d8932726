"""The steps of a resource's pipe (python_extract/extract/steps.py) and the item extractors
(extract/extractors.py), each on its own, without a pipeline: the cursors keep items and Arrow rows and close a
resource by `row_order`, the limit counts yields after the cursors, a mark comes off with the table it names,
the recorder replays what a parent kept. The whole pass is judged against dlt in tests/parity_extract."""
from __future__ import annotations

import tempfile

import pyarrow as pa
import pytest

import python_extract as sl
from python_extract.extract.extractors import ArrowExtractor, is_arrow
from python_extract.extract.mark import make_hints, with_hints, with_table_name
from python_extract.extract.resource import Limit
from python_extract.extract.steps import Cursors, LimitStep, Recorder, unmark

pytestmark = pytest.mark.fast


def _bound(**kwargs):
    return sl.incremental("u", **kwargs).bind({}, "r", [])


def test_cursors__keep_the_items_and_arrow_rows_every_cursor_passes():
    cursors = Cursors([_bound(initial_value=2), _bound(initial_value=0, end_value=4)])
    assert [u for u in range(6) if cursors.keeps({"u": u})] == [2, 3]
    assert cursors.arrow(pa.table({"u": list(range(6))}))["u"].to_pylist() == [2, 3]


def test_cursors__a_page_keeps_what_passes_and_is_none_when_nothing_does():
    cursors = Cursors([_bound(initial_value=2)])
    assert cursors.page([{"u": 1}, {"u": 3}]) == [{"u": 3}]
    assert cursors.page([{"u": 1}]) is None
    assert cursors.page({"u": 1}) is None
    assert cursors.page(pa.table({"u": [0, 1]})) is None
    assert Cursors([]).page([{"u": 1}]) == [{"u": 1}]  # no cursor: the page as it came


def test_cursors__row_order_closes_once_a_row_is_past_the_end():
    cursors = Cursors([_bound(initial_value=0, end_value=3, row_order="asc")])
    closed_at = next(u for u in range(10) if (cursors.keeps({"u": u}), cursors.can_close())[1])
    assert closed_at == 3
    assert Cursors([_bound(initial_value=0)]).closable == []  # without row_order nothing closes


@pytest.mark.parametrize("limit, yields, reached_at", [
    # (max_items, count_rows), the rows the cursors left of each yield (None: an empty page), the yield that stops
    ((2, False), [3, 0, 1, 5], 3),          # a yield the cursors emptied does not count
    ((2, False), [None, 4], 2),             # an empty page counts
    ((4, True), [3, 0, 2], 3),              # rows, not yields
])
def test_limit__counts_yields_after_the_cursors(limit, yields, reached_at):
    step = LimitStep(Limit(limit[0], None, limit[1]))
    reached = [step.reached(kept or 0, kept is None) for kept in yields]
    assert reached.index(True) + 1 == reached_at


def test_limit__none_counts_nothing_and_zero_takes_nothing():
    assert not LimitStep(None).reached(10, False) and not LimitStep(None).takes_nothing
    assert LimitStep(Limit(0, None, False)).takes_nothing
    assert LimitStep(Limit(1, None, False)).counts_empty([]) and not LimitStep(None).counts_empty([])


class _Tables:
    """Records what unmark asks of the table resolver (extract/tables.py)."""

    def __init__(self):
        self.asked = []

    def table(self, res, item, name=None):
        self.asked.append(("table", name))
        return name

    def with_hints(self, res, mark):
        self.asked.append(("with_hints", mark.create_table_variant))
        return None


def test_unmark__takes_marks_off_and_names_the_table_they_send_the_data_to():
    tables, res = _Tables(), sl.resource([1], name="r")
    assert unmark(with_table_name([{"a": 1}], "other"), tables, res) == (False, "other", [{"a": 1}])
    assert unmark(with_hints({"a": 1}, make_hints(primary_key="a")), tables, res) == (True, None, {"a": 1})
    assert unmark(with_hints(None, make_hints(merge_key="a")), tables, res) == (True, None, None)
    assert tables.asked == [("table", "other"), ("with_hints", False), ("with_hints", False)]


def test_recorder__replays_the_kept_pages_in_order_as_copies():
    with tempfile.TemporaryFile() as file:
        recorder, item = Recorder(file), {"a": [1]}
        recorder.keep(item)
        recorder.end_page(as_list=True)
        recorder.end_page(as_list=True)  # nothing kept: no page
        recorder.keep({"b": 2})
        recorder.end_page(as_list=False)
        recorder.keep_arrow(pa.table({"u": []}))  # an Arrow table the cursors emptied is not kept
        recorder.end_page(as_list=False)
        item["a"].append(2)  # normalization changes an item in place after it was kept
        assert list(Recorder.replay(file)) == [[{"a": [1]}], {"b": 2}]


def test_arrow_extractor__refuses_a_schema_contract_naming_resource_and_table():
    class Contracts:
        def resolve(self, table):
            return "freeze"

    extractor = ArrowExtractor(sl.resource([1], name="r"), None, None, Contracts(), None)
    with pytest.raises(ValueError, match="resource r table t: schema_contract=freeze on Arrow tables is not built"):
        extractor.refuse_contract("t")
    assert is_arrow(pa.table({"u": [1]})) and not is_arrow({"num_rows": 1})
