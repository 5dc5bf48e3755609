"""The migrations build exactly what the models describe, and carry stored data along."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from datasources import migrate
from datasources.catalogue.articles import ArticleFilter, ArticleQuery, find_articles
from datasources.database import Database, create_database
from datasources.migrations.tables import rebuilt_table
from datasources.models import Base
from tests import databases
from tests.factories import Factory

D = Decimal


# SQLite cannot reflect indexes on expressions, so alembic skips comparing them there, saying so; the address
# and article search's are made on PostgreSQL only anyway (datasources/models/customers.py, article_search.py),
# and compared there. SQLite's search table is FTS5's, which no model describes.
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index 'ix_address_")
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index 'ix_article_")
async def test_migrated_database_matches_the_models(db: Database) -> None:
    def differences(connection: Connection) -> list[object]:
        opts = {"compare_type": True, "include_name": migrate.include_name}
        context = MigrationContext.configure(connection, opts=opts)
        return list(compare_metadata(context, Base.metadata))

    async with db.engine.connect() as conn:
        assert await conn.run_sync(differences) == []


@pytest.fixture
async def blank(tmp_path: Path) -> AsyncIterator[Database]:
    """An empty database of the backend under test, to migrate step by step."""
    if not databases.SERVER_URL:
        database = create_database(f"sqlite+aiosqlite:///{tmp_path / 'blank.db'}")
        yield database
        await database.dispose()
        return
    server = make_url(databases.SERVER_URL)
    name = f"gateway_migration_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(server, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    database = create_database(server.set(database=name).render_as_string(hide_password=False))
    yield database
    await database.dispose()
    async with admin.connect() as conn:
        await conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await admin.dispose()


async def downgrade(database: Database, revision: str) -> None:
    def run(connection: Connection) -> None:
        config = migrate.alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, revision)

    async with database.engine.begin() as conn:
        await conn.run_sync(run)


MONEY = sa.Numeric(14, 4)
CURRENCY = sa.table(
    "currency", sa.column("code"), sa.column("name"), sa.column("is_leading"), sa.column("rounding_step", MONEY)
)
TAX_CODE = sa.table(
    "tax_code",
    sa.column("code"),
    sa.column("designation"),
    sa.column("rate", MONEY),
    *map(sa.column, ("tax_class", "is_standard")),
)
DOCUMENT = sa.table(
    "sales_document",
    *map(sa.column, ("id", "kind", "number", "status", "currency", "created_by", "captured_at")),
    *(sa.column(name, MONEY) for name in ("net_total", "tax_total", "gross_total")),
)
POSITION = sa.table(
    "document_position",
    *map(sa.column, ("document_id", "position_number", "article_number", "tax_code", "price_given")),
    *(sa.column(name, MONEY) for name in ("quantity", "unit_price", "price_basis", "total", "tax_rate", "tax_amount")),
)


def document(id: int, currency: str, net: str, tax: str, gross: str) -> dict[str, Any]:
    return {
        "id": id,
        "kind": "order",
        "number": str(500000 + id),
        "status": "N",
        "currency": currency,
        "created_by": "shop",
        "captured_at": dt.datetime(2026, 11, 21, 10),
        "net_total": D(net),
        "tax_total": D(tax),
        "gross_total": D(gross),
    }


def position(document_id: int, number: int, total: str, tax: str, code: str, rate: str) -> dict[str, Any]:
    return {
        "document_id": document_id,
        "position_number": number,
        "article_number": "A-100",
        "tax_code": code,
        "price_given": False,
        "quantity": D(1),
        "unit_price": D(total),
        "price_basis": D(1),
        "total": D(total),
        "tax_rate": D(rate),
        "tax_amount": D(tax),
    }


async def totals(database: Database) -> dict[int, tuple[Decimal, Decimal, Decimal]]:
    async with database.engine.connect() as conn:
        rows = await conn.execute(
            sa.select(DOCUMENT.c.id, DOCUMENT.c.net_total, DOCUMENT.c.tax_total, DOCUMENT.c.gross_total)
        )
        return {row.id: (row.net_total, row.tax_total, row.gross_total) for row in rows}


async def test_0004_recomputes_the_totals_of_stored_documents(blank: Database) -> None:
    await migrate.upgrade(blank.engine, "0003")
    async with blank.engine.begin() as conn:
        await conn.execute(
            CURRENCY.insert(),
            [
                {"code": "CHF", "name": "Swiss franc", "is_leading": True, "rounding_step": D("0.05")},
                {"code": "EUR", "name": "Euro", "is_leading": False, "rounding_step": D("0.01")},
            ],
        )
        await conn.execute(
            TAX_CODE.insert(),
            [
                {"code": "N81", "designation": "Normalsatz", "rate": D("8.1"), "tax_class": "C", "is_standard": True},
                {"code": "R26", "designation": "Reduziert", "rate": D("2.6"), "tax_class": "C", "is_standard": False},
            ],
        )
        # As 0003 stored them: net and tax each rounded to the step, gross their sum.
        await conn.execute(
            DOCUMENT.insert(),
            [
                # 12.50 + 1.07 = 13.57 -> 13.55; 0.33 + 0.09 = 0.42 -> 0.40; 13.95
                document(1, "CHF", "13.55", "0.40", "13.95"),
                # 110.00 + 44.00 = 154.00; 2.86 + 3.56 = 6.42 -> 6.40; 160.40
                document(2, "CHF", "154.00", "6.40", "160.40"),
                # 39.00 + 2.59 = 41.59; 1.01 + 0.21 = 1.22; 42.81 (cents: nothing to round)
                document(3, "EUR", "41.59", "1.22", "42.81"),
                document(4, "CHF", "0", "0", "0"),  # an offer whose positions were all deleted
            ],
        )
        await conn.execute(
            POSITION.insert(),
            [
                position(1, 1, "12.50", "0.33", "R26", "2.6"),
                position(1, 2, "1.07", "0.09", "N81", "8.1"),
                position(2, 1, "110.00", "2.86", "R26", "2.6"),
                position(2, 2, "44.00", "3.56", "N81", "8.1"),
                position(3, 1, "39.00", "1.01", "R26", "2.6"),
                position(3, 2, "2.59", "0.21", "N81", "8.1"),
            ],
        )
    before = await totals(blank)

    await migrate.upgrade(blank.engine, "head")
    assert await totals(blank) == {
        # net 13.57, tax 0.42, both to the cent; payable 13.99 -> 14.00 (rounding +0.01)
        1: (D("13.57"), D("0.42"), D("14.00")),
        # net 154.00, tax 6.42; payable 160.42 -> 160.40 (rounding -0.02)
        2: (D("154.00"), D("6.42"), D("160.40")),
        3: (D("41.59"), D("1.22"), D("42.81")),
        4: (D(0), D(0), D(0)),
    }

    await downgrade(blank, "0003")
    assert await totals(blank) == before
    async with blank.engine.connect() as conn:  # dropping the column kept every position
        assert await conn.scalar(sa.select(sa.func.count()).select_from(POSITION)) == 6


CUSTOMER = sa.table(
    "customer", *map(sa.column, ("number", "designation", "language", "currency", "created_at", "contact_address_id"))
)
ADDRESS = sa.table(
    "address",
    *map(
        sa.column,
        ("id", "customer_number", "language", "salutation", "last_name", "line1", "country", "place", "postal_code"),
    ),
    sa.column("modified_at"),
)


async def test_a_database_with_customers_upgrades_through_every_migration(blank: Database) -> None:
    # SQLite's batch migrations copy and drop tables: with foreign keys on, dropping `customer` used to
    # fail ("FOREIGN KEY constraint failed") or cascade into its addresses.
    await migrate.upgrade(blank.engine, "0002")
    async with blank.engine.begin() as conn:
        await conn.execute(
            CURRENCY.insert(), [{"code": "CHF", "name": "Franken", "is_leading": True, "rounding_step": D("0.05")}]
        )
        await conn.execute(
            CUSTOMER.insert(),
            [
                {
                    "number": "100001",
                    "designation": "Muster",
                    "language": "ger",
                    "currency": "CHF",
                    "created_at": dt.datetime(2026, 1, 1),
                }
            ],
        )
        await conn.execute(
            ADDRESS.insert(),
            [
                {
                    "id": 1,
                    "customer_number": "100001",
                    "language": "ger",
                    "salutation": 2,
                    "last_name": "Muster",
                    "line1": "Gasse 1",
                    "country": "CH",
                    "place": "Bern",
                    "postal_code": "3011",
                    "modified_at": dt.datetime(2026, 1, 1),
                }
            ],
        )
        await conn.execute(CUSTOMER.update().values(contact_address_id=1))

    await migrate.upgrade(blank.engine)

    async with blank.engine.connect() as conn:
        assert (await conn.execute(sa.select(CUSTOMER.c.number, CUSTOMER.c.contact_address_id))).all() == [
            ("100001", 1)
        ]
        assert (await conn.execute(sa.select(ADDRESS.c.id, ADDRESS.c.last_name))).all() == [(1, "Muster")]
        if blank.engine.dialect.name == "sqlite":
            assert (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1


async def test_0009_without_the_right_to_create_pg_trgm_leaves_the_index_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A role that may create tables but not extensions (no CREATE on the database) migrates all the same:
    the article search goes without its index, says so, and finds what it should."""
    if not databases.SERVER_URL:
        pytest.skip("pg_trgm is PostgreSQL's")
    server = make_url(databases.SERVER_URL)
    suffix = uuid.uuid4().hex[:12]
    name, role = f"gateway_migration_{suffix}", f"gateway_no_extensions_{suffix}"
    admin = create_async_engine(server, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(sa.text(f'CREATE ROLE "{role}" LOGIN'))
        await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    owner = create_async_engine(server.set(database=name), isolation_level="AUTOCOMMIT")
    async with owner.connect() as conn:
        await conn.execute(sa.text(f'GRANT ALL ON SCHEMA public TO "{role}"'))
    await owner.dispose()
    database = create_database(server.set(database=name, username=role).render_as_string(hide_password=False))
    try:
        with caplog.at_level("WARNING", logger="gateway.migrations"):
            await migrate.upgrade(database.engine)
        assert "article search without index" in caplog.text
        async with database.engine.connect() as conn:
            indexes = await conn.execute(sa.text("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%search%'"))
            assert indexes.scalars().all() == []
        await Factory(database).article("A-1", designations={"ger": "Ölfilter"})
        found = await find_articles(database.reads, ArticleQuery(filter=ArticleFilter(search="ÖLFILTER"), limit=5))
        assert [record.number for record in found.records] == ["A-1"]
    finally:
        await database.dispose()
        async with admin.connect() as conn:
            await conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            await conn.execute(sa.text(f'DROP ROLE IF EXISTS "{role}"'))
        await admin.dispose()


def _rebuild_article(connection: sa.Connection) -> None:
    # A column's type changed: SQLite's batch mode copies the table, drops the old one and renames the copy.
    with Operations.context(MigrationContext.configure(connection)), rebuilt_table("article") as batch:
        batch.alter_column("colour", type_=sa.String(20))
        batch.add_column(sa.Column("extra", sa.String(10)))


async def test_a_migration_that_rebuilds_article_keeps_the_triggers_that_name_it(blank: Database) -> None:
    # Without rebuilt_table, SQLite: "error in trigger article_sort_key_tax_code_insert: no such table:
    # main.article"; PostgreSQL: "cannot alter type of a column used in a trigger definition".
    await migrate.upgrade(blank.engine)
    if blank.engine.dialect.name == "sqlite":
        triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    else:
        triggers = "SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname"
    async with blank.engine.connect() as conn:
        before = (await conn.exec_driver_sql(triggers)).all()
    async with blank.engine.begin() as conn:
        await conn.run_sync(_rebuild_article)
    async with blank.engine.connect() as conn:
        assert await conn.scalar(sa.text("SELECT count(extra) FROM article")) == 0
        assert (await conn.exec_driver_sql(triggers)).all() == before
    # They still work: a new article gets its sort keys, its listing and exposure, its search row.
    factory = Factory(blank)
    await factory.reference_data()
    await factory.article("A-1", designations={"ger": "Hammer"}, group="WERKZEUG")
    query = ArticleQuery(filter=ArticleFilter(search="hammer"), limit=10)
    assert [record.number for record in (await find_articles(blank.reads, query)).records] == ["A-1"]


async def test_0013_downgrades_to_the_triggers_of_0011(blank: Database) -> None:
    # 0013 splits SQLite's update triggers; its downgrade gives back 0011's, word for word.
    triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    if blank.engine.dialect.name != "sqlite":
        triggers = "SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname"
    await migrate.upgrade(blank.engine, "0012")
    async with blank.engine.connect() as conn:
        before = (await conn.exec_driver_sql(triggers)).all()
    await migrate.upgrade(blank.engine)
    async with blank.engine.connect() as conn:
        after = (await conn.exec_driver_sql(triggers)).all()
    assert (after != before) == (blank.engine.dialect.name == "sqlite")
    await downgrade(blank, "0012")
    async with blank.engine.connect() as conn:
        assert (await conn.exec_driver_sql(triggers)).all() == before


async def test_0011_downgrades_to_0010_and_upgrades_again(blank: Database) -> None:
    await migrate.upgrade(blank.engine)
    await downgrade(blank, "0010")
    if blank.engine.dialect.name == "sqlite":
        left = "SELECT name FROM sqlite_master WHERE name LIKE 'article_change%'"
    else:
        left = (
            "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'article_change%' UNION ALL "
            "SELECT proname FROM pg_proc WHERE proname LIKE 'article_change%' UNION ALL "
            "SELECT relname FROM pg_class WHERE relname LIKE 'article_change%'"
        )
    async with blank.engine.connect() as conn:
        assert (await conn.exec_driver_sql(left)).all() == []
    await migrate.upgrade(blank.engine)
    factory = Factory(blank)
    await factory.reference_data()
    await factory.article("A-1")
    async with blank.engine.connect() as conn:
        rows = (await conn.exec_driver_sql("SELECT number, removed FROM article_change")).all()
    assert [tuple(row) for row in rows] == [("A-1", False)]
