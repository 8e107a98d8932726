"""The schema contract's rules without a lakehouse: what a contract may be, and how an extraction applies it
(the Extractor writing load packages to a temporary folder). What lands is judged against the real dlt in
tests/parity_extract/test_schema_contract_parity.py."""
from __future__ import annotations

from typing import Optional

import pyarrow as pa

import pytest

import python_extract as sl
from python_extract.errors import HintError, PipelineStepFailed
from python_extract.extract.extractor import Extractor
from python_extract.hooks import Hooks
from python_extract.normalize import Schema
from python_extract.normalize.exceptions import DataValidationError
from python_extract.normalize.schema_contract import expand
from python_extract.packages import PackageStorage
from python_extract.state import new_state

pytestmark = pytest.mark.fast


class Extraction:
    """One pipeline's schema and state, extracted into load packages under `folder`."""

    def __init__(self, folder):
        self.folder, self.schema, self.state = folder, Schema("p"), new_state("p")

    def run(self, *resources):
        extractor = Extractor(PackageStorage(self.folder), "ds", self.schema, self.state, Hooks(), default_source="p")
        packages = extractor.extract(list(resources))
        return {t: n for p in packages for t, n in p.row_counts().items()}


def rows(name, data, **hints):
    @sl.resource(name=name, **hints)
    def gen():
        yield data
    return gen


@pytest.mark.parametrize("given, expected", [
    ("freeze", {"tables": "freeze", "columns": "freeze", "data_type": "freeze"}),
    ({"columns": "discard_row"}, {"tables": "evolve", "columns": "discard_row", "data_type": "evolve"}),
    (None, {"tables": "evolve", "columns": "evolve", "data_type": "evolve"}),
])
def test_expand__a_mode_sets_every_entity_and_a_dict_leaves_the_others_evolving(given, expected):
    assert expand(given) == expected


@pytest.mark.parametrize("given, said", [
    ("frezee", "resource r: schema_contract='frezee' (did you mean 'freeze'?)"),
    ({"colums": "freeze"}, "resource r: schema_contract key 'colums' (did you mean 'columns'?)"),
    ({"columns": "discard"}, "resource r: schema_contract columns='discard'"),
    (["freeze"], "resource r: schema_contract=['freeze']; expected one of evolve, freeze"),
])
def test_a_contract_that_is_none__is_refused_when_the_resource_is_defined(given, said):
    with pytest.raises(HintError) as refused:
        rows("r", [], schema_contract=given)
    assert str(refused.value).startswith(said)


def test_a_contract_on_a_source_or_run__is_checked_too(tmp_path):
    with pytest.raises(HintError, match=r"source s: schema_contract='evolves' \(did you mean 'evolve'\?\)"):
        sl.source(name="s", schema_contract="evolves")(lambda: [])
    pipe = sl.pipeline("contract_run", pipelines_dir=str(tmp_path), home=str(tmp_path / "lake"))
    with pytest.raises(HintError, match="run: schema_contract='fraeze'"):
        pipe.extract(rows("r", [{"id": 1}]), schema_contract="fraeze")


def test_a_pydantic_model_as_columns__gives_its_fields_hints_and_dlts_contract():
    pydantic = pytest.importorskip("pydantic", reason="dlt's Pydantic columns need pydantic installed")

    class Order(pydantic.BaseModel):
        id: int
        note: Optional[str] = None

    res = rows("orders", [], columns=Order)  # judged against dlt in tests/parity_extract/test_pydantic_parity.py
    assert res.columns == {"id": {"data_type": "bigint", "nullable": False}, "note": {"data_type": "text", "nullable": True}}
    assert res.schema_contract == {"tables": "evolve", "columns": "discard_value", "data_type": "freeze"}


def test_discard_value__the_table_keeps_its_columns_and_the_rows_land_without_the_new_value(tmp_path):
    extraction = Extraction(tmp_path)
    extraction.run(rows("t", [{"id": 1}], schema_contract={"columns": "discard_value"}))
    assert extraction.run(rows("t", [{"id": 2, "b": 1}], schema_contract={"columns": "discard_value"})) == {"t": 1}
    assert "b" not in extraction.schema.tables["t"].columns


def test_the_run_contract__wins_over_the_resources_own(tmp_path):
    extraction = Extraction(tmp_path)
    extraction.run(rows("t", [{"id": 1}]))
    res = rows("t", [{"id": 2, "b": 1}], schema_contract="evolve")
    pipe_hints = dict(schema_contract={"columns": "freeze"})
    from python_extract.pipeline import as_resources

    with pytest.raises(PipelineStepFailed) as failed:
        extraction.run(*as_resources(res, {}, **pipe_hints))
    assert isinstance(failed.value.exception, DataValidationError)
    assert failed.value.exception.column_name == "b"


def test_a_contract_on_arrow_tables__is_refused_by_name(tmp_path):
    extraction = Extraction(tmp_path)
    extraction.run(rows("t", [{"id": 1}]))
    with pytest.raises(PipelineStepFailed, match="on Arrow tables is not built in sparkload"):
        extraction.run(rows("t", pa.table({"id": [2]}), schema_contract="freeze"))


def test_a_discarded_new_table__stays_out_of_the_schema_whichever_items_name_it(tmp_path):
    extraction = Extraction(tmp_path)

    @sl.resource(name="events", table_name=lambda e: e["kind"], schema_contract={"tables": "discard_row"})
    def events():
        yield [{"kind": "click", "id": 1}, {"kind": "view", "id": 2}, {"kind": "click", "id": 3}]

    assert extraction.run(events) == {}
    assert extraction.schema.tables == {}
