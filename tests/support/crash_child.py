"""A pipeline run that kills its own process (SIGKILL) at a documented hook point (or, on Iceberg, between
linking a table's files and registering them; on Delta once the first table landed); used by
test_crash.py as `python -m tests.support.crash_child HOME DATASET PIPELINES_DIR EVENT ROWS`."""
from __future__ import annotations

import os
import signal
import sys

import python_extract as sl
from python_extract.lakehouse.session import session_format
from python_extract.load import spark_loader


def events(rows: int) -> sl.Resource:
    """Rows with a root and a child table; three rows share each cursor value (boundary dedup)."""
    @sl.resource(name="events", primary_key="id")
    def events_(ts=sl.incremental("ts", initial_value=0)):
        for i in range(rows):
            yield {"id": i, "ts": i // 3, "tags": [f"t{i}", f"u{i}"]}
    return events_


LINKED_NOT_COMMITTED = "table_landed_then_files_linked"


def _die_when_linking(nth: int) -> None:
    """SIGKILL once the `nth` table's Parquet files are linked into its Iceberg data folder, before the
    commit that registers them (the tables before it landed completely)."""
    real, calls = spark_loader._link, []

    def link(parts, target):
        real(parts, target)
        calls.append(target)
        if len(calls) == nth:
            os.kill(os.getpid(), signal.SIGKILL)

    spark_loader._link = link


def main(home: str, dataset: str, pipelines_dir: str, event: str, rows: str) -> None:
    pipe = sl.pipeline(pipeline_name=dataset, dataset_name=dataset, pipelines_dir=pipelines_dir,
                       lakehouse=sl.LakehouseConfig.from_env(home=home))
    if event == LINKED_NOT_COMMITTED and session_format(pipe.spark) == "delta":
        # Delta links no file (Spark writes each table): killed once the first table has landed, while the
        # others are being written on the load's threads
        pipe.hooks.register("table_landed", lambda **_: os.kill(os.getpid(), signal.SIGKILL))
    elif event == LINKED_NOT_COMMITTED:
        _die_when_linking(2)
    else:
        pipe.hooks.register(event, lambda **_: os.kill(os.getpid(), signal.SIGKILL))
    pipe.run(events(int(rows)))
    sys.exit(3)  # the hook never fired: the test reports it


if __name__ == "__main__":
    main(*sys.argv[1:])
