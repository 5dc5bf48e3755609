"""The conditions of the article list: what a filter asks, as SQL over the `article` row.

A filter's statement text depends only on which conditions it has (its `FilterShape`), never on their
values, which are parameters: the statements are compiled once per shape (articles.py, facets.py).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, bindparam, exists

from datasources.catalogue.list_price import PriceView, list_price, price_values
from datasources.catalogue.search import SearchKind, search_condition, search_kind, search_values
from datasources.catalogue.stock import has_available_stock
from datasources.errors import InvalidInput
from datasources.models import Article, Media
from datasources.models.base import Money
from datasources.reads import values_in

# A search text longer than any designation (varchar(255)) cannot match; SQLite also refuses LIKE
# patterns over 50,000 bytes ("LIKE or GLOB pattern too complex").
MAX_SEARCH_LENGTH = 255


@dataclass(frozen=True, slots=True)
class ArticleFilter:
    group: str | None = None
    article_class: str | None = None
    search: str | None = None  # part of the number or of the designation, case-insensitive
    available: bool | None = None  # True: positive stock in released warehouses
    numbers: tuple[str, ...] | None = None  # ArtNr is one of these (a part of a list read in parts)
    price_from: Decimal | None = None  # list price (list_price.py) at least this
    price_to: Decimal | None = None  # list price below this: bands [from, to) neither overlap nor leave gaps
    modified_since: dt.datetime | None = None  # GeaendertAmUTC at or after this
    has_media: bool | None = None  # True: at least one media record
    prices: PriceView | None = None  # the view list prices are read in: needed with price_from or price_to

    def __post_init__(self) -> None:
        if self.search is not None and len(self.search) > MAX_SEARCH_LENGTH:
            raise InvalidInput(f"search has at most {MAX_SEARCH_LENGTH} characters", field="filter.search")
        if (self.price_from is not None or self.price_to is not None) and self.prices is None:
            raise ValueError("a price filter needs the view its prices are read in")

    @property
    def priced(self) -> bool:
        return self.price_from is not None or self.price_to is not None


class FilterShape(NamedTuple):
    """Which conditions a filter has: what makes its statement's text."""

    group: bool
    article_class: bool
    search: SearchKind | None
    available: bool | None
    numbers: bool
    price_from: bool
    price_to: bool
    price_chain: int  # the lists of the view's chain, with a price condition; else 0
    modified_since: bool
    has_media: bool | None

    @classmethod
    def of(cls, flt: ArticleFilter) -> FilterShape:
        return cls(
            flt.group is not None,
            flt.article_class is not None,
            search_kind(flt.search) if flt.search else None,
            flt.available,
            flt.numbers is not None,
            flt.price_from is not None,
            flt.price_to is not None,
            len(flt.prices.price_list_ids) if flt.prices is not None and flt.priced else 0,
            flt.modified_since is not None,
            flt.has_media,
        )

    @property
    def unconditional(self) -> bool:
        """No condition: every exposed article matches."""
        return not conditions(self)

    @property
    def scans(self) -> bool:
        """Whether the conditions may read far past a page to fill it (a condition no index of the list's
        order serves)."""
        return (
            self.search is not None
            or self.available is not None
            or self.price_from
            or self.price_to
            or self.modified_since
            or self.has_media is not None
        )


def conditions(shape: FilterShape) -> list[ColumnElement[bool]]:
    found: list[ColumnElement[bool]] = []
    if shape.group:
        found.append(Article.group == bindparam("group"))
    if shape.article_class:
        found.append(Article.article_class == bindparam("article_class"))
    if shape.search:
        found.append(search_condition(shape.search))
    if shape.available is not None:
        positive = has_available_stock(Article.id)
        found.append(positive if shape.available else ~positive)
    if shape.numbers:
        found.append(values_in(Article.number, "numbers"))
    found += _price_conditions(shape)
    if shape.modified_since:
        found.append(Article.modified_at >= bindparam("modified_since"))
    if shape.has_media is not None:
        media = exists().where(Media.article_id == Article.id)
        found.append(media if shape.has_media else ~media)
    return found


def _price_conditions(shape: FilterShape) -> list[ColumnElement[bool]]:
    if not (shape.price_from or shape.price_to):
        return []
    price = list_price(shape.price_chain)
    found: list[ColumnElement[bool]] = []
    if shape.price_from:
        found.append(price >= bindparam("price_from", type_=Money))
    if shape.price_to:
        found.append(price < bindparam("price_to", type_=Money))
    return found


def condition_values(flt: ArticleFilter) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if flt.group is not None:
        values["group"] = flt.group
    if flt.article_class is not None:
        values["article_class"] = flt.article_class
    if flt.search:
        values.update(search_values(flt.search))
    if flt.numbers is not None:
        values["numbers"] = flt.numbers
    if flt.priced and flt.prices is not None:
        values.update(price_values(flt.prices))
        if flt.price_from is not None:
            values["price_from"] = flt.price_from
        if flt.price_to is not None:
            values["price_to"] = flt.price_to
    if flt.modified_since is not None:
        values["modified_since"] = flt.modified_since
    return values
