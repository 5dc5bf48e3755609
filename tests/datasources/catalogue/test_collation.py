"""Text sorts by code point on every database, as the README says: also on a PostgreSQL database created with
a collation that sorts otherwise (ICU's `de-CH` puts `Äpfel` right after `apfel`)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from datasources import migrate
from datasources.catalogue.articles import ArticleQuery, find_articles
from datasources.catalogue.ordering import Sort, SortField
from datasources.database import Database, create_database
from tests import databases
from tests.factories import Factory

WORDS = ("Zange", "apfel", "Birne", "Äpfel")
CODE_POINT_ORDER = ["Birne", "Zange", "apfel", "Äpfel"]  # as SQLite and Python compare them


@pytest.fixture
async def swiss(db: Database) -> AsyncIterator[Database]:
    """On PostgreSQL, a migrated database of its own created with ICU's de-CH collation; on SQLite, the test's."""
    if not databases.SERVER_URL:
        yield db
        return
    server = make_url(databases.SERVER_URL)
    name = f"gateway_de_ch_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(server, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(
            sa.text(
                f"CREATE DATABASE \"{name}\" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'de-CH' LOCALE 'C.UTF-8'"
            )
        )
    database = create_database(server.set(database=name).render_as_string(hide_password=False))
    try:
        await migrate.upgrade(database.engine)
        async with database.engine.connect() as conn:  # the database does sort otherwise
            words = sa.values(sa.column("w", sa.String), name="words").data([(word,) for word in WORDS])
            assert list(await conn.scalars(sa.select(words.c.w).order_by(words.c.w))) != CODE_POINT_ORDER
        yield database
    finally:
        await database.dispose()
        async with admin.connect() as conn:
            await conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@pytest.mark.parametrize("field", [SortField.DESIGNATION, SortField.GROUP, SortField.COLOUR, SortField.NUMBER])
async def test_text_sorts_by_code_point(swiss: Database, field: SortField) -> None:
    factory = Factory(swiss)
    for word in WORDS:
        await factory.article(word, designations={"ger": word}, group=word, colour=word)
    for descending in (False, True):
        query = ArticleQuery(sort=(Sort(field, descending),), limit=10)
        found = [record.number for record in (await find_articles(swiss.reads, query)).records]
        assert found == (CODE_POINT_ORDER[::-1] if descending else CODE_POINT_ORDER)
