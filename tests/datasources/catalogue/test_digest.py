"""The whole catalogue's digest (datasources/catalogue/digest.py) against the database's counts: a random
catalogue, then random changes of the kinds a shop's catalogue sees (a price, stock, a reservation, an
article hidden, shown, regrouped, removed or added, a warehouse blocked), each followed by every answer read
off the digest and counted by the statements; on SQLite and PostgreSQL alike. And a catch-up reads the
changed articles, not the catalogue."""

from __future__ import annotations

import asyncio
import itertools
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Integer, Numeric, String, bindparam, text
from sqlalchemy.types import TypeEngine

from datasources.catalogue import aggregates, digest, facets
from datasources.catalogue.aggregate_cache import AggregateCache
from datasources.catalogue.aggregates import Bucket
from datasources.catalogue.digest_tally import Tallies
from datasources.catalogue.facets import FacetColumn
from datasources.catalogue.filters import ArticleFilter
from datasources.catalogue.list_price import PriceView
from datasources.database import Database
from datasources.reads import Reads
from tests.factories import Factory
from tests.schema.test_analytics_properties import _items, _write

BOUNDS = [Decimal("5"), Decimal("10.5"), Decimal("20")]
VIEWS = [PriceView("CHF", (1,)), PriceView("EUR", (1,)), PriceView("CHF", (2, 1))]
RETENTION = 3600.0
COLUMNS = (None, FacetColumn.GROUP, FacetColumn.ARTICLE_CLASS)

ARTICLE = "(SELECT id FROM article ORDER BY id LIMIT 1 OFFSET :nth)"  # the nth article, in place of {article}
CHANGES = {
    "price": "UPDATE price SET amount = :amount WHERE article_id = {article} AND packaging_unit IS NULL",
    "no price": "DELETE FROM price WHERE article_id = {article}",
    "new price": (
        "INSERT INTO price (article_id, price_list_id, currency, min_quantity, amount, modified_at)"
        " SELECT id, 2, 'CHF', 5, :amount, CURRENT_TIMESTAMP FROM article WHERE id = {article} AND NOT EXISTS"
        " (SELECT 1 FROM price WHERE article_id = article.id AND price_list_id = 2 AND min_quantity = 5)"
    ),
    "stock": "UPDATE stock SET on_hand = :quantity WHERE article_id = {article}",
    "reservation": (
        "INSERT INTO reservation (article_id, warehouse_id, packaging_unit, quantity)"
        " SELECT article_id, warehouse_id, packaging_unit, :quantity FROM stock WHERE article_id = {article}"
    ),
    "hidden": "DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = {article}",
    "shown": (
        "INSERT INTO article_attribute (article_id, key, contents) SELECT id, 'RESTWEBSHOP', '1' FROM article"
        " WHERE id = {article} AND NOT EXISTS"
        " (SELECT 1 FROM article_attribute a WHERE a.key = 'RESTWEBSHOP' AND a.article_id = article.id)"
    ),
    "regrouped": 'UPDATE article SET "group" = :group, article_class = :group WHERE id = {article}',
    "removed": "DELETE FROM article WHERE id = {article}",
    "blocked": "UPDATE warehouse SET released = NOT released WHERE id = (SELECT min(id) FROM warehouse)",
}


TYPES: dict[str, TypeEngine[Any]] = {
    "nth": Integer(),
    "amount": Numeric(14, 4),
    "quantity": Numeric(14, 4),
    "group": String(),
}


def _change() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    values = st.fixed_dictionaries(
        {
            "nth": st.integers(0, 11),
            "amount": st.sampled_from([Decimal("0.05"), Decimal("10"), Decimal("19.99"), Decimal("250")]),
            "quantity": st.sampled_from([Decimal(0), Decimal(2), Decimal("7.5")]),
            "group": st.sampled_from([None, "G1", "G3"]),
        }
    )
    return st.tuples(st.sampled_from(sorted(CHANGES)), values)


async def _apply(db: Database, name: str, values: dict[str, Any]) -> None:
    statement = CHANGES[name].replace("{article}", ARTICLE)
    used = {key: value for key, value in values.items() if f":{key}" in statement}
    typed = text(statement).bindparams(*(bindparam(key, type_=TYPES[key]) for key in used))
    async with db.writer() as session, session.begin():
        await session.execute(typed, used)


async def _added(factory: Factory) -> None:
    article = await factory.article(f"N-{next(_added_numbers):03d}")  # exposed
    await factory.price(article, "12.5")


_added_numbers = itertools.count()


async def _counted(reads: Reads, view: PriceView) -> dict[str, Any]:
    whole = ArticleFilter()
    return {
        "groups": await facets.value_counts(reads, whole, FacetColumn.GROUP),
        "classes": await facets.value_counts(reads, whole, FacetColumn.ARTICLE_CLASS),
        "availability": await facets.availability_counts(reads, whole),
        "range": await facets.price_range(reads, whole, view),
        "bands": await facets.band_counts(reads, whole, view, BOUNDS),
        "statistics": [_rounded(await aggregates.statistics(reads, whole, view, c)) for c in COLUMNS],
    }


def _digested(tallies: Tallies) -> dict[str, Any]:
    return {
        "groups": tallies.value_counts(FacetColumn.GROUP),
        "classes": tallies.value_counts(FacetColumn.ARTICLE_CLASS),
        "availability": tallies.availability(),
        "range": tallies.price_range(),
        "bands": tallies.band_counts(BOUNDS),
        "statistics": [_rounded(tallies.statistics(c)) for c in COLUMNS],
    }


def _rounded(buckets: list[Bucket]) -> list[tuple[Any, ...]]:
    """The buckets, their mean and stock as the API gives them (floats), to a part in 10^12: SQLite's mean
    and sums are of floats, the digest's of decimals."""

    def near(value: Decimal | float | None) -> float | None:
        return None if value is None else float(f"{float(value):.12g}")

    return [(*bucket[:4], near(bucket.mean_price), near(bucket.stock), *bucket[6:]) for bucket in buckets]


async def _tallies(db: Database, cache: AggregateCache, view: PriceView) -> Tallies:
    """The view's sums as a request sees them: the change stamps checked, then the digest caught up."""
    postgresql = db.engine.dialect.name == "postgresql"
    generation = await cache.check(db.reads, postgresql=postgresql)
    return await cache.digests.tallies(db.reads, view, generation, postgresql=postgresql, retention=RETENTION)


def _recorded_reads(monkeypatch: pytest.MonkeyPatch) -> list[list[int] | None]:
    """The articles each read of facts asked for (None: all)."""
    read: list[list[int] | None] = []
    facts = digest._facts

    async def recorded(reads: Reads, view: PriceView, ids: list[int] | None) -> Any:
        read.append(ids)
        return await facts(reads, view, ids)

    monkeypatch.setattr(digest, "_facts", recorded)
    return read


@pytest.fixture
async def warehouses(factory: Factory) -> tuple[int, int]:
    await factory.reference_data()
    released = await factory.warehouse("Hauptlager", 1)
    blocked = await factory.warehouse("Sperrlager", 9, released=False)
    return released.id, blocked.id


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_the_digest_answers_as_the_database_counts_after_every_change(
    db: Database, factory: Factory, warehouses: tuple[int, int], data: st.DataObject
) -> None:
    await _write(db, data.draw(_items(), label="catalogue"), warehouses)
    cache = AggregateCache()
    view = data.draw(st.sampled_from(VIEWS), label="view")

    async def digested() -> dict[str, Any]:
        return _digested(await _tallies(db, cache, view))

    assert await digested() == await _counted(db.reads, view)
    changes = data.draw(st.lists(st.one_of(_change(), st.just(None)), min_size=1, max_size=6), label="changes")
    for change in changes:
        if change is None:
            await _added(factory)
        else:
            await _apply(db, *change)
        assert await digested() == await _counted(db.reads, view), change


async def test_a_catch_up_reads_the_changed_articles_only(
    db: Database, factory: Factory, warehouses: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(30):
        await _added(factory)
    cache, view = AggregateCache(), VIEWS[0]
    read = _recorded_reads(monkeypatch)

    assert (await _tallies(db, cache, view)).total.articles == 30
    assert read == [None]  # built: every article
    await _apply(db, "price", {"nth": 3, "amount": Decimal("99")})
    await _apply(db, "hidden", {"nth": 4})
    assert (await _tallies(db, cache, view)).total.articles == 29
    assert (await _tallies(db, cache, view)).price_range().highest == Decimal("99")
    [_, caught_up] = read
    assert caught_up is not None and len(caught_up) == 2  # the two changed, not the 30


async def test_more_changes_than_a_catch_up_corrects_read_the_digest_again(
    db: Database, factory: Factory, warehouses: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(digest, "REBUILD", 3)
    for _ in range(6):
        await _added(factory)
    cache, view = AggregateCache(), VIEWS[0]
    read = _recorded_reads(monkeypatch)

    assert (await _tallies(db, cache, view)).total.articles == 6
    async with db.writer() as session, session.begin():
        await session.execute(text("UPDATE price SET amount = amount + 1"))  # a list's prices: 6 changes
    whole = await _tallies(db, cache, view)
    assert read == [None, None]  # read whole again
    assert whole.price_range().lowest == Decimal("13.5")
    assert whole.statistics(None)[0].mean_price == Decimal("13.5")
    assert _digested(whole) == await _counted(db.reads, view)


async def test_a_request_that_goes_away_leaves_the_reading_to_those_who_wait(
    db: Database, factory: Factory, warehouses: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):
        await _added(factory)
    postgresql = db.engine.dialect.name == "postgresql"
    cache, view = AggregateCache(), VIEWS[0]
    generation = await cache.check(db.reads, postgresql=postgresql)
    release, facts, read = asyncio.Event(), digest._facts, []

    async def slow(reads: Reads, view: PriceView, ids: list[int] | None) -> Any:
        read.append(ids)
        await release.wait()
        return await facts(reads, view, ids)

    monkeypatch.setattr(digest, "_facts", slow)

    def asked() -> asyncio.Future[Tallies]:
        return asyncio.ensure_future(
            cache.digests.tallies(db.reads, view, generation, postgresql=postgresql, retention=RETENTION)
        )

    first, second = asked(), asked()
    await asyncio.sleep(0.05)
    first.cancel()
    release.set()
    assert (await second).total.articles == 3
    with pytest.raises(asyncio.CancelledError):
        await first
    assert read == [None]  # read once, for both
