"""Counts of the exposed articles a filter matches, per value of a column, per availability, per price band.

Each family is one statement over the rows the filter's count reads (articles.count_articles: the exposing
attribute's index, joined with the article where a condition needs it; without conditions, a group's or
class's counts read the article list's index of that column: `matching`), grouped in the database; only the
groups come back. An article's price and stock are looked up by its id, from indexes that hold what the
lookups read (migration 0015). The statements are compiled once per filter shape (filters.py) and family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from functools import lru_cache
from typing import Any

from sqlalchemy import CTE, ColumnElement, Select, bindparam, case, func, null, select

from datasources import phkeys
from datasources.catalogue.filters import ArticleFilter, FilterShape, condition_values, conditions
from datasources.catalogue.list_price import PriceView, list_price, price_values
from datasources.catalogue.stock import has_available_stock
from datasources.models import Article, ArticleAttribute, ArticleListing
from datasources.models.base import Money
from datasources.reads import Query, Reads


class FacetColumn(Enum):
    GROUP = "group"
    ARTICLE_CLASS = "article_class"


def facet_column(facet: FacetColumn) -> ColumnElement[str | None]:
    return (Article.group if facet is FacetColumn.GROUP else Article.article_class).expression


@dataclass(frozen=True, slots=True)
class ValueCount:
    value: Any  # a column's value, None included; True/False for availability
    count: int


@dataclass(frozen=True, slots=True)
class PriceRange:
    lowest: Decimal | None  # None: no article has a list price
    highest: Decimal | None
    without_price: int


@dataclass(frozen=True, slots=True)
class BandCount:
    lower: Decimal | None  # None: open below
    upper: Decimal | None  # None: open above; a band holds lower <= price < upper
    count: int


@dataclass(frozen=True, slots=True)
class Matched:
    """A matching article as `matching`'s columns read it: its id, and the facet's column where one is asked."""

    article_id: ColumnElement[int]
    value: ColumnElement[Any]  # the facet's column; NULL when none is asked


def matching(
    columns: Callable[[Matched], Sequence[Any]], shape: FilterShape, facet: FacetColumn | None = None
) -> Select[Any]:
    """`columns` over the exposed articles matching a filter of `shape` (the rows its count reads), with
    `facet`'s column. With conditions: the exposing attribute's index joined with the article, as the count
    reads them. Without: the attribute's index alone, or, for a facet's column, the article list's copies of
    the exposure and the column (`article_listing`, models/article_order.py), whose index on (exposure, column)
    holds the facet's rows in order. Every attribute has its article (its foreign key), and the list's
    exposure is the attribute's (its triggers write both in the same statement): each reads the same articles."""
    given = conditions(shape)
    if given:
        value = facet_column(facet) if facet is not None else null()
        stmt = select(*columns(Matched(ArticleAttribute.article_id.expression, value))).select_from(ArticleAttribute)
        stmt = stmt.join(Article, Article.id == ArticleAttribute.article_id)
        return stmt.where(ArticleAttribute.key == phkeys.EXPOSED, *given)
    if facet is not None:
        listed = (ArticleListing.group if facet is FacetColumn.GROUP else ArticleListing.article_class).expression
        return select(*columns(Matched(ArticleListing.article_id.expression, listed))).where(ArticleListing.exposed)
    stmt = select(*columns(Matched(ArticleAttribute.article_id.expression, null()))).select_from(ArticleAttribute)
    return stmt.where(ArticleAttribute.key == phkeys.EXPOSED)


async def value_counts(reads: Reads, flt: ArticleFilter, facet: FacetColumn) -> list[ValueCount]:
    """Per value of the column (None for articles without one), how many match; most first, then by value."""
    rows = await reads.rows(_value_query(FilterShape.of(flt), facet), **condition_values(flt))
    return ordered_counts(ValueCount(value, int(count)) for value, count in rows)


def ordered_counts(counts: Iterable[ValueCount]) -> list[ValueCount]:
    """Most first, then by value, those without one first."""
    return sorted(counts, key=lambda c: (-c.count, c.value is not None, c.value or ""))


@lru_cache(maxsize=256)
def _value_query(shape: FilterShape, facet: FacetColumn) -> Query:
    stmt = matching(lambda matched: [matched.value, func.count()], shape, facet)
    return Query(stmt.group_by(stmt.selected_columns[0]), scan=True)


async def availability_counts(reads: Reads, flt: ArticleFilter) -> list[ValueCount]:
    """How many match with stock available (True) and without (False); a value none has is left out."""
    ((total, available),) = await reads.rows(_availability_query(FilterShape.of(flt)), **condition_values(flt))
    found = {True: int(available or 0), False: int(total) - int(available or 0)}
    return [ValueCount(value, found[value]) for value in (True, False) if found[value]]


@lru_cache(maxsize=256)
def _availability_query(shape: FilterShape) -> Query:
    """How many match, and how many of them have stock available: one row, each article's stock probed once
    (grouped by the flag, SQLite probed it for the group's key and again for its value)."""

    def columns(matched: Matched) -> list[Any]:
        return [func.count(), func.sum(case((has_available_stock(matched.article_id), 1), else_=0))]

    return Query(matching(columns, shape), scan=True)


def _price_view_values(flt: ArticleFilter, view: PriceView) -> dict[str, Any]:
    # The filter's own price condition reads the same view: the same parameters.
    return {**condition_values(flt), **price_values(view)}


async def price_range(reads: Reads, flt: ArticleFilter, view: PriceView) -> PriceRange:
    """The lowest and highest list price of the matching articles, and how many have none."""
    rows = await reads.rows(
        _range_query(FilterShape.of(flt), len(view.price_list_ids)), **_price_view_values(flt, view)
    )
    lowest, highest, total, priced = rows[0]
    return PriceRange(lowest, highest, int(total) - int(priced or 0))


def _prices(shape: FilterShape, chain: int) -> CTE:
    """The matching articles' list prices, read once each: a flattened subquery would repeat the price's
    lookups in every expression that uses it."""
    prices = matching(lambda m: [list_price(chain, m.article_id).label("price")], shape)
    return prices.cte("prices").prefix_with("MATERIALIZED")


@lru_cache(maxsize=256)
def _range_query(shape: FilterShape, chain: int) -> Query:
    price = _prices(shape, chain).c.price
    return Query(select(func.min(price), func.max(price), func.count(), func.count(price)), scan=True)


async def band_counts(
    reads: Reads, flt: ArticleFilter, view: PriceView, bounds: Sequence[Decimal]
) -> tuple[list[BandCount], int]:
    """Per band between consecutive `bounds` (ascending), how many match; the bands below the first bound
    and from the last one up where some do. And how many have no list price."""
    values = _price_view_values(flt, view)
    values.update({f"bound_{index}": bound for index, bound in enumerate(bounds)})
    rows = await reads.rows(_band_query(FilterShape.of(flt), len(view.price_list_ids), len(bounds)), **values)
    found = {int(band): int(count) for band, count in rows}
    return banded(found, bounds), found.get(-1, 0)


def banded(found: Mapping[int, int], bounds: Sequence[Decimal]) -> list[BandCount]:
    """The bands of `bounds` with their counts (`found` by band: 0 below the first bound, i from bound i-1 up
    to bound i); the bands below the first bound and from the last one up only where some fall in them."""
    edges: list[Decimal | None] = [None, *bounds, None]
    bands = [BandCount(edges[band], edges[band + 1], found.get(band, 0)) for band in range(len(bounds) + 1)]
    inner = bands[1:-1]
    outer = [band for band in (bands[0], bands[-1]) if band.count]
    return sorted([*inner, *outer], key=_band_order)


def _band_order(band: BandCount) -> tuple[bool, Decimal]:
    return (band.lower is not None, band.lower if band.lower is not None else Decimal(0))


@lru_cache(maxsize=256)
def _band_query(shape: FilterShape, chain: int, bounds: int) -> Query:
    """Each article's band: -1 without a price, 0 below the first bound, i from bound i-1 up to bound i,
    `bounds` from the last one up. Compared with the bounds as the price filter compares (never by division,
    whose rounding on SQLite's floats could put a price on a bound into the band below)."""
    price = _prices(shape, chain).c.price
    whens: list[tuple[ColumnElement[bool], int]] = [(price.is_(None), -1)]
    whens += [(price < bindparam(f"bound_{index}", type_=Money), index) for index in range(bounds)]
    bands = select(case(*whens, else_=bounds).label("band")).subquery()
    return Query(select(bands.c.band, func.count()).group_by(bands.c.band), scan=True)
