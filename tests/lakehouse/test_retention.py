"""Staging retention (`sparkload pipeline expire`): the staging rows of old loads go once every model
consuming the dataset applied them; a load some model has not applied stays, and so does every load
of a dataset no model consumed. Models: integration_tests' up_pk and di_pk, both reading raw.items."""
from __future__ import annotations

import datetime as dt
import re

import pytest

import python_extract as sl
from python_extract.cli import main
from python_extract.errors import ConfigError
from python_extract.maintenance import expire_loads, parse_duration

pytestmark = [pytest.mark.dbt_targets("embedded"), pytest.mark.each_format]  # the expiry is the extractor's side; dbt only applies loads


def _land(lakehouse, names, rows):
    pipeline = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, lakehouse=lakehouse)
    return pipeline.run(rows, table_name="items", write_disposition="merge", primary_key="id").load_id


def _staged(spark, names):
    return sorted((r["_dlt_load_id"], r["id"]) for r in spark.sql(f"select _dlt_load_id, id from {names.staging}.items").collect())


def _final(spark, names, model):
    return sorted(tuple(r) for r in spark.sql(f"select id, v from {names.target}.{model}").collect())


# the Delta run of `--suite ci` leaves it out for CI's time (141 s there, 2026-11-29); make test-all runs it on Delta
@pytest.mark.extended("delta")
def test_expire__deletes_only_loads_every_consuming_model_applied(spark, lakehouse, names, dbt, capsys):
    l1 = _land(lakehouse, names, [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}])
    l2 = _land(lakehouse, names, [{"id": 2, "v": "B"}])
    dbt.run("up_pk di_pk")
    l3 = _land(lakehouse, names, [{"id": 3, "v": "c"}])
    dbt.run("up_pk")  # di_pk has not applied load 3
    staged = _staged(spark, names)
    finals = _final(spark, names, "up_pk"), _final(spark, names, "di_pk")

    # loads younger than the cut-off stay
    young = expire_loads(spark, names.staging, dt.timedelta(days=7))
    assert young.expired_loads == [] and set(young.kept_loads) == {l1, l2, l3}
    # the dry run counts and deletes nothing
    argv = ["pipeline", "expire", names.staging, "--dataset-name", names.staging, "--older-than", "0s"]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"dataset {names.staging}: 2 load(s) older than 0s applied by every consumer" in out
    assert "would delete 3 rows" in out and f"kept {l3}: not applied by {names.target}.di_pk" in out
    assert _staged(spark, names) == staged
    # expiry: loads 1 and 2 go from staging, load 3 stays; the final tables are untouched
    assert main(argv) == 0
    deleted = re.search(r"deleted 3 rows, (\d+) data files", capsys.readouterr().out)
    assert deleted and int(deleted.group(1)) >= 2  # loads 1 and 2 were landed into files of their own
    assert _staged(spark, names) == [(l3, 3)]
    assert (_final(spark, names, "up_pk"), _final(spark, names, "di_pk")) == finals
    # di_pk still applies load 3, the one expiry kept for it
    dbt.run("di_pk")
    assert _final(spark, names, "di_pk") == [(1, "a"), (2, "B"), (3, "c")]


def test_expire__keeps_every_load_of_a_dataset_no_model_applied(spark, lakehouse, names):
    l1 = _land(lakehouse, names, [{"id": 1, "v": "a"}])
    report = expire_loads(spark, names.staging, dt.timedelta(0))
    assert report.expired_loads == [] and report.kept_loads == {l1: "no model has applied a load of this dataset"}
    assert len(_staged(spark, names)) == 1


def test_expire__bad_arguments_are_one_line_errors_that_change_nothing(spark, names, capsys):
    with pytest.raises(ConfigError, match=r"--older-than '7 days' is not a duration; expected <n>s, <n>m, <n>h or <n>d"):
        parse_duration("7 days")
    with pytest.raises(ConfigError, match=r"^no dataset no_such_dataset in the lakehouse: check the pipeline name or --dataset-name$"):
        expire_loads(spark, "no_such_dataset", dt.timedelta(days=1))
    assert main(["pipeline", "expire", "no_such_pipeline", "--older-than", "1d"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sparkload: no pipeline 'no_such_pipeline': it never ran")
    assert main(["pipeline", "expire", "no_such_pipeline", "--older-than", "a week"]) == 2
    assert capsys.readouterr().err.strip() == (
        "sparkload: --older-than 'a week' is not a duration; expected <n>s, <n>m, <n>h or <n>d, e.g. 7d")


@pytest.mark.extended("delta")
def test_expire__then_a_full_refresh_refuses_naming_the_expired_loads_unless_told(spark, lakehouse, names, dbt):
    """Issue 40 item 4: after `pipeline expire`, `dbt run --full-refresh` emptied the final table (3 rows -> 0)."""
    l1 = _land(lakehouse, names, [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}])
    l2 = _land(lakehouse, names, [{"id": 3, "v": "c"}])
    dbt.run("up_pk")
    applied = [(1, "a"), (2, "b"), (3, "c")]
    assert _final(spark, names, "up_pk") == applied
    argv = ["pipeline", "expire", names.staging, "--dataset-name", names.staging, "--older-than", "0s"]
    assert main(argv) == 0 and _staged(spark, names) == []
    noted = spark.sql(f"select load_id from {names.staging}._sparkload_expired_loads order by 1").collect()
    assert [r["load_id"] for r in noted] == [l1, l2]
    assert main(argv) == 0  # expiring again notes each load once
    assert spark.sql(f"select count(*) from {names.staging}._sparkload_expired_loads").collect()[0][0] == 2

    # load 3: a new load the full refresh would rebuild from, alone
    l3 = _land(lakehouse, names, [{"id": 4, "v": "d"}])
    dbt.logs.clear()
    result = dbt.invoke("run", "--select", "up_pk", "--full-refresh", expect_success=False)
    assert not result.success
    message = " ".join("\n".join(dbt.logs).split())
    assert (f"sparkload model up_pk (table {names.target}.up_pk): --full-refresh would rebuild the table without loads "
            f"{l1}, {l2}, which it applied and `sparkload pipeline expire` deleted from staging (dataset {names.staging}), "
            "so their rows would be lost. To keep the table, set `full_refresh: false` in the model's config (dbt then "
            "ignores the flag for it); to rebuild from the loads staging still holds, run with --vars "
            "'{sparkload_full_refresh_from_staging: true}'. The table is unchanged.") in message
    assert _final(spark, names, "up_pk") == applied  # unchanged, load 3 not applied either

    # a plain run still applies load 3 on top of everything
    dbt.run("up_pk")
    assert _final(spark, names, "up_pk") == [*applied, (4, "d")]
    # the explicit opt-in rebuilds from what staging holds: load 3 only
    dbt.invoke("run", "--select", "up_pk", "--full-refresh", vars={"sparkload_full_refresh_from_staging": True})
    assert _final(spark, names, "up_pk") == [(4, "d")]
    assert l3 in {r["load_id"] for r in spark.sql(f"select load_id from {names.target}._sparkload_applied_loads").collect()}

    # every load expired: a rebuild from staging empties the table, and its status line says so (it said NO-OP,
    # "nothing changed")
    assert main(argv) == 0 and _staged(spark, names) == []
    result = dbt.invoke("run", "--select", "up_pk", "--full-refresh", vars={"sparkload_full_refresh_from_staging": True})
    [outcome] = result.result.results
    assert outcome.message == f"REBUILT EMPTY: loads {l1}, {l2}, {l3} bring no rows for this model"
    assert _final(spark, names, "up_pk") == []
