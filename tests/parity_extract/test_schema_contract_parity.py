"""Schema contracts against the real dlt 1.31 (duckdb): each case of tests/support/extract_contract_cases.py runs its loads through
both, and after every load both sides must hold the same tables (compare.py), and a load that fails must
fail on both with the same DataValidationError: table, column, entity (tables / columns / data_type) and mode.
Cases whose loads all land run as one batch (one dlt run and one sparkload run per load); a case that fails
a load, or sets its contract on a source or on `run`, runs in pipelines of its own.

On purpose: dlt checks columns and data types in its normalize step and sparkload normalizes while it
extracts, so that failure is the extract step's (`PipelineStepFailed.step`); the error itself is the same."""
from __future__ import annotations

import copy
import warnings
from typing import Any, Dict, List, Optional, Tuple

import pytest

import python_extract as sl
from python_extract.normalize.exceptions import DataValidationError

from ..support.compare import case_tables, differences
from ..support.tally import record_vs_dlt as record
from ..support.extract_contract_cases import CASES, ContractCase
from ..support.extract_sides import DltSide, SparkloadSide

BATCH = [c for c in CASES if not c.alone]
ALONE = [c for c in CASES if c.alone]
Outcome = Optional[Tuple[str, str, Optional[str], str, str]]  # step, table, column, entity, mode; None: landed


def _resource(make_resource: Any, make_source: Any, case: ContractCase, load: int) -> Any:
    rows = case.loads[load] if load < len(case.loads) else None

    def gen():
        if rows is not None:
            yield copy.deepcopy(rows)

    contract = case.at(load)
    kwargs = {} if contract is None else {"schema_contract": contract}
    res = make_resource(gen, name=case.name, table_name=case.name, **kwargs)
    if case.source is None:
        return res

    def src():
        return res
    src.__name__ = f"{case.name}_source"
    return make_source(name=f"{case.name}_source", schema_contract=case.source)(src)()


def _validation_error(error: BaseException) -> Any:
    """The DataValidationError in the chain of `error` (dlt wraps it in NormalizeJobFailed in its normalize step)."""
    seen = error
    while seen is not None and type(seen).__name__ != "DataValidationError":
        seen = getattr(seen, "exception", None) or seen.__cause__ or seen.__context__
    assert seen is not None, f"not a schema contract failure: {error!r}"
    return seen


def _outcome(run: Any) -> Outcome:
    try:
        run()
    except Exception as e:  # noqa: BLE001 - both sides' failures are compared
        found = _validation_error(e)
        return (getattr(e, "step", None), found.table_name, found.column_name, found.schema_entity, found.contract_mode)
    return None


def _run(home, lakehouse, name: str, cases: List[ContractCase]):
    """Both sides through every load: (dlt side, sparkload side, per load [(dlt outcome, sparkload outcome)],
    per load (dlt tables, sparkload tables)), with each side's load ids numbered."""
    import dlt

    theirs, ours = DltSide(home, name), SparkloadSide(lakehouse, home, name)
    outcomes, snapshots = [], []
    their_runs: Dict[str, int] = {}
    our_runs: Dict[str, int] = {}
    for k in range(max(len(c.loads) for c in cases)):
        run_kwargs = {} if cases[0].run is None else {"schema_contract": cases[0].run}
        their = [_resource(dlt.resource, dlt.source, c, k) for c in cases]
        our = [_resource(sl.resource, sl.source, c, k) for c in cases]
        their_outcome = _outcome(lambda: their_runs.setdefault(theirs.pipeline.run(their[0] if len(their) == 1 else their, **run_kwargs).loads_ids[-1], k + 1))
        if their_outcome is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs.pipeline.drop_pending_packages()  # what sparkload keeps of a failed load: nothing
        our_outcome = _outcome(lambda: our_runs.setdefault(ours.pipe.run(our[0] if len(our) == 1 else our, **run_kwargs).load_id, k + 1))
        outcomes.append((their_outcome, our_outcome))
        snapshots.append((theirs.tables(), ours.tables()))
    return outcomes, snapshots, their_runs, our_runs


def _judge(case: ContractCase, outcomes, snapshots, their_runs, our_runs) -> None:
    on_purpose = False
    for load, ((their, our), (their_tables, our_tables)) in enumerate(zip(outcomes, snapshots), start=1):
        if their is not None and our is not None and their[0] == "normalize" and our[0] == "extract":
            on_purpose = True  # the step that normalizes: dlt's normalize, sparkload's extract (module docstring)
            their, our = their[1:], our[1:]
        assert their == our, f"load {load}: dlt {their}, sparkload {our}"
        found = differences(their_tables, our_tables, case.name, their_runs, our_runs)
        assert not found, f"load {load}: " + "\n".join(found)
    record("schema contracts", "differs-on-purpose" if on_purpose else "identical")


@pytest.fixture(scope="module")
def batch(home, lakehouse):
    return _run(home, lakehouse, "contract_batch", BATCH)


@pytest.mark.parametrize("case", BATCH, ids=[c.name for c in BATCH])
def test_schema_contract__lands_what_dlt_lands(batch, case):
    outcomes, snapshots, their_runs, our_runs = batch
    try:
        _judge(case, outcomes, snapshots, their_runs, our_runs)
    except AssertionError:
        record("schema contracts", "differs")
        raise


# each case alone is a dlt run and a sparkload run of its own: `--suite ci` runs every 3rd, make test-all every one
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=() if i % 3 == 0 else pytest.mark.extended)
                                  for i, c in enumerate(ALONE)])
def test_schema_contract__fails_and_lands_as_dlt_does(home, lakehouse, case):
    outcomes, snapshots, their_runs, our_runs = _run(home, lakehouse, f"contract_{case.name}"[:60], [case])
    try:
        _judge(case, outcomes, snapshots, their_runs, our_runs)
    except AssertionError:
        record("schema contracts", "differs")
        raise
    if case.name.startswith("fails_"):
        assert any(our is not None for _, our in outcomes), "the case fails no load: it proves no failure"


def test_a_frozen_column__fails_one_line_naming_table_column_load_and_the_value(home, lakehouse):
    pipe = sl.pipeline(pipeline_name="contract_message", dataset_name="contract_message", lakehouse=lakehouse,
                       pipelines_dir=str(home / "sl_pipelines"))

    @sl.resource(name="orders", schema_contract={"columns": "freeze"})
    def orders(rows):
        yield rows

    pipe.run(orders([{"id": 1}]))
    before = pipe.spark.table("contract_message.orders").count()
    with pytest.raises(sl.PipelineStepFailed) as failed:
        pipe.run(orders([{"id": 2, "coupon": "SAVE10"}]))
    message = str(failed.value)
    assert "\n" not in message
    assert f"load {failed.value.load_id}" in message and "table orders column coupon" in message
    assert "columns=freeze" in message and "'SAVE10'" in message
    error = failed.value.exception
    assert isinstance(error, DataValidationError)
    assert (error.table_name, error.column_name, error.schema_entity, error.contract_mode) == ("orders", "coupon", "columns", "freeze")
    assert error.schema_contract == {"tables": "evolve", "columns": "freeze", "data_type": "evolve"}
    assert pipe.spark.table("contract_message.orders").count() == before  # nothing of the load landed
