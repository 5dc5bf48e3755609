"""The change positions follow every write the ERP makes with plain SQL on its own connection, and the feed
lists exactly the changes and removals after a cursor: none skipped, none repeated, with writers busy."""

# Statements made of the test's own constants.
# ruff: noqa: S608

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import text

from datasources.catalogue import aggregate_cache, changes
from datasources.catalogue.changes import Cursor, Gone
from datasources.database import Database
from datasources.errors import InvalidInput
from datasources.models import Article, ArticleAttribute
from tests.factories import MODIFIED, Factory
from tests.plans import work

RETENTION = changes.DEFAULT_RETENTION


def postgresql(db: Database) -> bool:
    return db.engine.dialect.name == "postgresql"


async def erp(db: Database, *statements: str) -> None:
    """Plain SQL in one transaction on a connection of its own, as the ERP writes."""
    async with db.engine.begin() as connection:
        for statement in statements:
            await connection.execute(text(statement))


async def feed(db: Database, cursor: Cursor, limit: int = 100) -> tuple[set[str], set[str], Cursor]:
    """(changed, removed, next cursor), following the feed to its end."""
    changed: set[str] = set()
    removed: set[str] = set()
    while True:
        found = await changes.read_changes(db.reads, cursor, limit, postgresql=postgresql(db), retention=RETENTION)
        for change in found.changed:
            (removed if change.removed else changed).add(change.number)
        cursor = found.cursor
        if not found.more:
            return changed, removed, cursor


async def catalogue(factory: Factory) -> None:
    await factory.reference_data()
    for number in ("A-1", "A-2", "A-3"):
        await factory.article(number, tax_code="R26")
    await factory.article("H-1", exposed=False)
    await factory.warehouse("Haupt", 1)


async def test_every_table_of_an_answer_moves_its_article(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    assert (await feed(db, cursor))[:2] == (set(), set())
    writes = {
        "article": "UPDATE article SET colour = 'rot' WHERE number = 'A-1'",
        "designation": "UPDATE article_designation SET text = 'Neu' WHERE article_id = (SELECT id FROM article "
        "WHERE number = 'A-1')",
        "attribute": "INSERT INTO article_attribute (article_id, key, contents) SELECT id, 'WEBSHOPVPE', '' "
        "FROM article WHERE number = 'A-1'",
        "price": "INSERT INTO price (article_id, price_list_id, currency, min_quantity, amount, modified_at) "
        "SELECT id, 1, 'CHF', 1, 9.5, CURRENT_TIMESTAMP FROM article WHERE number = 'A-1'",
        "stock": "INSERT INTO stock (article_id, warehouse_id, on_hand) SELECT a.id, w.id, 5 FROM article a, "
        "warehouse w WHERE a.number = 'A-1'",
        "reservation": "INSERT INTO reservation (article_id, warehouse_id, quantity) SELECT a.id, w.id, 1 "
        "FROM article a, warehouse w WHERE a.number = 'A-1'",
        "declaration": "INSERT INTO declaration (article_id, language, country) SELECT id, 'ger', 'CH' FROM "
        "article WHERE number = 'A-1'",
        "media": "INSERT INTO media (article_id, file_name, modified_at) SELECT id, 'a.jpg', CURRENT_TIMESTAMP "
        "FROM article WHERE number = 'A-1'",
        "packaging": "INSERT INTO packaging_unit (article_id, code, factor) SELECT id, 'Pak', 10 FROM article "
        "WHERE number = 'A-1'",
    }
    for name, statement in writes.items():
        await erp(db, statement)
        changed, removed, cursor = await feed(db, cursor)
        assert (name, changed, removed) == (name, {"A-1"}, set())
    # Nothing else moved meanwhile: a feed read through stays empty.
    assert (await feed(db, cursor))[:2] == (set(), set())


async def test_an_update_moves_its_article_and_a_row_given_to_another_article_moves_both(
    db: Database, factory: Factory
) -> None:
    # SQLite has a trigger for each case (0013): a row that keeps its article, and one moved to another.
    await catalogue(factory)
    a1, a2 = "(SELECT id FROM article WHERE number = 'A-1')", "(SELECT id FROM article WHERE number = 'A-2')"
    await erp(
        db,
        f"INSERT INTO article_attribute (article_id, key, contents) SELECT {a1}, 'WEBSHOPVPE', ''",
        "INSERT INTO price (article_id, price_list_id, currency, min_quantity, amount, modified_at) "
        f"SELECT {a1}, 1, 'CHF', 7, 9.5, CURRENT_TIMESTAMP",
        f"INSERT INTO stock (article_id, warehouse_id, on_hand) SELECT {a1}, w.id, 5 FROM warehouse w",
        f"INSERT INTO reservation (article_id, warehouse_id, quantity) SELECT {a1}, w.id, 1 FROM warehouse w",
        f"INSERT INTO declaration (article_id, language, country) SELECT {a1}, 'ger', 'CH'",
        f"INSERT INTO media (article_id, file_name, modified_at) SELECT {a1}, 'a.jpg', CURRENT_TIMESTAMP",
        f"INSERT INTO packaging_unit (article_id, code, factor) SELECT {a1}, 'Pak', 10",
    )
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    tables = ("article_attribute", "price", "stock", "reservation", "declaration", "media", "packaging_unit")
    for table in tables:
        await erp(db, f"UPDATE {table} SET article_id = article_id WHERE article_id = {a1}")
        changed, removed, cursor = await feed(db, cursor)
        assert (table, changed, removed) == (table, {"A-1"}, set())
    for table in tables:
        await erp(
            db,
            f"UPDATE {table} SET article_id = {a2} WHERE article_id = {a1} AND key = 'WEBSHOPVPE'"
            if table == "article_attribute"
            else f"UPDATE {table} SET article_id = {a2} WHERE article_id = {a1}",
        )
        changed, removed, cursor = await feed(db, cursor)
        assert (table, changed, removed) == (table, {"A-1", "A-2"}, set())


async def test_shared_tables_move_every_article_they_affect(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    await factory.article("B-1", tax_code="B38")
    await erp(
        db,
        "INSERT INTO price (article_id, price_list_id, currency, min_quantity, amount, modified_at) "
        "SELECT id, 2, 'CHF', 1, 9.5, CURRENT_TIMESTAMP FROM article WHERE number IN ('A-2', 'B-1')",
        "INSERT INTO stock (article_id, warehouse_id, on_hand) SELECT a.id, w.id, 5 FROM article a, "
        "warehouse w WHERE a.number = 'A-3'",
    )
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    await erp(db, "UPDATE tax_code SET rate = 2.7 WHERE code = 'R26'")
    changed, removed, cursor = await feed(db, cursor)
    assert (changed, removed) == ({"A-1", "A-2", "A-3"}, set())
    await erp(db, "UPDATE price_list SET price_kind = 'B' WHERE list_type = 'WV'")
    changed, _, cursor = await feed(db, cursor)
    assert changed == {"A-2", "B-1"}
    await erp(db, "UPDATE warehouse SET released = false")
    changed, _, cursor = await feed(db, cursor)
    assert changed == {"A-3"}


async def test_removal_and_hiding_leave_tombstones_and_hidden_articles_none(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    await erp(db, "UPDATE article SET colour = 'blau' WHERE number = 'H-1'")  # never exposed: not the shop's
    await erp(db, "DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = "
                  "(SELECT id FROM article WHERE number = 'A-1')")  # fmt: skip
    await erp(db, "DELETE FROM article WHERE number = 'A-2'")
    changed, removed, cursor = await feed(db, cursor)
    assert (changed, removed) == (set(), {"A-1", "A-2"})
    # A hidden article that is exposed again comes back; its change while hidden was not the shop's.
    await erp(db, "UPDATE article SET colour = 'gelb' WHERE number = 'A-1'")
    assert (await feed(db, cursor))[:2] == (set(), set())
    await erp(db, "INSERT INTO article_attribute (article_id, key, contents) SELECT id, 'RESTWEBSHOP', '1' "
                  "FROM article WHERE number IN ('A-1', 'H-1')")  # fmt: skip
    assert (await feed(db, cursor))[:2] == ({"A-1", "H-1"}, set())


async def test_pages_of_the_feed_neither_skip_nor_repeat(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    await erp(db, "UPDATE article SET colour = 'rot'")  # one statement: one position for all three
    await erp(db, "UPDATE article SET status = 2 WHERE number = 'A-3'")
    seen: list[str] = []
    while True:
        found = await changes.read_changes(db.reads, cursor, 1, postgresql=postgresql(db), retention=RETENTION)
        seen += [change.number for change in found.changed]
        cursor = found.cursor
        if not found.more:
            break
    assert sorted(seen) == ["A-1", "A-2", "A-3"]  # A-3 once: only its latest change


async def test_a_change_committed_after_the_cursor_was_taken_comes_next(db: Database, factory: Factory) -> None:
    """A writer that took its position before the reader's window and commits after it is in the next
    window (PostgreSQL: positions are not in commit order)."""
    await catalogue(factory)
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    if not postgresql(db):
        pytest.skip("SQLite has one writer at a time: a position is never taken before another one commits")
    async with db.engine.connect() as slow:
        transaction = await slow.begin()
        await slow.execute(text("UPDATE article SET colour = 'langsam' WHERE number = 'A-1'"))  # takes a position
        await erp(db, "UPDATE article SET colour = 'schnell' WHERE number = 'A-2'")  # a later one, committed
        changed, _, cursor = await feed(db, cursor)
        assert changed == {"A-2"}
        await transaction.commit()
    changed, _, cursor = await feed(db, cursor)
    assert changed == {"A-1"}


async def test_concurrent_writers_each_change_seen_once(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    numbers = [f"C-{n}" for n in range(20)]
    for number in numbers:
        await factory.article(number)
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    seen: list[str] = []
    done = asyncio.Event()

    async def writer(part: list[str]) -> None:
        for number in part:
            await erp(db, f"UPDATE article SET status = 3 WHERE number = '{number}'")

    async def reader() -> None:
        nonlocal cursor
        while True:
            finished = done.is_set()  # before the read: a read begun earlier may miss the last commits
            found = await changes.read_changes(db.reads, cursor, 3, postgresql=postgresql(db), retention=RETENTION)
            seen.extend(change.number for change in found.changed)
            cursor = found.cursor
            if finished and not found.more and not found.changed:
                return
            await asyncio.sleep(0)

    reading = asyncio.create_task(reader())
    await asyncio.gather(writer(numbers[::2]), writer(numbers[1::2]))
    done.set()
    await reading
    assert sorted(seen) == sorted(numbers)


async def test_a_cursor_older_than_the_retention_is_gone(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    cursor = await changes.current_cursor(db.reads, postgresql(db))
    old = Cursor(cursor.position, cursor.article_id, cursor.since, cursor.until, int(time.time()) - 100)
    with pytest.raises(Gone):
        await changes.read_changes(db.reads, old, 10, postgresql=postgresql(db), retention=50)
    assert Cursor.decode(cursor.encode()) == cursor
    with pytest.raises(InvalidInput):
        Cursor.decode("bm90IGEgY3Vyc29y")


async def test_the_purge_keeps_recent_tombstones_and_the_greatest_position(db: Database, factory: Factory) -> None:
    await catalogue(factory)
    await erp(db, "DELETE FROM article WHERE number = 'A-1'")
    await erp(db, "DELETE FROM article WHERE number = 'A-2'")
    async with db.writer() as session, session.begin():
        await session.execute(changes.purge_statement(3600))  # type: ignore[call-overload]
    async with db.engine.connect() as connection:
        assert (await connection.execute(text("SELECT count(*) FROM article_change WHERE removed"))).scalar() == 2
    async with db.writer() as session, session.begin():
        await session.execute(changes.purge_statement(-3600))  # type: ignore[call-overload]
    async with db.engine.connect() as connection:
        rows = (await connection.execute(text("SELECT number FROM article_change WHERE removed"))).all()
    assert rows == [("A-2",)]  # the greatest position stays: SQLite takes the next one from it


async def _feed_work(db: Database, cursor: Cursor) -> int:
    """What reading the feed after `cursor` costs the database (tests/plans.py: SQLite's steps, PostgreSQL's rows
    scanned)."""
    query = changes._POSTGRESQL_FEED if postgresql(db) else changes._SQLITE_FEED
    compiled = query.compiled(db.engine.dialect)
    values: dict[str, object] = {"position": cursor.position, "article": cursor.article_id, "limit": 101}
    if postgresql(db):
        values.update(since=cursor.since, until=(await changes.current_cursor(db.reads, True)).since)
    return await work(db, compiled.sql, compiled.arguments(values))


async def test_reading_the_changes_after_a_cursor_costs_the_same_whatever_the_catalogues_size(
    db: Database, factory: Factory
) -> None:
    """A shop polling the feed, and the facets' digest catching up (digest.py), pay for the changes, not for the
    catalogue. SQLite's plan once shared the change log's tail between the feed's two branches and scanned every
    article's position into a Bloom filter to join it: 14 ms a read at 200,000 articles, 0.2 without."""
    await factory.reference_data()
    costs = []
    for size in (50, 2000):
        async with db.writer() as session, session.begin():
            added = [Article(number=f"S-{size}-{i:04d}", modified_at=MODIFIED) for i in range(size)]
            session.add_all(added)
            await session.flush()
            session.add_all(ArticleAttribute(article_id=a.id, key="RESTWEBSHOP", contents="1") for a in added)
        await erp(db, "ANALYZE")  # the statistics a catalogue has (migration 0015 made them): the plan follows them
        cursor = await changes.current_cursor(db.reads, postgresql(db))
        await erp(db, f"UPDATE article SET \"group\" = 'X' WHERE number = 'S-{size}-0001'")  # SQLite: in the log
        costs.append(await _feed_work(db, cursor))
    small, large = costs
    assert large < small * 2 + 50, costs


def test_the_statements_that_read_the_changes_after_a_snapshot_are_planned_for_it() -> None:
    """PostgreSQL keeps one generic plan for the statements planned once (datasources/reads/postgresql.py); for
    the changes after a snapshot it walked every article's position (5 ms a read at 20,000 articles, 43 ms a
    facets check at 200,000), where a plan for the snapshot reads the few transactions after it."""
    assert not changes._POSTGRESQL_FEED.planned_once()
    assert not aggregate_cache._POSTGRESQL_PROBE.planned_once()
