"""Input types of the catalogue queries."""

from __future__ import annotations

from decimal import Decimal

import strawberry

from datasources.catalogue.filters import MAX_SEARCH_LENGTH, ArticleFilter
from datasources.catalogue.list_price import PriceView
from datasources.catalogue.ordering import Sort, SortField
from schema.catalogue.enums import ArticleSortField, SortDirection
from schema.limits.inputs import max_length
from schema.scalars import UtcDateTime


@strawberry.input(description="Restricts the article list; every given condition must hold.")
class ArticleFilterInput:
    group: str | None = strawberry.field(default=None, description="ArtGruppe equals.")
    article_class: str | None = strawberry.field(default=None, description="ArtKlasse equals.")
    # A longer text is refused before anything runs, as a request error (schema/limits/inputs.py).
    search: str | None = strawberry.field(
        default=None,
        description=f"Part of ArtNr or of ArtBez (any language), case-insensitive; at most {MAX_SEARCH_LENGTH} "
        "characters.",
        metadata=max_length(MAX_SEARCH_LENGTH),
    )
    available: bool | None = strawberry.field(
        default=None, description="true: positive stock in a released warehouse; false: none."
    )
    numbers: list[str] | None = strawberry.field(
        default=None,
        description="ArtNr is one of these (at most 1000): e.g. a part of a list that articleNumbers gave.",
    )

    price_from: float | None = strawberry.field(
        default=None,
        description="List price at least this: the lowest base-unit tier in the caller's price list and currency "
        "(the first list of the chain with such prices); articles without one never match a price.",
    )
    price_to: float | None = strawberry.field(
        default=None,
        description="List price below this (priceFrom <= price < priceTo: the bands of articleFacets).",
    )
    modified_since: UtcDateTime | None = strawberry.field(
        default=None, description="GeaendertAmUTC at or after this moment."
    )
    has_media: bool | None = strawberry.field(
        default=None, description="true: the article has media records (ArtikelMedia); false: none."
    )

    def to_filter(self, prices: PriceView | None = None) -> ArticleFilter:
        """The filter; `prices`: the caller's view, in which priceFrom and priceTo are read."""
        numbers = None if self.numbers is None else tuple(self.numbers)
        return ArticleFilter(
            self.group,
            self.article_class,
            self.search,
            self.available,
            numbers,
            price_from=_decimal(self.price_from),
            price_to=_decimal(self.price_to),
            modified_since=self.modified_since,
            has_media=self.has_media,
            prices=prices if self.priced else None,
        )

    @property
    def priced(self) -> bool:
        return self.price_from is not None or self.price_to is not None


def _decimal(value: float | None) -> Decimal | None:
    # repr: the shortest text of the float, the number the client wrote (0.1, not 0.1000000000000000055...).
    return None if value is None else Decimal(repr(value))


@strawberry.input(description="One sort key.")
class ArticleSortInput:
    field: ArticleSortField
    direction: SortDirection = SortDirection.ASC

    def to_sort(self) -> Sort:
        return Sort(SortField(self.field.value), descending=self.direction is SortDirection.DESC)
