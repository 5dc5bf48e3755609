"""One moment of the catalogue for a read of several operations (datasources/snapshot.py), on both databases:
what is committed after its first read is not seen by it, while the process's reads see it; reads asked for
together run one after another on its one connection; the connection goes back to the pool however the block
ends."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from sqlalchemy import bindparam, select, update

from datasources.database import Database
from datasources.models import Article, ArticleDesignation, Price
from datasources.reads import Query, values_in
from datasources.snapshot import snapshot
from tests.factories import Factory

PRICES = Query(
    select(Price.article_id, Price.amount)
    .where(values_in(Price.article_id, "ids"), Price.currency == bindparam("currency"))
    .order_by(Price.article_id, Price.min_quantity)
)
NAMES = Query(select(Article.number, ArticleDesignation.text).join(ArticleDesignation).order_by(Article.number))


@pytest.fixture
async def articles(factory: Factory) -> list[int]:
    await factory.reference_data()
    first = await factory.article("S-1", designations={"ger": "Hammer"})
    second = await factory.article("S-2", designations={"ger": "Zange"})
    await factory.price(first, "12.50")
    return [first.id, second.id]


async def test_what_is_committed_after_the_first_read_is_not_seen(
    db: Database, factory: Factory, articles: list[int]
) -> None:
    async with snapshot(db) as moment:
        names = await moment.reads.rows(NAMES)
        prices = await moment.reads.rows(PRICES, ids=articles, currency="CHF")
        assert [tuple(row) for row in names] == [("S-1", "Hammer"), ("S-2", "Zange")]

        await factory.article("S-0", designations={"ger": "Amboss"})
        await factory.price(await _article(db, articles[1]), "3.20")
        async with db.writer() as session, session.begin():
            await session.execute(update(ArticleDesignation).values(text="Schlegel"))

        assert [tuple(row) for row in await moment.reads.rows(NAMES)] == [tuple(row) for row in names]
        assert await moment.reads.rows(PRICES, ids=articles, currency="CHF") == prices
        now = [tuple(row) for row in await db.reads.rows(NAMES)]  # the process's reads: the catalogue as it is
        assert now == [("S-0", "Schlegel"), ("S-1", "Schlegel"), ("S-2", "Schlegel")]
        assert len(await db.reads.rows(PRICES, ids=articles, currency="CHF")) == 2


async def test_reads_asked_for_together_take_turns(db: Database, articles: list[int]) -> None:
    async with snapshot(db) as moment:
        together = await asyncio.gather(*(moment.reads.rows(PRICES, ids=articles, currency="CHF") for _ in range(5)))
    assert all([tuple(row) for row in rows] == [(articles[0], Decimal("12.5000"))] for rows in together)


async def test_the_connection_goes_back_however_the_block_ends(db: Database, articles: list[int]) -> None:
    pool = db.engine.pool
    before = pool.checkedout()  # type: ignore[attr-defined]  # QueuePool's, as both engines have
    with pytest.raises(LookupError):
        async with snapshot(db) as moment:
            await moment.reads.rows(NAMES)
            assert pool.checkedout() == before + 1  # type: ignore[attr-defined]
            raise LookupError("the page failed")
    assert pool.checkedout() == before  # type: ignore[attr-defined]
    async with snapshot(db) as moment:  # and the next one begins afresh
        assert len(await moment.reads.rows(NAMES)) == 2


async def _article(db: Database, article_id: int) -> Article:
    async with db.reader() as session:
        article = await session.get(Article, article_id)
    assert article is not None
    return article
