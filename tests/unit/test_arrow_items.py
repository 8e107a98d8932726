"""Arrow items on their way into a load package (python_extract/normalize/arrow.py, packages.py):
struct columns flattened, a null struct giving null fields, and the Parquet parts as written."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from python_extract.normalize.arrow import normalize_arrow
from python_extract.normalize.schema import Schema
from python_extract.packages import PackageStorage


def _events(n: int = 3) -> pa.Table:
    rows = [{"Id": i, "repo": {"Name": f"r{i}", "owner": {"id": i * 10}}} for i in range(n)]
    rows.append({"Id": n, "repo": None})  # a null struct: its fields read null, not whatever lies beneath
    return pa.Table.from_pylist(rows)


def test_normalize_arrow__structs_flatten_to_parent__child_and_a_null_struct_gives_null_fields():
    out = normalize_arrow(_events(), Schema("s"), "events", "1.5")
    assert out.column_names == ["id", "repo__name", "repo__owner__id", "_dlt_load_id", "_dlt_id"]
    assert out.column("repo__name").to_pylist() == ["r0", "r1", "r2", None]
    assert out.column("repo__owner__id").to_pylist() == [0, 10, 20, None]
    assert set(out.column("_dlt_load_id").to_pylist()) == {"1.5"}
    assert len(set(out.column("_dlt_id").to_pylist())) == 4


def test_normalize_arrow__a_chunked_struct_column_flattens_chunk_by_chunk():
    table = pa.concat_tables([_events(2), _events(2)])
    assert table.column("repo").num_chunks == 2
    out = normalize_arrow(table, Schema("s"), "events", "1.5")
    assert out.column("repo__name").to_pylist() == ["r0", "r1", None, "r0", "r1", None]


def test_package_parts__hold_every_row_in_order_with_statistics_on_all_but_dlt_id(tmp_path):
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
