"""The folded reads answer what their parts answer apart: the packaging units with the prices
(unit_prices.py) as details.packaging and price_tiers.prices_by_article, one article with the view
(article_view.py) as articles.article_by_number and view.resolve_asked. Over the demo catalogue (units,
WEBSHOPVPE, price ranges and ladders, several lists and currencies), on the backend under test."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from datasources.catalogue import article_view, articles, details, price_tiers, unit_prices
from datasources.catalogue.view import ViewRequest, resolve_asked
from datasources.database import Database
from datasources.demo import fill_demo
from datasources.errors import NotFound
from datasources.models import Article, Customer

ARTICLES = 120


@pytest.fixture
async def demo(db: Database) -> Database:
    assert await fill_demo(db.engine, articles=ARTICLES, customers=8, seed=3)
    return db


async def _customers(db: Database) -> list[str]:
    async with db.reader() as session:
        return list((await session.scalars(select(Customer.number).order_by(Customer.number))).all())


async def _numbers(db: Database) -> list[str]:
    async with db.reader() as session:
        return list((await session.scalars(select(Article.number).order_by(Article.id))).all())


def _asked(db_customers: list[str]) -> list[ViewRequest]:
    return [
        ViewRequest.of(None, None, None),
        ViewRequest.of("fre", "EUR", None),
        *(ViewRequest.of("eng", None, number) for number in db_customers),
    ]


async def test_units_and_prices_are_the_units_and_the_prices_read_apart(demo: Database) -> None:
    reads = demo.reads
    async with demo.reader() as session:
        ids = list((await session.scalars(select(Article.id).order_by(Article.id))).all())
    for asked in _asked(await _customers(demo)):
        view = await resolve_asked(reads, asked)
        packaging, prices = await unit_prices.units_and_prices(reads, ids, view)
        assert packaging == await details.packaging(reads, ids)
        assert prices == await price_tiers.prices_by_article(reads, ids, view)
    assert any(p.has_units for p in packaging.values()) and any(not p.has_units for p in packaging.values())
    assert any(len(tiers) > 1 for tiers in prices.values())


async def test_an_article_with_its_view_is_the_article_and_the_view_read_apart(demo: Database) -> None:
    reads = demo.reads
    numbers = [*(await _numbers(demo))[::7], "NO-SUCH-ARTICLE"]
    for asked in _asked(await _customers(demo)):
        for language in (None, "ger", "fre"):
            for number in numbers:
                together = await article_view.article_with_view(reads, number, asked, language)
                apart = await articles.article_by_number(reads, number, language), await resolve_asked(reads, asked)
                assert together == apart


async def test_an_unknown_customer_is_refused_as_the_view_refuses_it(demo: Database) -> None:
    number = (await _numbers(demo))[0]
    asked = ViewRequest.of(None, None, "NO-SUCH-CUSTOMER")
    with pytest.raises(NotFound) as together:
        await article_view.article_with_view(demo.reads, number, asked, None)
    with pytest.raises(NotFound) as apart:
        await resolve_asked(demo.reads, asked)
    assert (together.value.args, together.value.field) == (apart.value.args, apart.value.field)
