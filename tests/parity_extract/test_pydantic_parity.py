"""A Pydantic model as `columns` against dlt 1.31's: the same rows (an extra key, a number as text, ISO date-time
text with an offset, a missing field with a default, a nested model, a list) through a resource with
`columns=Model` on both sides, for the model's `extra` ignore / allow / forbid, `frozen`, a value the model
refuses, and an explicit `schema_contract` of discard_row. Compared: the table's columns with their types, its
rows, and for a failing load the DataValidationError (table, column, entity, mode) with nothing landed."""
from __future__ import annotations

import ast
import datetime as dt
from collections import Counter
from decimal import Decimal
from typing import Any, List, Optional

import pytest
from pydantic import BaseModel, ConfigDict

import python_extract as sl

from ..support.compare import column_types
from ..support.tally import record_vs_dlt as record
from ..support.extract_sides import SYSTEM, DltSide, SparkloadSide


class Address(BaseModel):
    city: str


class User(BaseModel):
    id: int
    name: Optional[str] = None
    seen: dt.datetime
    amount: Decimal
    tags: List[str] = []
    address: Address


class Frozen(User):
    model_config = ConfigDict(frozen=True)


class Forbid(User):
    model_config = ConfigDict(extra="forbid")


class Allow(User):
    model_config = ConfigDict(extra="allow")


ROWS = [{"id": 1, "name": "a", "seen": "2024-01-02T03:04:05Z", "amount": "1.5", "tags": ["x"], "address": {"city": "Oslo"},
         "extra": 7},
        {"id": "2", "seen": "2024-01-02T03:04:05+02:00", "amount": 2, "address": {"city": "Rome"}}]
BAD = [{"id": 3, "seen": "2024-01-03T00:00:00Z", "amount": 1, "address": {"city": "Oslo"}},
       {"id": "x", "seen": "2024-01-02T00:00:00Z", "amount": 1, "address": {"city": "Oslo"}}]
# case -> (model, rows, explicit schema_contract, expected failure: (column, entity) or None)
CASES = {
    "ignore": (User, ROWS, None, None),
    "frozen": (Frozen, ROWS, None, None),
    "allow": (Allow, ROWS, None, None),
    "forbid": (Forbid, ROWS, None, ("extra", "columns")),
    "bad_value": (User, BAD, None, ("id", "data_type")),
    "discard_row": (User, BAD, {"data_type": "discard_row"}, None),
}


def _failure(run: Any) -> Any:
    try:
        run()
    except Exception as error:  # noqa: BLE001 - both sides wrap it in their PipelineStepFailed
        seen = error
        while seen is not None and type(seen).__name__ != "DataValidationError":
            seen = getattr(seen, "exception", None) or seen.__cause__ or seen.__context__
        assert seen is not None, f"not a validation failure: {error!r}"
        column = seen.column_name
        if isinstance(column, str) and column.startswith("("):  # dlt 1.31 names it as the text of Pydantic's loc tuple
            column = ".".join(str(p) for p in ast.literal_eval(column))
        return seen.table_name, column, seen.schema_entity, seen.contract_mode
    return None


def _rows(table: Any) -> Counter:
    return Counter(tuple(sorted((c, v) for c, v in r.items() if c not in SYSTEM and v is not None)) for r in table.rows)


@pytest.fixture(scope="module")
def outcomes(home, lakehouse):
    import dlt

    theirs, ours = DltSide(home, "pydantic_parity"), SparkloadSide(lakehouse, home, "pydantic_parity")
    found = {}
    for case, (model, rows, contract, _) in CASES.items():
        extra = {} if contract is None else {"schema_contract": contract}
        their_failure = _failure(lambda: theirs.pipeline.run(dlt.resource(rows, name=case, columns=model, **extra)))
        our_failure = _failure(lambda: ours.pipe.run(sl.resource(rows, name=case, columns=model, **extra)))
        found[case] = their_failure, our_failure
    their_tables, our_tables = theirs.tables(), ours.tables()
    return {case: (failures, their_tables.get(case), our_tables.get(case)) for case, failures in found.items()}


@pytest.mark.parametrize("case", list(CASES))
def test_a_pydantic_model_as_columns__lands_what_dlt_lands(outcomes, case):
    (their_failure, our_failure), theirs, ours = outcomes[case]
    expected = CASES[case][3]
    assert our_failure == their_failure
    if expected is not None:
        assert their_failure == (case, *expected, "freeze") and ours is None and theirs is None  # nothing landed
    else:
        assert theirs is not None and ours is not None
        assert column_types({case: ours}) == column_types({case: theirs})
        assert _rows(ours) == _rows(theirs)
    record("pydantic columns", "identical")


def test_the_mapping__is_the_one_documented(outcomes):
    """The judge can fail: the cases differ from each other as the docs say."""
    types = {case: column_types({case: o[2]})[case] for case, o in outcomes.items() if o[2] is not None}
    assert types["ignore"] == {"id": "bigint", "name": "text", "seen": "timestamp", "amount": "decimal(38,9)",
                               "tags": "json", "address": "json"} == types["frozen"]
    assert types["allow"] == {**types["ignore"], "extra": "bigint"}
    assert sum(_rows(outcomes["discard_row"][2]).values()) == 1
    ids = sorted(dict(r)["id"] for r in _rows(outcomes["ignore"][2]))
    assert ids == [1, 2]  # "2" validated to 2


def test_a_pydantic_model_with_data_type_evolve__is_refused_by_name():
    with pytest.raises(sl.HintError, match=r"^resource r: columns=User \(a Pydantic model\) with schema_contract data_type=evolve: not built"):
        sl.resource([{}], name="r", columns=User, schema_contract="evolve")
