"""The SQL database source end to end, on SQLite and on a real PostgreSQL server started on loopback:
reflected types land typed, and an incremental run after source updates lands only new/changed rows."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
import sqlalchemy as sa

from python_extract.sources.registry import get_plugin, resolve_config

from ..support.postgres import PostgresServer, pg_bin
from ..support.staging import staged

T0 = dt.datetime(2026, 3, 1, 12, 0, 0)


@pytest.fixture(scope="module")
def postgres():
    if pg_bin() is None:
        pytest.skip("PostgreSQL server binaries are not installed (scripts/setup.sh installs Debian's postgresql)")
    with PostgresServer() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shop.db'}"
    url = request.getfixturevalue("postgres").url
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("drop table if exists orders; drop table if exists regions"))
    return url


def _create(url):
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    orders = sa.Table(
        "orders", meta,
        sa.Column("id", sa.Integer, primary_key=True), sa.Column("amount", sa.Numeric(10, 2)),
        sa.Column("paid", sa.Boolean), sa.Column("day", sa.Date), sa.Column("updated_at", sa.DateTime),
    )
    regions = sa.Table("regions", meta, sa.Column("code", sa.String(8), primary_key=True), sa.Column("name", sa.String(50)))
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(orders.insert(), [
            {"id": i, "amount": Decimal(f"{i}.50"), "paid": i % 2 == 0, "day": T0.date(),
             "updated_at": T0 + dt.timedelta(minutes=i)} for i in range(1, 5)])
        conn.execute(regions.insert(), [{"code": "eu", "name": "Europe"}])
    return engine, orders


def _run(pipe, url, monkeypatch):
    monkeypatch.setenv("SHOP_DB_URL", url)
    plugin = get_plugin("sql_database")
    config = resolve_config(plugin, {
        "credentials": "${SHOP_DB_URL}", "chunk_size": 2,
        "table_options": {"orders": {"incremental": {"cursor_path": "updated_at", "initial_value": "2026-01-01T00:00:00Z"}}},
    })
    return pipe.run(plugin.build(config, "shop_db"))


def test_sql__incremental_run_lands_only_new_and_changed_rows(pipe, database, monkeypatch):
    engine, orders = _create(database)
    first = _run(pipe, database, monkeypatch).load_id
    assert staged(pipe, "orders", "id", "amount", "paid") == [
        (1, Decimal("1.50"), False), (2, Decimal("2.50"), True), (3, Decimal("3.50"), False), (4, Decimal("4.50"), True)]
    assert staged(pipe, "regions", "code", "name") == [("eu", "Europe")]
    types = {f.name: f.dataType.simpleString() for f in pipe.spark.table(f"{pipe.dataset_name}.orders").schema.fields}
    assert (types["id"], types["amount"].startswith("decimal"), types["day"], types["updated_at"]) == (
        "bigint", True, "date", "timestamp")

    # source updates: order 2 changes, order 5 is new
    with engine.begin() as conn:
        conn.execute(orders.update().where(orders.c.id == 2).values(amount=Decimal("20.00"), updated_at=T0 + dt.timedelta(hours=1)))
        conn.execute(orders.insert(), [{"id": 5, "amount": Decimal("5.50"), "paid": False, "day": T0.date(),
                                        "updated_at": T0 + dt.timedelta(hours=2)}])
    second = _run(pipe, database, monkeypatch).load_id
    rows = pipe.spark.sql(f"select id, amount from `{pipe.dataset_name}`.orders where _dlt_load_id = '{second}' order by id").collect()
    assert [(r.id, r.amount) for r in rows] == [(2, Decimal("20.00")), (5, Decimal("5.50"))]
    assert first != second

    # nothing changed: the orders cursor reads nothing new (regions, without a cursor, is replaced)
    third = _run(pipe, database, monkeypatch)
    assert third.row_counts.get("orders", 0) == 0
