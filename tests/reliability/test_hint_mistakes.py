"""A user's mistake in a resource definition is never our bug (issue 40 item 1): a misspelt
`write_disposition`, a misspelt key of its dict form, a misspelt column hint or decorator argument is a
`ConfigError` (`HintError`) with one line naming the resource and the closest valid name, whether it comes
through the Python API, `sparkload run file.py:resource` or a pipeline YAML (exit 2, not 70). Every case
fails before Spark starts: the lakehouse is never created."""
from __future__ import annotations

import re
import textwrap

import pytest
from hypothesis import given, settings, strategies as st

import python_extract as sl
from python_extract.contract import COLUMN_HINTS, WRITE_DISPOSITIONS
from python_extract.errors import ConfigError, HintError

from ..support.sparkload_process import one_line, sparkload, write_source

EXPECTED_DISPOSITIONS = "expected one of append, replace, merge"
# case: (the decorator's arguments, the line after "resource typo: ")
MISTAKES = {
    "disposition": ('write_disposition="mrege"',
                    f"write_disposition='mrege' (did you mean 'merge'?); {EXPECTED_DISPOSITIONS}"),
    "disposition_dict_key": ('write_disposition={"disposition": "merge", "stratgy": "upsert"}',
                             "write_disposition key stratgy is not known (did you mean 'strategy'?); expected "
                             "disposition, strategy, deduplicated, validity_column_names, active_record_timestamp, "
                             "boundary_timestamp, row_version_column_name"),
    "merge_strategy": ('write_disposition={"disposition": "merge", "strategy": "scd"}',
                       "merge strategy 'scd' (did you mean 'scd2'?); expected merge with one of delete-insert, "
                       "upsert, scd2, insert-only"),
    "column_hint": ('columns={"deleted": {"hard_delet": True}}',
                    "column deleted: unknown column hint hard_delet (did you mean 'hard_delete'?); expected "
                    f"{', '.join(COLUMN_HINTS)}"),
    "decorator_argument": ('primary_keys="id"',
                           "unknown hint primary_keys (did you mean 'primary_key'?); expected table_name, "
                           "write_disposition, primary_key, merge_key, columns, max_table_nesting, incremental, schema_contract"),
}


def _module(arguments: str) -> str:
    return textwrap.dedent(f'''
        import python_extract as sl


        @sl.resource(name="typo", {arguments})
        def typo():
            yield {{"id": 1, "deleted": False}}
    ''')


@pytest.mark.parametrize("case", list(MISTAKES))
def test_hint_mistake__through_the_api_is_a_config_error_naming_the_closest_hint(case):
    arguments, expected = MISTAKES[case]
    namespace = {"sl": sl}
    with pytest.raises(ConfigError) as refused:
        exec(_module(arguments), namespace)
    assert isinstance(refused.value, HintError) and refused.value.exit_code == 2
    assert str(refused.value) == f"resource typo: {expected}"


@pytest.mark.parametrize("through", ["target", "pipeline_file"])
@pytest.mark.parametrize("case", list(MISTAKES))
def test_hint_mistake__through_the_cli_is_one_line_and_exit_2(case, through, tmp_path):
    arguments, expected = MISTAKES[case]
    write_source(tmp_path, _module(arguments), "src.py")
    target = "src.py:typo"
    if through == "pipeline_file":
        (tmp_path / "pipeline.yaml").write_text("pipeline_name: typo\nsource: src.py:typo\n")
        target = "pipeline.yaml"
    done = sparkload("run", target, "--no-progress", home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) == f"sparkload: src.py line 5: resource typo: {expected}"
    assert not (tmp_path / "lake").exists()  # refused before anything ran


def test_run_hints_sources_and_cursors__a_misspelt_name_is_refused_before_spark_starts(tmp_path):
    pipe = sl.pipeline(pipeline_name="typo", pipelines_dir=str(tmp_path / "pipelines"))
    with pytest.raises(ConfigError, match=re.escape(f"resource t: write_disposition='mrege' (did you mean 'merge'?); "
                                                    f"{EXPECTED_DISPOSITIONS}")):
        pipe.run([{"id": 1}], table_name="t", write_disposition="mrege")
    with pytest.raises(ConfigError, match=re.escape("run: unknown hint primary_keys (did you mean 'primary_key'?)")):
        pipe.run([{"id": 1}], table_name="t", primary_keys="id")
    with pytest.raises(ConfigError, match=re.escape("resource t: unknown hint merge_keys (did you mean 'merge_key'?)")):
        sl.resource([{"id": 1}], name="t").apply_hints(merge_keys="id")
    with pytest.raises(ConfigError, match=re.escape("source shop: no resource ordrs (did you mean 'orders'?); it has orders")):
        sl.source(lambda: [sl.resource([{"id": 1}], name="orders")], name="shop")().with_resources("ordrs")
    with pytest.raises(ConfigError, match=re.escape("date_windows: not a datetime: 'P1D'")):
        sl.date_windows("P1D")
    with pytest.raises(sl.IncrementalError, match=re.escape("range_start='opn' (did you mean 'open'?)")) as refused:
        sl.incremental("ts", range_start="opn")
    assert refused.value.exit_code == 2


def test_pipeline_file__a_misspelt_disposition_names_the_closest_one(tmp_path):
    write_source(tmp_path, _module('primary_key="id"'), "src.py")
    (tmp_path / "pipeline.yaml").write_text("source: src.py:typo\nwrite_disposition: mrege\n")
    done = sparkload("run", "pipeline.yaml", "--no-progress", home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) == ("sparkload: pipeline.yaml: write_disposition: 'mrege' is not one of ['append', "
                                     "'replace', 'merge'] (did you mean 'merge'?)")
    assert not (tmp_path / "lake").exists()


@settings(max_examples=200, deadline=None)
@given(disposition=st.one_of(st.text(max_size=12), st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2),
                             st.dictionaries(st.text(max_size=12), st.text(max_size=6), max_size=3)),
       column=st.dictionaries(st.text(max_size=12), st.one_of(st.text(max_size=6), st.booleans(), st.integers()), max_size=3))
def test_hint_mistake__any_malformed_hint_is_a_config_error_never_another_exception(disposition, column):
    for hints in ({"write_disposition": disposition}, {"columns": {"c": column}}):
        try:
            res = sl.resource([{"c": 1}], name="r", **hints)
        except ConfigError as e:  # any other exception fails the test
            assert str(e).startswith("resource r: ")
        else:
            assert res.write_disposition in WRITE_DISPOSITIONS and set(res.columns.get("c", {})) <= set(COLUMN_HINTS)
