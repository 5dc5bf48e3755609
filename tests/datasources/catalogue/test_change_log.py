"""SQLite's change log (datasources/catalogue/change_log.py, migration 0014): the ERP's bulk update of prices
appends to the log and rewrites no article's row; positions, versions and the feed read the same before the
fold and after it, and a removed article stays where its removal put it."""

# Statements made of the test's own constants.
# ruff: noqa: S608

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, text

from datasources.catalogue import change_log, changes
from datasources.catalogue.change_log import position_of
from datasources.catalogue.versions import article_version
from datasources.catalogue.view import ViewRequest
from datasources.database import Database
from datasources.models import Article, ArticleChange
from datasources.reads import Query
from gateway.change_folding import fold_once
from tests.datasources.catalogue.test_changes import erp, feed, postgresql
from tests.factories import Factory

_POSITIONS = Query(
    select(Article.number, position_of())
    .outerjoin(ArticleChange, ArticleChange.article_id == Article.id)
    .order_by(Article.number)
)
PRICES_EACH = 12


async def positions(db: Database) -> dict[str, int | None]:
    return {number: position for number, position in await db.reads.rows(_POSITIONS)}


async def scalar(db: Database, statement: str) -> Any:
    async with db.engine.connect() as connection:
        return (await connection.execute(text(statement))).scalar()


async def rows_of_article_change(db: Database) -> list[tuple[int, int, bool]]:
    async with db.engine.connect() as connection:
        found = await connection.execute(text("SELECT article_id, position, removed FROM article_change ORDER BY 1"))
        return [(int(a), int(p), bool(r)) for a, p, r in found]


async def catalogue(factory: Factory) -> dict[str, Article]:
    await factory.reference_data()
    articles = {number: await factory.article(number) for number in ("A-1", "A-2", "A-3")}
    articles["H-1"] = await factory.article("H-1", exposed=False)
    for article in articles.values():
        for quantity in range(1, PRICES_EACH + 1):
            await factory.price(article, "10.00", min_quantity=str(quantity))
    return articles


async def versions(db: Database) -> dict[str, str | None]:
    asked = ViewRequest.of(None, None, None)
    return {number: await article_version(db.reads, number, asked) for number in ("A-1", "A-2", "A-3")}


@pytest.fixture
def sqlite_only(db: Database) -> None:
    if postgresql(db):
        pytest.skip("PostgreSQL's triggers run per statement and keep no log")


@pytest.mark.usefixtures("sqlite_only")
async def test_a_bulk_update_appends_to_the_log_and_rewrites_no_row(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    await fold_once(db)
    rows, before, tags = await rows_of_article_change(db), await positions(db), await versions(db)
    cursor = await changes.current_cursor(db.reads, postgresql=False)
    logged = await scalar(db, "SELECT count(*) FROM article_change_log")

    await erp(db, "UPDATE price SET amount = amount + 1 WHERE article_id IN (SELECT id FROM article WHERE number "
                  "IN ('A-1', 'H-1'))")  # fmt: skip

    assert await rows_of_article_change(db) == rows  # what made a bulk update 2.5x slower is not done
    assert await scalar(db, "SELECT count(*) FROM article_change_log") == logged + 2 * PRICES_EACH
    moved = await positions(db)
    assert (
        moved["A-1"] is not None
        and before["A-1"] is not None
        and moved["A-1"] > max(p for p in before.values() if p is not None)
    )
    assert {n: p for n, p in moved.items() if n != "A-1"} == {n: p for n, p in before.items() if n != "A-1"}
    assert moved["H-1"] is None  # never exposed: its log rows are read as nothing
    changed_tags = await versions(db)
    assert changed_tags["A-1"] != tags["A-1"] and changed_tags["A-2"] == tags["A-2"]
    assert (await feed(db, cursor))[:2] == ({"A-1"}, set())

    await fold_once(db)  # the same everywhere, the log down to its greatest row

    assert await positions(db) == moved
    assert await versions(db) == changed_tags
    assert (await feed(db, cursor))[:2] == ({"A-1"}, set())
    assert await scalar(db, "SELECT count(*) FROM article_change_log") == 1
    assert (await rows_of_article_change(db)) != rows  # A-1's row holds its position now


@pytest.mark.usefixtures("sqlite_only")
async def test_a_removed_article_stays_where_its_removal_put_it(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    await erp(db, "DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = (SELECT id FROM article "
                  "WHERE number = 'A-2')")  # fmt: skip
    cursor = await changes.current_cursor(db.reads, postgresql=False)
    removed_at = (await positions(db))["A-2"]
    await erp(db, "UPDATE price SET amount = 3 WHERE article_id = (SELECT id FROM article WHERE number = 'A-2')")
    assert (await positions(db))["A-2"] == removed_at
    assert (await feed(db, cursor))[:2] == (set(), set())
    await fold_once(db)
    assert (await positions(db))["A-2"] == removed_at
    # Exposed again: a position after every logged one.
    await erp(db, "INSERT INTO article_attribute (article_id, key, contents) SELECT id, 'RESTWEBSHOP', '1' "
                  "FROM article WHERE number = 'A-2'")  # fmt: skip
    assert (await feed(db, cursor))[:2] == ({"A-2"}, set())
    assert (await positions(db))["A-2"] == await scalar(db, "SELECT max(seq) FROM article_change_log")


@pytest.mark.usefixtures("sqlite_only")
async def test_a_long_log_is_folded_in_batches_and_the_next_position_follows_the_greatest(
    db: Database, factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    await catalogue(factory)
    await erp(db, *(f"UPDATE price SET amount = amount + 1 WHERE min_quantity = {q}" for q in range(1, 6)))
    before = await positions(db)
    greatest = await scalar(db, "SELECT max(seq) FROM article_change_log")
    monkeypatch.setattr(change_log, "BATCH", 7)
    async with db.engine.begin() as connection:
        assert await change_log.fold_batch(connection)  # rows are left
    async with db.engine.begin() as connection:
        await change_log.fold_all(connection)
    assert await positions(db) == before
    assert await scalar(db, "SELECT seq FROM article_change_log") == greatest  # the one row left
    await erp(db, "UPDATE article SET colour = 'rot' WHERE number = 'A-3'")
    assert (await positions(db))["A-3"] == greatest + 1


async def test_postgresql_keeps_no_log(db: Database, factory: Factory) -> None:
    if not postgresql(db):
        pytest.skip("SQLite's log is tested above")
    await catalogue(factory)
    before = await positions(db)
    await erp(db, "UPDATE price SET amount = amount + 1 WHERE article_id = (SELECT id FROM article WHERE "
                  "number = 'A-1')")  # fmt: skip
    assert await scalar(db, "SELECT count(*) FROM article_change_log") == 0
    after = await positions(db)
    assert after["A-1"] != before["A-1"] and after["A-2"] == before["A-2"]
