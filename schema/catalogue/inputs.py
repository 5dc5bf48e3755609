"""Input types of the catalogue queries."""

from __future__ import annotations

import strawberry

from datasources.catalogue.articles import MAX_SEARCH_LENGTH, ArticleFilter
from datasources.catalogue.ordering import Sort, SortField
from schema.catalogue.enums import ArticleSortField, SortDirection
from schema.limits.inputs import max_length


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

    def to_filter(self) -> ArticleFilter:
        numbers = None if self.numbers is None else tuple(self.numbers)
        return ArticleFilter(self.group, self.article_class, self.search, self.available, numbers)


@strawberry.input(description="One sort key.")
class ArticleSortInput:
    field: ArticleSortField
    direction: SortDirection = SortDirection.ASC

    def to_sort(self) -> Sort:
        return Sort(SortField(self.field.value), descending=self.direction is SortDirection.DESC)
