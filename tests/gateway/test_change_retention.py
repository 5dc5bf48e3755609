"""The change feed's tombstones older than the retention are purged; newer ones, and live rows, stay."""

from __future__ import annotations

from sqlalchemy import text

from datasources.database import Database
from gateway.change_retention import purge_once
from tests.factories import Factory


async def rows(db: Database) -> list[tuple[str, bool]]:
    async with db.engine.connect() as connection:
        found = await connection.execute(text("SELECT number, removed FROM article_change ORDER BY number"))
        return [(number, bool(removed)) for number, removed in found]


async def test_old_tombstones_are_purged(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    for number in ("A-1", "A-2", "A-3"):
        await factory.article(number)
    for number in ("A-1", "A-2"):
        async with db.engine.begin() as connection:
            await connection.execute(text(f"DELETE FROM article WHERE number = '{number}'"))  # noqa: S608
    await purge_once(db, 3600)
    assert await rows(db) == [("A-1", True), ("A-2", True), ("A-3", False)]
    await purge_once(db, -3600)  # every tombstone is old now; the greatest position stays
    assert await rows(db) == [("A-2", True), ("A-3", False)]
