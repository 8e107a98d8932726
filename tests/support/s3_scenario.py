"""One side of tests/lakehouse/test_s3.py, run as its own process on a lakehouse whose warehouse is on
S3 (the SPARKLOAD_* settings in the environment): `python -m tests.support.s3_scenario PHASE STAGING TARGET`.

- `first`: the extractor lands load 1, `dbt run` builds every model, the extractor lands load 2 and
  `dbt run` starts again, one model at a time; when `HALT_MODEL` is about to record load 2 in the
  ledger (its MERGE committed, the ledger row not yet written: the worst moment for a crash), the run
  prints `HALTED` and waits, so the test's SIGKILL always hits the same point;
- `rerun`: prints which models applied which loads and the tables as the kill left them, then
  `dbt run` again.
Lines starting with an upper-case tag (`TABLES-1 {...}`) are for the test; dbt's own output is not
printed. Models (integration_tests/models/materialization): one per strategy and disposition.
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
from pathlib import Path

import python_extract as sl
from python_extract.lakehouse import LakehouseConfig, get_session
from python_extract.runtime.processes import process_command_line

from .dbt import Names, dbt_env
from .paths import REPO

PROJECT = REPO / "integration_tests"
MODELS = {  # model -> columns to compare
    "append_items": "id, v",
    "di_pk": "id, v",
    "replace_items": "id, v",
    "scd2_full": "customer_key, c1, _dlt_valid_from, _dlt_valid_to",
    "up_pk": "id, v",
}
LOADS = [
    {"items": [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}],
     "dim_customer": [{"customer_key": 1, "c1": "foo"}, {"customer_key": 2, "c1": "bar"}]},
    {"items": [{"id": 2, "v": "B"}, {"id": 3, "v": "c"}],
     "dim_customer": [{"customer_key": 1, "c1": "foo_updated"}, {"customer_key": 2, "c1": "bar"}]},
]
HALT_MODEL = "scd2_full"  # dbt runs the models in name order: three before it, one after
LEDGER_INSERT = re.compile(r"\binsert\s+into\s+\S*_sparkload_applied_loads\b", re.IGNORECASE)
# the model's strategy statement writing its table; a ledger entry before it (a group of loads that brings no
# rows for the model is recorded first) is not the point after the commit
TABLE_WRITE = re.compile(rf"\b(merge\s+into|insert\s+overwrite|create\s+or\s+replace\s+table)\s+\S*{HALT_MODEL}\b", re.IGNORECASE)


def say(tag: str, value) -> None:
    print(f"{tag} {json.dumps(value, default=str)}", flush=True)


def land(spark, staging: str, load: dict) -> None:
    pipeline = sl.pipeline(pipeline_name=staging, dataset_name=staging, lakehouse=LakehouseConfig.from_env())
    info = pipeline.run([sl.resource(rows, name=table, write_disposition="merge", primary_key="id" if table == "items" else None)
                         for table, rows in load.items()])
    say("LANDED", info.load_ids)


def dbt_run(staging: str, target: str, halt: bool = False) -> None:
    from dbt.cli.main import dbtRunner

    os.environ.update(dbt_env(Names(staging=staging, target=target)))

    wrote = threading.Event()  # HALT_MODEL's strategy statement was sent (and, run in order, committed)

    def on_event(event) -> None:  # runs in the thread running the model: blocking it stops the run there
        if not halt:
            return
        if event.info.name == "NodeFinished":
            say("MODEL-DONE", [event.data.node_info.node_name, event.data.run_result.status])
        elif event.info.name == "SQLQuery" and event.data.node_info.node_name == HALT_MODEL and TABLE_WRITE.search(event.data.sql):
            wrote.set()
        elif (event.info.name == "SQLQuery" and event.data.node_info.node_name == HALT_MODEL
              and wrote.is_set() and LEDGER_INSERT.search(event.data.sql)):
            say("HALTED", HALT_MODEL)
            threading.Event().wait()

    runner = dbtRunner(callbacks=[on_event])
    common = ["--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT), "--target", "embedded", "--quiet"]
    if not (PROJECT / "dbt_packages" / "sparkload").exists():
        assert runner.invoke(["deps", *common]).success
    result = runner.invoke(["run", "--threads", "1", "--select", *MODELS, *common])
    assert result.success, result.exception


def tables(spark, staging: str, target: str) -> dict:
    label = {r["inserted_at"]: f"L{i}" for i, r in enumerate(
        spark.sql(f"select inserted_at from {staging}._dlt_loads order by load_id").collect(), 1)}
    return {model: sorted([[label.get(v, v) for v in row] for row in
                           spark.sql(f"select {cols} from {target}.{model}").collect()], key=str)
            for model, cols in MODELS.items()}


def main(phase: str, staging: str, target: str) -> None:
    spark = get_session()
    jvm = spark.sparkContext._jvm
    if LakehouseConfig.from_env().on_s3:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        s3a = jvm.java.lang.Class.forName("org.apache.hadoop.fs.s3a.S3AFileSystem", True, loader)
        say("HADOOP", {"client": jvm.org.apache.hadoop.util.VersionInfo.getVersion(),
                       "s3a_jar": Path(s3a.getProtectionDomain().getCodeSource().getLocation().getPath()).name})
    cmdline = process_command_line(jvm.java.lang.ProcessHandle.current().pid())
    say("SECRET-IN-JVM-COMMAND-LINE", os.environ.get("SPARKLOAD_S3_SECRET_ACCESS_KEY", "-") in cmdline)
    if phase == "first":
        land(spark, staging, LOADS[0])
        dbt_run(staging, target)
        say("TABLES-1", tables(spark, staging, target))
        land(spark, staging, LOADS[1])
        dbt_run(staging, target, halt=True)
        say("UNKILLED", tables(spark, staging, target))
    else:
        label = {r["load_id"]: f"L{i}" for i, r in enumerate(
            spark.sql(f"select load_id from {staging}._dlt_loads order by load_id").collect(), 1)}
        applied = {model: [] for model in MODELS}
        for r in spark.sql(f"select target, load_id from {target}._sparkload_applied_loads order by load_id").collect():
            applied[r["target"].split(".")[-1]].append(label[r["load_id"]])
        say("APPLIED", applied)
        say("TABLES-KILLED", tables(spark, staging, target))
        dbt_run(staging, target)
        say("TABLES-2", tables(spark, staging, target))


if __name__ == "__main__":
    main(*sys.argv[1:4])
