"""Statistics of the articles a filter matches, per bucket (group, class, or all of them): how many, their
list prices' lowest, highest and mean, their stock, and how many have no price or no stock.

One statement: each matching article's price and stock read once (a materialised CTE), then aggregated
per bucket in the database.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import case, func, select

from datasources.catalogue.facets import FacetColumn, Matched, matching
from datasources.catalogue.filters import ArticleFilter, FilterShape, condition_values
from datasources.catalogue.list_price import PriceView, list_price, price_values
from datasources.catalogue.stock import has_available_stock, stock_in_base_units
from datasources.reads import Query, Reads, record_columns


class Bucket(NamedTuple):
    value: str | None  # the group's or class's value; None for those without one, or when not grouped
    articles: int
    lowest_price: Decimal | None
    highest_price: Decimal | None
    mean_price: Decimal | None
    stock: Decimal  # after reservations, in released warehouses, in base units
    without_price: int
    without_stock: int  # no positive stock in a released warehouse (the filter's available: false)


async def statistics(reads: Reads, flt: ArticleFilter, view: PriceView, group_by: FacetColumn | None) -> list[Bucket]:
    """One bucket per value of `group_by` among the matching articles (most articles first), or one for all
    of them (none when nothing matches)."""
    query = _statistics_query(FilterShape.of(flt), len(view.price_list_ids), group_by)
    rows = await reads.rows(query, **{**condition_values(flt), **price_values(view)})
    return ordered_buckets(_bucket(*row) for row in rows)


def ordered_buckets(buckets: Iterable[Bucket]) -> list[Bucket]:
    """Most articles first, then by value, those without one first."""
    return sorted(buckets, key=lambda b: (-b.articles, b.value is not None, b.value or ""))


def _bucket(
    value: str | None,
    count: int,
    lowest: Decimal | None,
    highest: Decimal | None,
    mean: Decimal | None,
    stock: Decimal | None,
    without_price: int,
    without_stock: int,
) -> Bucket:
    # The sums come back as the database's numbers (an int on SQLite where every stock is whole).
    return Bucket(value, count, lowest, highest, mean, Decimal(stock or 0), without_price, int(without_stock))


@lru_cache(maxsize=256)
def _statistics_query(shape: FilterShape, chain: int, group_by: FacetColumn | None) -> Query:
    def per_article_columns(matched: Matched) -> list[Any]:
        return [
            matched.value.label("bucket"),
            list_price(chain, matched.article_id).label("price"),
            stock_in_base_units(matched.article_id).label("stock"),
            case((has_available_stock(matched.article_id), 1), else_=0).label("available"),
        ]

    per_article = matching(per_article_columns, shape, group_by).cte("per_article").prefix_with("MATERIALIZED")
    c = per_article.c
    columns = record_columns(
        Bucket,
        value=c.bucket,
        articles=func.count(),
        lowest_price=func.min(c.price),
        highest_price=func.max(c.price),
        mean_price=func.avg(c.price),
        stock=func.sum(c.stock),
        without_price=func.count() - func.count(c.price),
        without_stock=func.count() - func.sum(c.available),
    )
    return Query(select(*columns).group_by(c.bucket), scan=True, record=Bucket)
