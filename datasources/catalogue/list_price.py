"""An article's list price in a view of the catalogue, as one SQL expression: what price filters, price bands
and statistics compare and aggregate.

The list price is the lowest PreisList of the base unit's tiers (VPEinheit null, any range and AbAnzahl) in
the first price list of the view's chain that has base-unit prices in the view's currency: the "from" price
a shop shows, chosen as `prices` chooses its tiers (price_tiers.py). An article whose prices are all its
packaging units' has none. Each list of the chain is one lookup in the price index (article, currency,
list); the chain has at most a customer's list and the default list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, bindparam, func, null, select
from sqlalchemy.orm import InstrumentedAttribute

from datasources.models import Article, Price

MAX_CHAIN = 2  # a customer's list type, then the default list (view.py)


@dataclass(frozen=True, slots=True)
class PriceView:
    """The currency and price lists a list price is read in (a CatalogueView's)."""

    currency: str
    price_list_ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.price_list_ids) > MAX_CHAIN:
            raise ValueError(f"a price-list chain has at most {MAX_CHAIN} lists")


ArticleId = ColumnElement[int] | InstrumentedAttribute[int]


def list_price(chain: int, article_id: ArticleId = Article.id) -> ColumnElement[Any]:
    """The list price of the article `article_id` (by default the `article` row's) for a chain of `chain`
    lists (its values: price_values). Each lookup is the first entry of the price index (migration 0015)."""
    lookups = [
        select(func.min(Price.amount))
        .where(
            Price.article_id == article_id,
            Price.currency == bindparam("price_currency"),
            Price.price_list_id == bindparam(f"price_list_{index}"),
            Price.packaging_unit.is_(None),
        )
        .scalar_subquery()
        for index in range(chain)
    ]
    if not lookups:
        return null()
    if len(lookups) == 1:
        return lookups[0]
    return func.coalesce(*lookups)


def price_values(view: PriceView) -> dict[str, Any]:
    values: dict[str, Any] = {"price_currency": view.currency}
    values.update({f"price_list_{index}": list_id for index, list_id in enumerate(view.price_list_ids)})
    return values
