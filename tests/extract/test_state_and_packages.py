"""State committed with the data and restored from the destination; load packages that land exactly
once; sources sharing config and secrets."""
from __future__ import annotations

import pytest

import python_extract as sl
from python_extract.load import land_table
from python_extract.load.destination import ensure_dataset

from ..support.staging import cursor, loads, staged


def _counter(data):
    @sl.resource(name="t", primary_key="id")
    def t(ts=sl.incremental("ts")):
        yield from data
    return t


def test_new_machine_with_an_empty_working_directory__continues_from_the_stored_cursor(pipe, make_pipeline):
    data = [{"id": n, "ts": n} for n in range(3)]
    pipe.run(_counter(data))
    data.append({"id": 3, "ts": 3})
    info = make_pipeline(fresh=True).run(_counter(data))
    assert info.row_counts == {"t": 1} and staged(pipe, "t", "id") == [(0,), (1,), (2,), (3,)]


def test_state_of_a_load_without_its_dlt_loads_row__is_ignored(pipe, make_pipeline):
    data = [{"id": n, "ts": n} for n in range(3)]
    pipe.run(_counter(data))
    data.append({"id": 3, "ts": 3})
    package = pipe.extract_and_normalize(_counter(data))
    ensure_dataset(pipe.spark, pipe.dataset_name)
    land_table(pipe.spark, package, "t")                       # landed, but no state row and no `_dlt_loads` row
    from python_extract.load.destination import write_state
    write_state(pipe.spark, pipe.dataset_name, package.load_id, package.state)
    assert cursor(make_pipeline(fresh=True), "t", "ts") == 2   # the incomplete load's state does not count
    pipe.run(_counter(data))                                    # the pending package lands once, then nothing new
    assert staged(pipe, "t", "id") == [(0,), (1,), (2,), (3,)]
    assert cursor(pipe, "t", "ts") == 3 and len(loads(pipe)) == 2


def test_state_counts_after_dbt_advanced_the_load_status(pipe, make_pipeline):
    data = [{"id": 1, "ts": 1}]
    pipe.run(_counter(data))
    pipe.spark.sql(f"update {pipe.dataset_name}._dlt_loads set status = 1")
    assert cursor(make_pipeline(fresh=True), "t", "ts") == 1


def test_a_retried_package__lands_every_table_exactly_once(pipe):
    items = [{"id": n, "tags": ["a", "b"]} for n in range(4)]
    package = pipe.extract_and_normalize(sl.resource(items, name="t"))
    ensure_dataset(pipe.spark, pipe.dataset_name)
    package.mark_landing("t")
    land_table(pipe.spark, package, "t")                       # attempt 1 died after appending t, before its marker
    info = pipe.load()
    assert info.load_ids == [package.load_id]
    assert len(staged(pipe, "t", "id")) == 4 and len(staged(pipe, "t__tags", "value")) == 8
    assert loads(pipe) == [package.load_id]
    assert pipe.load().load_ids == []                         # nothing pending any more


def test_packages__are_written_in_bounded_parquet_batches(pipe):
    pipe.batch_rows = 1000
    package = pipe.extract_and_normalize(sl.resource(({"id": n, "v": [n]} for n in range(3500)), name="t"))
    assert len(list(package.table_dir("t").glob("*.parquet"))) == 4
    assert len(list(package.table_dir("t__v").glob("*.parquet"))) == 4
    info = pipe.load()
    assert info.row_counts == {"t": 3500, "t__v": 3500}
    assert pipe.spark.sql(f"select count(distinct id) c from {pipe.dataset_name}.t").first()["c"] == 3500


def test_an_unsealed_package_left_by_a_dead_process__is_discarded(pipe):
    writer = pipe.packages.writer("1.0", pipe.dataset_name, pipe.default_schema)
    writer.write("t", {"id": 1})
    pipe.run([{"id": 2}], table_name="t")
    assert staged(pipe, "t", "id") == [(2,)] and not writer.root.exists()


def test_source__shares_secrets_from_env_and_config_from_a_toml_file(pipe, tmp_path, monkeypatch):
    (tmp_path / "config.toml").write_text('[sources.shop]\nregion = "eu"\n')
    monkeypatch.setenv("SPARKLOAD_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("SOURCES__SHOP__API_KEY", "k-123")

    @sl.source
    def shop(region=sl.config.value, api_key=sl.secrets.value):
        @sl.resource
        def orders():
            yield {"id": 1, "region": region, "key": api_key}

        @sl.resource
        def users():
            yield {"id": 2}

        return orders, users

    info = pipe.run(shop().with_resources("orders"))
    assert info.row_counts == {"orders": 1}
    assert staged(pipe, "orders", "region", "key") == [("eu", "k-123")]


def test_missing_config__fails_naming_every_key_looked_up(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARKLOAD_CONFIG_DIR", str(tmp_path))

    @sl.source
    def shop(api_key=sl.secrets.value):
        return []

    with pytest.raises(sl.ConfigFieldMissing) as missing:
        shop()
    assert "SOURCES__SHOP__API_KEY" in str(missing.value) and "secrets.toml:sources.shop.api_key" in str(missing.value)
