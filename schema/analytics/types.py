"""Types of the analytics queries: facets of the article list, its statistics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from decimal import Decimal
from enum import Enum
from typing import Annotated, TypeVar

import strawberry

from datasources.catalogue import aggregates, articles, bands, facets
from datasources.catalogue.articles import ArticleQuery
from datasources.catalogue.digest_tally import Tallies
from datasources.catalogue.filters import ArticleFilter, FilterShape
from datasources.catalogue.list_price import PriceView
from schema.context import Context
from schema.scalars import float_or_none

T = TypeVar("T")

BOUNDS = (
    "Prices the bands run between, ascending (at most 100); the bands below the first and from the last "
    "one up are listed where articles fall in them. Without: nice bands (1-2-5 steps) over the prices found."
)


@strawberry.type(description="How many matching articles have this value (null: those without one).")
class ValueCount:
    value: str | None
    count: int


@strawberry.type(description="How many matching articles have stock available (true) or none (false).")
class AvailabilityCount:
    value: bool
    count: int


@strawberry.type(description="How many matching articles have a list price from `from` up to below `to`.")
class PriceBand:
    from_: float | None = strawberry.field(name="from", description="Lowest price of the band; null: open below.")
    to: float | None = strawberry.field(description="The band holds prices below this; null: open above.")
    count: int

    @classmethod
    def of(cls, band: facets.BandCount) -> PriceBand:
        return cls(from_=float_or_none(band.lower), to=float_or_none(band.upper), count=band.count)


@strawberry.type(
    description="Counts of the exposed articles the filter matches, per value: each equals `articles`' "
    "totalCount with the filter narrowed to that value. Each field is one statement, made only when asked for."
)
class ArticleFacets:
    filter: strawberry.Private[ArticleFilter]
    prices: strawberry.Private[PriceView]

    @strawberry.field(description="How many articles match the filter.")
    async def total(self, info: strawberry.Info[Context]) -> int:
        reads, query = info.context.db.reads, ArticleQuery(filter=self.filter)
        return await answer(
            info,
            self.filter,
            self.prices,
            lambda whole: whole.total.articles,
            (articles.count_articles, query),
            lambda: articles.count_articles(reads, query),
        )

    @strawberry.field(description="Per ArtGruppe, most articles first.")
    async def groups(self, info: strawberry.Info[Context]) -> list[ValueCount]:
        found = await _value_counts(info, self.filter, self.prices, facets.FacetColumn.GROUP)
        return [ValueCount(value=c.value, count=c.count) for c in found]

    @strawberry.field(description="Per ArtKlasse, most articles first.")
    async def classes(self, info: strawberry.Info[Context]) -> list[ValueCount]:
        found = await _value_counts(info, self.filter, self.prices, facets.FacetColumn.ARTICLE_CLASS)
        return [ValueCount(value=c.value, count=c.count) for c in found]

    @strawberry.field(description="With stock available (as the filter's `available: true`) and without.")
    async def availability(self, info: strawberry.Info[Context]) -> list[AvailabilityCount]:
        reads, flt = info.context.db.reads, self.filter
        found = await answer(
            info,
            flt,
            self.prices,
            Tallies.availability,
            (facets.availability_counts, flt),
            lambda: facets.availability_counts(reads, flt),
        )
        return [AvailabilityCount(value=c.value, count=c.count) for c in found]

    @strawberry.field(
        description="Per band of the list price (as the filter's priceFrom <= price < priceTo), ascending; "
        "articles without a list price are in withoutPrice, not in a band."
    )
    async def price_bands(
        self,
        info: strawberry.Info[Context],
        bounds: Annotated[list[float] | None, strawberry.argument(description=BOUNDS)] = None,
    ) -> list[PriceBand]:
        reads, flt, prices = info.context.db.reads, self.filter, self.prices
        if bounds is None:
            found = await _price_range(info, flt, prices)
            if found.lowest is None or found.highest is None:
                return []
            edges = bands.nice_bounds(found.lowest, found.highest)
        else:
            edges = bands.checked_bounds([Decimal(repr(bound)) for bound in bounds])
        counted, _ = await answer(
            info,
            flt,
            prices,
            lambda whole: whole.band_counts(edges),
            (facets.band_counts, flt, prices, tuple(edges)),
            lambda: facets.band_counts(reads, flt, prices, edges),
        )
        return [PriceBand.of(band) for band in counted]

    @strawberry.field(description="How many matching articles have no list price in the view.")
    async def without_price(self, info: strawberry.Info[Context]) -> int:
        return (await _price_range(info, self.filter, self.prices)).without_price


async def answer(
    info: strawberry.Info[Context],
    flt: ArticleFilter,
    prices: PriceView,
    read_off: Callable[[Tallies], T],
    question: Hashable,
    count: Callable[[], Awaitable[T]],
) -> T:
    """Without a filter condition, read off the whole catalogue's sums (datasources/catalogue/digest.py),
    corrected by each change; with one, `count`ed in the database and kept as `question` while nothing
    changes (aggregate_cache.py)."""
    if FilterShape.of(flt).unconditional:
        return read_off(await info.context.aggregates.tallies(prices))
    return await info.context.aggregates.answer(question, count)


async def _value_counts(
    info: strawberry.Info[Context], flt: ArticleFilter, prices: PriceView, column: facets.FacetColumn
) -> list[facets.ValueCount]:
    reads = info.context.db.reads
    return await answer(
        info,
        flt,
        prices,
        lambda whole: whole.value_counts(column),
        (facets.value_counts, flt, column),
        lambda: facets.value_counts(reads, flt, column),
    )


async def _price_range(info: strawberry.Info[Context], flt: ArticleFilter, prices: PriceView) -> facets.PriceRange:
    reads = info.context.db.reads
    return await answer(
        info,
        flt,
        prices,
        Tallies.price_range,
        (facets.price_range, flt, prices),
        lambda: facets.price_range(reads, flt, prices),
    )


@strawberry.enum(description="What articleStatistics makes a bucket of.")
class StatisticsGrouping(Enum):
    GROUP = facets.FacetColumn.GROUP.value  # ArtGruppe
    CLASS = facets.FacetColumn.ARTICLE_CLASS.value  # ArtKlasse


@strawberry.type(description="Statistics of the matching articles of one bucket.")
class ArticleStatistics:
    value: str | None = strawberry.field(
        description="The bucket's ArtGruppe or ArtKlasse; null for those without one, or when not grouped."
    )
    count: int = strawberry.field(description="How many articles.")
    min_price: float | None = strawberry.field(description="Lowest list price (null: none has one).")
    max_price: float | None = strawberry.field(description="Highest list price.")
    avg_price: float | None = strawberry.field(description="Mean list price of those that have one.")
    stock: float = strawberry.field(
        description="Total stock after reservations in released warehouses, in base units (a packaging unit's "
        "stock times its factor)."
    )
    without_price: int = strawberry.field(description="Articles without a list price in the view.")
    without_stock: int = strawberry.field(
        description="Articles without stock available (as the filter's `available: false`)."
    )

    @classmethod
    def of(cls, bucket: aggregates.Bucket) -> ArticleStatistics:
        return cls(
            value=bucket.value,
            count=bucket.articles,
            min_price=float_or_none(bucket.lowest_price),
            max_price=float_or_none(bucket.highest_price),
            avg_price=float_or_none(bucket.mean_price),
            stock=float(bucket.stock),
            without_price=bucket.without_price,
            without_stock=bucket.without_stock,
        )
