"""Queries compiled once and run by the driver: the same rows as through a session, on both databases;
what one turn of the event loop asks for runs in one batch; statements counted per request."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import bindparam, func, literal_column, select, table

from datasources.database import Database
from datasources.errors import InvalidInput
from datasources.models import Article, ArticleAttribute, Price
from datasources.reads import Query, SessionReads, SqliteReads, values_in
from datasources.reads.batch import Batches
from datasources.reads.query import SMALL
from datasources.statistics import QueryStats, current_stats
from tests import databases
from tests.factories import Factory

ARTICLES = Query(
    select(Article.id, Article.number, Article.stock_managed, Article.weight, Article.modified_at)
    .where(values_in(Article.id, "ids"))
    .order_by(Article.id)
)
PRICES = Query(
    select(Price.article_id, Price.amount, Price.min_quantity, Price.modified_at)
    .where(values_in(Price.article_id, "ids"), Price.currency == bindparam("currency"))
    .order_by(Price.article_id, Price.min_quantity)
)
BY_NUMBER = Query(select(Article.id).where(values_in(Article.number, "numbers")))
ATTRIBUTE = Query(select(ArticleAttribute.contents).where(ArticleAttribute.key == "RESTWEBSHOP"))
MISSING_TABLE = Query(select(literal_column("x")).select_from(table("no_such_table")))


@pytest.fixture
async def articles(factory: Factory) -> list[int]:
    await factory.reference_data()
    first = await factory.article("R-1", weight=Decimal("1.2500"))
    second = await factory.article("R-2", stock_managed=False)
    await factory.price(first, "12.3456")
    await factory.price(first, "10.5", min_quantity="10")
    return [first.id, second.id]


async def test_the_rows_are_those_a_session_gives(db: Database, articles: list[int]) -> None:
    async with db.reader() as session:
        through_session = SessionReads(session)
        cases: list[tuple[Query, dict[str, Any]]] = [
            (ARTICLES, {"ids": articles}),
            (PRICES, {"ids": articles, "currency": "CHF"}),
            (BY_NUMBER, {"numbers": ["R-2", "R-1", "NOPE"]}),
            (ATTRIBUTE, {}),
        ]
        for query, params in cases:
            expected = [tuple(row) for row in await through_session.rows(query, **params)]
            assert [tuple(row) for row in await db.reads.rows(query, **params)] == expected
            assert expected  # each query finds something

    (first, _) = await db.reads.rows(ARTICLES, ids=articles)
    assert first[2] is True and first[3] == Decimal("1.2500")
    assert first[4].tzinfo is dt.UTC
    prices = await db.reads.rows(PRICES, ids=articles, currency="CHF")
    assert [row[1] for row in prices] == [Decimal("12.3456"), Decimal("10.5000")]


async def test_what_one_turn_asks_for_runs_in_one_batch(
    db: Database, articles: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[int] = []
    flush = Batches._flush

    def counted(self: Batches) -> None:
        batches.append(len(self._pending))
        flush(self)

    monkeypatch.setattr(Batches, "_flush", counted)
    one = db.reads.rows(ARTICLES, ids=articles)
    two = db.reads.rows(PRICES, ids=articles, currency="CHF")
    three = db.reads.rows(ATTRIBUTE)
    assert [len(await one), len(await two), len(await three)] == [2, 2, 2]
    await db.reads.rows(ATTRIBUTE)  # a later turn: a batch of its own
    assert batches == [3, 1]


async def test_statements_are_counted_for_the_request_that_asked(db: Database, articles: list[int]) -> None:
    stats = QueryStats()

    async def request() -> None:
        current_stats.set(stats)
        await asyncio.gather(db.reads.rows(ARTICLES, ids=articles), db.reads.rows(ATTRIBUTE))

    other = QueryStats()
    token = current_stats.set(other)
    try:
        await asyncio.gather(asyncio.create_task(request()), db.reads.rows(ATTRIBUTE))
    finally:
        current_stats.reset(token)
    assert (stats.statements, other.statements) == (2, 1)
    assert stats.seconds > 0


async def test_a_failing_query_fails_alone(db: Database, articles: list[int]) -> None:
    broken = db.reads.rows(MISSING_TABLE)
    fine = db.reads.rows(ARTICLES, ids=articles)
    with pytest.raises(Exception, match="no_such_table"):
        await broken
    assert len(await fine) == 2
    assert len(await db.reads.rows(ATTRIBUTE)) == 2  # and the next batch reads as before


async def test_an_abandoned_query_leaves_the_batch_alone(db: Database, articles: list[int]) -> None:
    abandoned: asyncio.Future[Any] = asyncio.ensure_future(db.reads.rows(ATTRIBUTE))
    kept = db.reads.rows(ARTICLES, ids=articles)
    abandoned.cancel()
    assert len(await kept) == 2


async def test_text_with_nul_is_refused_before_it_reaches_the_database(db: Database) -> None:
    with pytest.raises(InvalidInput, match="NUL"):
        db.reads.rows(BY_NUMBER, numbers=["R\x00-1"])


@pytest.mark.skipif(databases.backend() != "sqlite", reason="SQLite's reading threads")
async def test_small_reads_run_at_once_and_scans_in_a_thread(
    db: Database, articles: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(db.reads, SqliteReads)
    handed_off: list[int] = []
    execute = SqliteReads._execute

    def counted(self: SqliteReads, statements: list[tuple[str, tuple[Any, ...]]]) -> Any:
        handed_off.append(len(statements))
        return execute(self, statements)

    monkeypatch.setattr(SqliteReads, "_execute", counted)
    small = [db.reads.rows(ARTICLES, ids=articles), db.reads.rows(PRICES, ids=articles, currency="CHF")]
    assert [len(rows) for rows in await asyncio.gather(*small)] == [2, 2]
    assert handed_off == []  # read on the event loop's thread

    scan = Query(ATTRIBUTE.statement, scan=True)
    many = db.reads.rows(ARTICLES, ids=list(range(1, SMALL + 2)))  # a list past SMALL
    assert [len(rows) for rows in await asyncio.gather(db.reads.rows(scan), many)] == [2, 2]
    assert handed_off == [2]  # both in one hand-off


PLAN_MODE = select(func.current_setting("plan_cache_mode"))


def test_lookups_and_pages_are_planned_once_and_scans_and_ranges_per_run() -> None:
    assert ARTICLES.planned_once()
    assert Query(PLAN_MODE.limit(bindparam("limit"))).planned_once()
    assert Query(PLAN_MODE, scan=True).planned_once() is False
    assert Query(PLAN_MODE, ranged=True).planned_once() is False


@pytest.mark.skipif(databases.backend() != "postgresql", reason="PostgreSQL's plan cache")
async def test_lookups_and_pages_keep_a_generic_plan_on_postgresql(db: Database) -> None:
    # Asked in one turn: each kind goes to connections of its own.
    lookup = db.reads.rows(Query(PLAN_MODE))
    page = db.reads.rows(Query(PLAN_MODE.limit(bindparam("limit"))), limit=1)
    scan = db.reads.rows(Query(PLAN_MODE, scan=True))
    ranged = db.reads.rows(Query(PLAN_MODE, ranged=True))

    # A range's plan is its run's own: PostgreSQL's `auto` took a generic plan after a fifth run.
    assert [(await lookup)[0][0], (await page)[0][0], (await scan)[0][0], (await ranged)[0][0]] == [
        "force_generic_plan",
        "force_generic_plan",
        "auto",
        "force_custom_plan",
    ]


@pytest.mark.skipif(databases.backend() != "postgresql", reason="PostgreSQL's JIT")
async def test_reads_never_compile_a_plan_on_postgresql(db: Database) -> None:
    """A count over the catalogue passes JIT's cost threshold, and compiling it took longer than running it."""
    jit = select(func.current_setting("jit"))
    scan, lookup = db.reads.rows(Query(jit, scan=True)), db.reads.rows(Query(jit))
    assert [(await scan)[0][0], (await lookup)[0][0]] == ["off", "off"]
