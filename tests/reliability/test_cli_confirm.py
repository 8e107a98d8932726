"""`sparkload pipeline reset NAME` without `--resource` asks on a terminal before wiping every resource's
state (issue 19, item 5), on the real process with its terminal a pseudo-terminal: `n` changes nothing,
`y` wipes the cursors. Without a terminal it refuses unless `--yes` (tests/extract/test_cli.py)."""
from __future__ import annotations

import python_extract as sl

from .support import on_a_terminal

QUESTION = "wipe the state of every resource of pipeline {name} (cursors restart from their initial values)? [y/N] "


def _cursor(lakehouse, names, pipelines):
    pipe = sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, pipelines_dir=str(pipelines),
                       lakehouse=lakehouse)
    pipe.sync_destination()
    return {name.split(".")[-1]: state.get("incremental", {}).get("n", {}).get("last_value")
            for name, state in pipe.resource_states().items()}


def test_reset_without_resource__asks_on_a_terminal_no_keeps_every_cursor_yes_wipes_them(lakehouse, spark, names, tmp_path):
    @sl.resource(name="events", primary_key="n")
    def events(n=sl.incremental("n")):
        yield [{"n": 1}, {"n": 2}]

    pipelines = tmp_path / "pipelines"
    sl.pipeline(pipeline_name=names.staging, dataset_name=names.staging, pipelines_dir=str(pipelines),
                lakehouse=lakehouse).run(events)
    assert _cursor(lakehouse, names, pipelines) == {"events": 2}
    args = ["pipeline", "reset", names.staging, "--dataset-name", names.staging, "--pipelines-dir", str(pipelines)]
    question = QUESTION.format(name=names.staging)

    code, shown = on_a_terminal(*args, home=lakehouse.home, answer="n")
    assert code == 2, shown[-3000:]
    assert shown.rstrip("\n").endswith(f"{question}n\nsparkload: cancelled: nothing changed"), shown[-3000:]
    assert _cursor(lakehouse, names, pipelines) == {"events": 2}

    code, shown = on_a_terminal(*args, home=lakehouse.home, answer="y")
    assert code == 0, shown[-3000:]
    assert f"{question}y\npipeline {names.staging}: state of every resource wiped in load " in shown, shown[-3000:]
    assert _cursor(lakehouse, names, pipelines) == {"events": None}
