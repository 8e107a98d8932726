"""A lakehouse whose warehouse is on S3 (`s3a://`), against a real moto_server on loopback: the
extractor lands staging tables there, `dbt run` builds a final table per strategy there (on either
format: Delta's tables and their logs, Iceberg's data and metadata), and a `dbt run` killed with SIGKILL mid-run (at a
fixed point: a model's MERGE committed, its ledger row not written) is rerun to the tables of load 2. Each side runs as its own process, because a session's warehouse and
connector are fixed when its JVM starts (the run's shared session stays on the local disk).

The S3A connector is `hadoop-aws-3.3.4.jar` + `aws-java-sdk-bundle-1.12.262.jar` from Maven Central
(`sparkload lakehouse setup --s3`), the version of pyspark's hadoop client.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from ..support.dbt import Names
from ..support.paths import REPO
from ..support.s3_server import SECRET_KEY, shared_s3_server, without_aws_env

pytestmark = [pytest.mark.each_format,  # the format changes what this tests (docs/testing.md)
              pytest.mark.extended]  # make test-all only (docs/testing.md)

BUCKET = "sparkload-lake"
TIMEOUT = 600


@pytest.fixture(scope="module")
def s3(request):
    return shared_s3_server(request)


class Scenario:
    """The processes of one S3 lakehouse: their tagged output lines, and the bucket's keys."""

    def __init__(self, s3, home, names: Names, watchdog):
        self.s3, self.names, self.watchdog = s3, names, watchdog
        self.prefix = f"warehouse-{names.staging}"
        self.env = {**without_aws_env(os.environ), **s3.lakehouse_env(BUCKET, self.prefix),
                    "SPARKLOAD_HOME": str(home), "PYTHONPATH": str(REPO)}  # the run's format: SPARKLOAD_TABLE_FORMAT
        self.output: List[str] = []

    def start(self, phase: str) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-m", "tests.support.s3_scenario", phase, self.names.staging,
                                    self.names.target], cwd=REPO, env=self.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.watchdog.guard_group(process.pid)  # with its JVM, gone even if this pytest is killed
        return process

    def tagged(self, tag: str):
        found = [line for line in self.output if line.startswith(tag + " ")]
        assert found, f"no {tag} line in:\n" + "\n".join(self.output[-60:])
        return json.loads(found[-1][len(tag) + 1:])


@pytest.fixture(scope="module")
def scenario(s3, tmp_path_factory, watchdog) -> Scenario:
    """Process 1 lands load 1, runs dbt, lands load 2 and runs dbt again, which halts before the
    ledger insert of its fourth model (s3_scenario.HALT_MODEL); the test SIGKILLs it there, with its
    JVM. Process 2 runs dbt again."""
    run = Scenario(s3, tmp_path_factory.mktemp("s3-lake"), Names(staging="raw_s3", target="dbt_s3"), watchdog)
    first = run.start("first")
    try:
        killed = False
        for line in first.stdout:
            run.output.append(line.rstrip("\n"))
            if line.startswith("HALTED "):
                os.killpg(first.pid, signal.SIGKILL)
                killed = True
        first.wait(TIMEOUT)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert killed and first.returncode == -signal.SIGKILL, "\n".join(run.output[-60:])
    second = run.start("rerun")
    out, _ = second.communicate(timeout=TIMEOUT)
    run.output += out.splitlines()
    assert second.returncode == 0, "\n".join(run.output[-80:])
    return run


L1: Dict[str, list] = {
    "append_items": [[1, "a"], [2, "b"]],
    "di_pk": [[1, "a"], [2, "b"]],
    "replace_items": [[1, "a"], [2, "b"]],
    "scd2_full": [[1, "foo", "L1", None], [2, "bar", "L1", None]],
    "up_pk": [[1, "a"], [2, "b"]],
}
L2: Dict[str, list] = {
    "append_items": [[1, "a"], [2, "B"], [2, "b"], [3, "c"]],
    "di_pk": [[1, "a"], [2, "B"], [3, "c"]],
    "replace_items": [[2, "B"], [3, "c"]],
    "scd2_full": [[1, "foo", "L1", "L2"], [1, "foo_updated", "L2", None], [2, "bar", "L1", None]],
    "up_pk": [[1, "a"], [2, "B"], [3, "c"]],
}


def _sorted(tables: Dict[str, list]) -> Dict[str, list]:
    return {name: sorted(rows, key=str) for name, rows in tables.items()}


def test_s3__hadoop_aws_from_maven_is_the_version_of_pyspark_hadoop_client(scenario):
    assert scenario.tagged("HADOOP") == {"client": "3.3.4", "s3a_jar": "hadoop-aws-3.3.4.jar"}


def test_s3__staging_and_final_tables_live_in_the_bucket_not_on_local_disk(scenario, s3):
    keys = s3.keys(BUCKET, scenario.prefix + "/")
    delta = os.environ["SPARKLOAD_TABLE_FORMAT"] == "delta"
    for dataset, table in [("raw_s3", "items"), ("raw_s3", "dim_customer"), ("raw_s3", "_dlt_loads"),
                           *(("dbt_s3", model) for model in L2)]:
        # Delta: <schema>.db/<table>/ (Spark's warehouse layout) with _delta_log/; Iceberg: <schema>/<table>/data, metadata
        root = f"{scenario.prefix}/{dataset}.db/{table}/" if delta else f"{scenario.prefix}/{dataset}/{table}/"
        data = [k for k in keys if k.startswith(root + ("" if delta else "data/")) and k.endswith(".parquet")]
        log = [k for k in keys if k.startswith(root + ("_delta_log/" if delta else "metadata/"))
               and k.endswith(".json")]
        assert data and log, f"{dataset}.{table}: no data or table log under s3a://{BUCKET}/{root}"
    assert list((Path(scenario.env["SPARKLOAD_HOME"]) / "warehouse").rglob("*.parquet")) == []


def test_s3__each_strategy_builds_its_final_table_from_load_1(scenario):
    assert _sorted(scenario.tagged("TABLES-1")) == _sorted(L1)


def test_s3__dbt_run_killed_mid_run_is_rerun_to_the_tables_of_load_2(scenario):
    halted = scenario.tagged("HALTED")
    done = [json.loads(line[len("MODEL-DONE "):]) for line in scenario.output if line.startswith("MODEL-DONE ")]
    assert [status for _, status in done] == ["success"] * 3, done
    # the kill left work: the models that ran before it applied load 2; the halted one merged it into
    # its table but did not record it, so the rerun applies it again; the last one had not started
    finished = {model for model, _ in done}
    applied = scenario.tagged("APPLIED")
    assert {model for model, loads in applied.items() if "L2" in loads} == finished, applied
    assert halted not in finished and set(L2) - finished - {halted}, (halted, finished)
    killed = _sorted(scenario.tagged("TABLES-KILLED"))
    assert {model: killed[model] for model in finished | {halted}} == _sorted({m: L2[m] for m in finished | {halted}})
    assert all(killed[model] == _sorted(L1)[model] for model in set(L2) - finished - {halted}), killed
    # the rerun: every table is load 2's, the halted model's load applied twice without a duplicate
    assert _sorted(scenario.tagged("TABLES-2")) == _sorted(L2)


def test_s3__credentials_never_reach_a_command_line_or_the_output(scenario):
    assert scenario.tagged("SECRET-IN-JVM-COMMAND-LINE") is False
    assert not [line for line in scenario.output if SECRET_KEY in line]
