"""`sparkload pipeline reset NAME` without `--resource` asks on a terminal before wiping every resource's
state (issue 19, item 5), on the real process with its terminal a pseudo-terminal: `n` changes nothing,
`y` wipes the cursors. Without a terminal it refuses unless `--yes` (tests/extract/test_cli.py). A
mistyped pipeline name is refused before anything is written: no working directory, no lock file."""
from __future__ import annotations

import python_extract as sl
from python_extract import cli

from ..support.sparkload_process import on_a_terminal

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


def test_reset_drop_expire_of_an_unknown_pipeline__refused_without_creating_its_directory(lakehouse, spark, names,
                                                                                           tmp_path, capsys):
    pipelines = tmp_path / "pipelines"
    pipelines.mkdir()
    unknown = names.staging + "_typo"
    common = ["--dataset-name", names.staging, "--pipelines-dir", str(pipelines)]
    for command in (["reset", unknown, "--yes"], ["drop", unknown, "--resource", "events"],
                    ["expire", unknown, "--older-than", "1d"]):
        code = cli.main(["pipeline", *command, *common])
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.startswith(f"sparkload: no pipeline '{unknown}': it never ran with pipelines dir {pipelines} "), err
        assert list(pipelines.iterdir()) == [], command  # before the fix: <pipelines>/<name>/writer.lock
