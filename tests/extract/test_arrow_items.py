"""Arrow items on their way into a load package (python_extract/normalize/arrow.py, packages.py):
struct columns kept whole as JSON text (as dlt does), a null struct NULL, and the Parquet parts as written."""
from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pytest
import pyarrow.parquet as pq

from python_extract.normalize.arrow import _plain, normalize_arrow
from python_extract.normalize.coerce import json_text
from python_extract.normalize.exceptions import ArrowColumnDoesNotFit
from python_extract.normalize.schema import Schema
from python_extract.packages import PackageStorage

pytestmark = pytest.mark.fast


def _events(n: int = 3) -> pa.Table:
    rows = [{"Id": i, "repo": {"Name": f"r{i}", "owner": {"id": i * 10}}} for i in range(n)]
    rows.append({"Id": n, "repo": None})  # a null struct: NULL, not a text "null" nor an object of nulls
    return pa.Table.from_pylist(rows)


def test_normalize_arrow__a_struct_stays_one_json_column_as_in_dlt_and_a_null_struct_is_null():
    schema = Schema("s")
    out = normalize_arrow(_events(), schema, "events", "1.5")
    assert out.column_names == ["id", "repo", "_dlt_load_id", "_dlt_id"]
    assert out.column("repo").to_pylist() == [
        '{"Name":"r0","owner":{"id":0}}', '{"Name":"r1","owner":{"id":10}}', '{"Name":"r2","owner":{"id":20}}', None]
    assert schema.table("events").columns["repo"]["data_type"] == "json"
    assert set(out.column("_dlt_load_id").to_pylist()) == {"1.5"}
    assert len(set(out.column("_dlt_id").to_pylist())) == 4


def test_normalize_arrow__a_chunked_struct_column_is_encoded_whole():
    table = pa.concat_tables([_events(2), _events(2)])
    assert table.column("repo").num_chunks == 2
    out = normalize_arrow(table, Schema("s"), "events", "1.5")
    assert [None if v is None else json.loads(v)["Name"] for v in out.column("repo").to_pylist()] == [
        "r0", "r1", None, "r0", "r1", None]


STRUCTS = [
    {"s": 'q"\\\n\x01\u00e9\u2028', "i": 2**62, "f": 1.5, "g": float("nan"), "h": 1e20, "k": 0.1, "z": 3.0,
     "b": True, "n": None, "inner": {"x": -0.0, "y": None}},
    None,
    {"s": None, "i": None, "f": None, "g": float("inf"), "h": None, "k": 1 / 3, "z": None, "b": False, "n": None,
     "inner": None},
]


def test_normalize_arrow__the_whole_column_encoder_writes_the_same_text_as_the_row_by_row_one():
    """Plain structs go through polars' encoder, others (here: a timestamp inside) row by row with
    json_text; both give json_text's text, NULL for a NULL struct."""
    plain = pa.table({"v": pa.array(STRUCTS)})
    assert _plain(plain.schema.field("v").type)  # the encoder's case; the timestamp below is not
    encoded = normalize_arrow(plain, Schema("s"), "t", "1.5").column("v").to_pylist()
    assert encoded == [None if v is None else json_text(v) for v in STRUCTS]
    assert json.loads(encoded[0])["g"] is None and json.loads(encoded[0])["z"] == 3.0  # NaN as null, 3.0 a float
    stamped = [{"at": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), "s": "x"}, None]
    assert not _plain(pa.array(stamped).type)
    encoded = normalize_arrow(pa.table({"v": pa.array(stamped)}), Schema("s"), "t", "1.5").column("v").to_pylist()
    assert encoded == [json_text(stamped[0]), None]


def test_normalize_arrow__a_map_is_a_json_object_also_inside_a_struct():
    maps = pa.array([[("k", 1), ("j", None)], None, []], pa.map_(pa.string(), pa.int64()))
    nested = pa.array([{"m": [("x", 2)]}, None], pa.struct([("m", pa.map_(pa.string(), pa.int64()))]))
    out = normalize_arrow(pa.table({"m": maps}), Schema("s"), "t", "1.5")
    assert out.column("m").to_pylist() == ['{"k":1,"j":null}', None, "{}"]
    out = normalize_arrow(pa.table({"n": nested}), Schema("s"), "t", "1.5")
    assert out.column("n").to_pylist() == ['{"m":{"x":2}}', None]


def test_normalize_arrow__a_time_is_iso_text_as_a_time_item_gives():
    times = pa.array([dt.time(3, 4, 5), dt.time(3, 4, 5, 120000), None], pa.time64("us"))
    out = normalize_arrow(pa.table({"t": times}), Schema("s"), "t", "1.5")
    assert out.column("t").to_pylist() == ["03:04:05", "03:04:05.120000", None]


def test_normalize_arrow__values_that_do_not_fit_fail_naming_table_and_column_and_leave_the_schema_unchanged():
    schema = Schema("s")
    too_big = pa.table({"id": [1, 2], "n": pa.array([2**63 + 5, 1], pa.uint64())})
    with pytest.raises(ArrowColumnDoesNotFit) as failed:
        normalize_arrow(too_big, schema, "events", "1.5")
    message = str(failed.value)
    assert message.startswith("table events column n: the Arrow uint64 values do not fit the column's type bigint (")
    assert "\n" not in message and "columns={'n': {'data_type': ...}}" in message
    assert "n" not in schema.table("events").columns


def test_package_parts__hold_every_row_in_order_with_statistics_on_the_load_id_and_fixed_width_columns(tmp_path):
    schema = Schema("s")
    writer = PackageStorage(tmp_path).writer("1.5", "ds", schema, batch_rows=4)
    batches = [normalize_arrow(_events(3), schema, "events", "1.5") for _ in range(5)]  # 5 parts, 2 written at once
    for batch in batches:
        writer.write_arrow("events", batch)
    package = writer.seal(None)
    parts = sorted((package.root / "tables" / "events").glob("part-*.parquet"))
    assert len(parts) == 5
    assert pa.concat_tables(pq.read_table(p) for p in parts).to_pylist() == pa.concat_tables(batches).to_pylist()
    meta = pq.ParquetFile(parts[0]).metadata.row_group(0)
    stats = {meta.column(i).path_in_schema: meta.column(i).statistics for i in range(meta.num_columns)}
    assert stats["_dlt_id"] is None
    assert stats["_dlt_load_id"].min == stats["_dlt_load_id"].max == "1.5"
    assert (stats["id"].min, stats["id"].max) == (0, 3)
    assert stats["repo"] is None  # text (here a struct's JSON): its min/max is costly and read by nothing


def test_package_parts__nested_columns_left_by_the_normalizer_are_encoded_on_the_writer_threads(tmp_path):
    """The extractor normalizes with encode=False: struct columns reach the package writer whole and its
    threads write them as the same JSON text normalize_arrow would (batches with different struct fields
    in one part too)."""
    schema = Schema("s")
    writer = PackageStorage(tmp_path).writer("1.5", "ds", schema, batch_rows=10)
    wide = pa.Table.from_pylist([{"Id": 9, "repo": {"Name": "w", "extra": True}}])
    batches = [normalize_arrow(t, schema, "events", "1.5", encode=False) for t in (_events(3), wide)]
    assert pa.types.is_struct(batches[0].schema.field("repo").type)
    assert schema.table("events").columns["repo"]["data_type"] == "json"
    for batch in batches:
        writer.write_arrow("events", batch)
    package = writer.seal(None)
    part, = sorted((package.root / "tables" / "events").glob("part-*.parquet"))
    assert pq.read_table(part).column("repo").to_pylist() == [
        '{"Name":"r0","owner":{"id":0}}', '{"Name":"r1","owner":{"id":10}}', '{"Name":"r2","owner":{"id":20}}', None,
        '{"Name":"w","extra":true}']
