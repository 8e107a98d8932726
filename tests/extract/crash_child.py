"""A pipeline run that kills its own process (SIGKILL) at a documented hook point; used by
test_crash.py as `python -m tests.extract.crash_child HOME DATASET PIPELINES_DIR EVENT ROWS`."""
from __future__ import annotations

import os
import signal
import sys

import python_extract as sl


def events(rows: int) -> sl.Resource:
    """Rows with a root and a child table; three rows share each cursor value (boundary dedup)."""
    @sl.resource(name="events", primary_key="id")
    def events_(ts=sl.incremental("ts", initial_value=0)):
        for i in range(rows):
            yield {"id": i, "ts": i // 3, "tags": [f"t{i}", f"u{i}"]}
    return events_


def main(home: str, dataset: str, pipelines_dir: str, event: str, rows: str) -> None:
    pipe = sl.pipeline(pipeline_name=dataset, dataset_name=dataset, pipelines_dir=pipelines_dir,
                       lakehouse=sl.LakehouseConfig.from_env(home=home))
    pipe.hooks.register(event, lambda **_: os.kill(os.getpid(), signal.SIGKILL))
    pipe.run(events(int(rows)))
    sys.exit(3)  # the hook never fired: the test reports it


if __name__ == "__main__":
    main(*sys.argv[1:])
