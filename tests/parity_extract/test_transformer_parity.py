"""Transformer differential: dlt's `@dlt.transformer` (with `data_from=`, or piped: `parent | transformer`)
ported by changing the import, run through the real dlt 1.31 and through sparkload, several runs in a row:
the same tables, the same parent cursor state, and the parent generator run as often as dlt runs it."""
from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

import python_extract as sl

from ..support.tally import record_vs_dlt as record
from ..support.extract_sides import SYSTEM, DltSide, SparkloadSide

# `--suite ci` leaves this differential out (make test-all runs it): a transformer's rows land as a resource's do,
# which the incremental and normalize differentials judge
pytestmark = pytest.mark.extended

# each run the parent API has two more issues; its cursor keeps the transformer to the new ones
ISSUES = [{"id": i, "updated": i, "title": f"issue {i}"} for i in range(1, 7)]


def _pipes(dlt_like: Any, at: Dict[str, int], calls: List[str]):
    @dlt_like.resource(primary_key="id", write_disposition="merge")
    def issues(updated=dlt_like.sources.incremental("updated", initial_value=0)):
        calls.append("issues")
        known = ISSUES[: 2 * (at["run"] + 1)]
        yield known[:-1]  # a page (list) ...
        yield known[-1]  # ... and a single item

    @dlt_like.transformer(data_from=issues, primary_key="comment_id", write_disposition="merge")
    def comments(page, per_issue=2):
        for issue in page if isinstance(page, list) else [page]:
            for k in range(per_issue):
                yield {"comment_id": issue["id"] * 10 + k, "issue_id": issue["id"], "what": type(page).__name__}

    @dlt_like.transformer
    def shapes(item):  # no data_from: piped in
        yield {"shape": json.dumps(item, sort_keys=True)}

    return issues, comments, shapes


def _rows(tables, table: str):
    return sorted(tuple(sorted((k, v) for k, v in r.items() if k not in SYSTEM)) for r in tables[table].rows)


@pytest.mark.parametrize("form", ["parent_and_transformer", "piped_alone"])
def test_transformer__the_same_tables_parent_state_and_parent_calls_as_dlt_run_after_run(home, lakehouse, form):
    """`parent_and_transformer`: run([issues, comments(per_issue=3)]): the parent lands and feeds the
    transformer, running once per run (dlt evaluates it once for both), the transformer sees each page or
    item as the parent yielded it, after the parent's cursor. `piped_alone`: run(issues | shapes): only the
    transformer's table lands, and the parent's cursor still moves with each run, as in dlt."""
    import dlt

    theirs, ours = DltSide(home, f"tr_{form}"), SparkloadSide(lakehouse, home, f"tr_{form}")
    their_at, our_at = {"run": 0}, {"run": 0}
    their_calls: List[str] = []
    our_calls: List[str] = []
    their_pipes, our_pipes = _pipes(dlt, their_at, their_calls), _pipes(sl, our_at, our_calls)
    tables = ["issues", "comments"] if form == "parent_and_transformer" else ["shapes"]
    for run in range(3):
        their_at["run"] = our_at["run"] = run
        for pipeline, (issues, comments, shapes) in ((theirs, their_pipes), (ours, our_pipes)):
            pipeline.run([issues, comments(per_issue=3)] if form == "parent_and_transformer" else [issues | shapes])
        their_tables, our_tables = theirs.tables(), ours.tables(tables)
        for table in tables:
            assert _rows(their_tables, table) == _rows(our_tables, table), (run, table)
        assert their_calls == our_calls == ["issues"] * (run + 1)
        their_cursor = theirs.resource_state("issues")["incremental"]["updated"]
        our_cursor = ours.resource_state("issues")["incremental"]["updated"]
        assert their_cursor["last_value"] == our_cursor["last_value"] == 2 * (run + 1)
    assert set(our_tables) == set(tables)  # piped alone, the parent's table is not loaded
    if form == "parent_and_transformer":
        assert len(our_tables["comments"].rows) == 3 * 6 and {r["what"] for r in our_tables["comments"].rows} == {"list", "dict"}
    else:
        assert len(our_tables["shapes"].rows) == 6
    record("incremental", "identical")


def _plain_pipes(dlt_like: Any):
    @dlt_like.resource
    def issues():
        yield [{"id": 1}, {"id": 2}]
        yield {"id": 3}

    @dlt_like.transformer(data_from=issues)
    def comments(page, per_issue=2):
        for issue in page if isinstance(page, list) else [page]:
            for k in range(per_issue):
                yield {"comment_id": issue["id"] * 10 + k, "what": type(page).__name__}

    @dlt_like.transformer
    def shapes(item):
        return {"shape": json.dumps(item, sort_keys=True)}  # a transformer may return its item

    return issues, comments, shapes


def test_transformer__iterated_directly_and_without_data_as_dlt():
    """A transformer iterated directly gets each yield of its parent as the parent yielded it (a page or an
    item), piped or from data_from, with bound arguments, returned or yielded; one without data is refused
    when iterated, as dlt refuses it. The order of the items may differ (dlt interleaves generators)."""
    import dlt

    theirs, ours = _plain_pipes(dlt), _plain_pipes(sl)
    for dlt_side, sl_side in ((theirs[1], ours[1]), (theirs[1](per_issue=1), ours[1](per_issue=1)),
                              (theirs[0] | theirs[2], ours[0] | ours[2]), (theirs[0] | theirs[1](per_issue=3), ours[0] | ours[1](per_issue=3))):
        # the same items; dlt interleaves the transformer's generators (round robin), sparkload runs each in turn
        assert sorted(map(json.dumps, dlt_side)) == sorted(map(json.dumps, sl_side)) and list(sl_side)
        assert dlt_side.name == sl_side.name
    assert [r["what"] for r in ours[1]] == ["list"] * 4 + ["dict"] * 2
    # `parent | transformer` binds the transformer itself (dlt's pipe is in place); a called one is a new one
    assert (theirs[0] | theirs[2]) is theirs[2] and (ours[0] | ours[2]) is ours[2]
    fresh_theirs, fresh_ours = _plain_pipes(dlt)[2], _plain_pipes(sl)[2]
    assert (theirs[0] | fresh_theirs()) is not fresh_theirs and (ours[0] | fresh_ours()) is not fresh_ours
    with pytest.raises(Exception, match="unbound"):
        list(fresh_theirs)
    with pytest.raises(TypeError, match="transformer shapes has no data"):
        list(fresh_ours)
    with pytest.raises(TypeError, match=r"only a transformer \(@transformer\) takes a resource's data"):
        ours[0] | sl.resource([1], name="plain")
    record("incremental", "identical")


def test_transformer_chain__each_parent_through_its_own_cursor_run_alone_or_together(home, lakehouse):
    """issues (incremental) | comments | words: run as the chain alone, each level is fed what the level
    above kept, and the issues cursor moves; run with every level, each runs once. Both as dlt, run after run."""
    import dlt

    def chain(dlt_like, at, calls):
        issues, comments, _ = _pipes(dlt_like, at, calls)

        @dlt_like.transformer(data_from=comments)
        def words(comment):
            for c in comment if isinstance(comment, list) else [comment]:
                yield {"word": f"w{c['comment_id']}"}
        return issues, comments, words

    for form in ("alone", "together"):
        theirs, ours = DltSide(home, f"chain_{form}"), SparkloadSide(lakehouse, home, f"chain_{form}")
        their_at, our_at, their_calls, our_calls = {"run": 0}, {"run": 0}, [], []
        their_chain, our_chain = chain(dlt, their_at, their_calls), chain(sl, our_at, our_calls)
        for run in range(2):
            their_at["run"] = our_at["run"] = run
            for pipeline, levels in ((theirs, their_chain), (ours, our_chain)):
                pipeline.run([levels[2]] if form == "alone" else list(levels))
            tables = ["words"] if form == "alone" else ["issues", "comments", "words"]
            their_tables, our_tables = theirs.tables(), ours.tables(tables)
            for table in tables:
                assert _rows(their_tables, table) == _rows(our_tables, table), (form, run, table)
            assert their_calls == our_calls == ["issues"] * (run + 1)
            assert ours.resource_state("issues")["incremental"]["updated"]["last_value"] == 2 * (run + 1)
        assert len(our_tables["words"].rows) == 4 * 2  # two runs: four issues, two comments each
    record("incremental", "identical")


def test_transformer_alone__its_parent_reads_and_writes_its_own_resource_state_as_in_dlt(home, lakehouse):
    """A parent run only to feed its transformer (`parent | transformer`) calls `current.resource_state()`:
    that is the parent's state, not the transformer's, and it is committed with the load, run after run."""
    import dlt

    def pipes(dlt_like: Any):
        @dlt_like.resource
        def counted():
            state = dlt_like.current.resource_state()
            state["parent_calls"] = state.get("parent_calls", 0) + 1
            yield [{"id": 1}, {"id": 2}]

        @dlt_like.transformer
        def doubled(items):
            state = dlt_like.current.resource_state()
            state["pages"] = state.get("pages", 0) + 1
            for item in items:
                yield {"id": item["id"], "twice": 2 * item["id"]}
        return counted, doubled

    theirs, ours = DltSide(home, "tr_state"), SparkloadSide(lakehouse, home, "tr_state")
    their_pipes, our_pipes = pipes(dlt), pipes(sl)
    for run in range(2):
        for side, (counted, doubled) in ((theirs, their_pipes), (ours, our_pipes)):
            side.run([counted | doubled])
        for resource in ("counted", "doubled"):
            assert ours.resource_state(resource) == theirs.resource_state(resource), (run, resource)
    assert ours.resource_state("counted") == {"parent_calls": 2} and ours.resource_state("doubled") == {"pages": 2}
    record("incremental", "identical")


def test_transformers_docs_example__runs_as_written(lakehouse, tmp_path, monkeypatch):
    """The example of docs/extractor.md, section Transformers, executed as written on the test lakehouse."""
    from ..support.doc_commands import readme_blocks

    monkeypatch.chdir(tmp_path)
    namespace: Dict[str, Any] = {}
    exec(readme_blocks("Transformers (dlt's `@dlt.transformer`)")[0], namespace)
    pipeline = namespace["pipeline"]
    spark = pipeline.spark
    assert sorted(r.id for r in spark.table("raw_tracker.issues").collect()) == [1, 2]
    assert sorted((r.comment_id, r.issue_id) for r in spark.table("raw_tracker.comments").collect()) == [(100, 1), (200, 2)]


def test_defer__a_transformers_calls_run_in_parallel_with_the_same_tables_as_dlt(home, lakehouse):
    """`@transformer` over `@defer`: dlt runs the calls (an API request per parent item) in a thread pool; so
    does sparkload (five threads), the results in the parent's order: each side's calls ran on more than one
    thread, and the tables and `current.pipeline()` inside the resource are dlt's."""
    import threading
    import time

    import dlt

    def build(dlt_like, seen_threads, seen_pipelines):
        @dlt_like.resource
        def ids():
            seen_pipelines.append(dlt_like.current.pipeline().pipeline_name)
            yield from ({"id": i} for i in range(20))

        @dlt_like.transformer(data_from=ids)
        @dlt_like.defer
        def details(item):
            seen_threads.add(threading.current_thread().name)
            time.sleep(0.2)
            return {"id": item["id"], "detail": item["id"] * 2}
        return ids, details

    theirs, ours = DltSide(home, "deferred"), SparkloadSide(lakehouse, home, "deferred")
    their_threads, our_threads, their_pipes, our_pipes = set(), set(), [], []
    for side, make, threads, pipes in ((theirs, dlt, their_threads, their_pipes), (ours, sl, our_threads, our_pipes)):
        ids, details = build(make, threads, pipes)
        side.run([ids | details])
    assert _rows(theirs.tables(), "details") == _rows(ours.tables(["details"]), "details")
    assert len(ours.tables(["details"])["details"].rows) == 20
    assert len(their_threads) > 1 and len(our_threads) > 1  # in parallel on both
    assert their_pipes == our_pipes == ["deferred"]
    record("incremental", "identical")


def test_current_pipeline__the_last_pipeline_created_or_run_and_an_error_before_any():
    import python_extract.extract.current as current

    saved = list(current._ACTIVE)
    try:
        current._ACTIVE.clear()
        with pytest.raises(sl.SparkloadError, match=r"current.pipeline\(\): no pipeline was created in this process yet"):
            sl.current.pipeline()
    finally:
        current._ACTIVE[:] = saved
