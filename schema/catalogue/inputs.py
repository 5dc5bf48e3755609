"""Input types of the catalogue queries."""

from __future__ import annotations

import strawberry

from datasources.catalogue.articles import ArticleFilter
from datasources.catalogue.ordering import Sort, SortField
from schema.catalogue.enums import ArticleSortField, SortDirection


@strawberry.input(description="Restricts the article list; every given condition must hold.")
class ArticleFilterInput:
    group: str | None = strawberry.field(default=None, description="ArtGruppe equals.")
    article_class: str | None = strawberry.field(default=None, description="ArtKlasse equals.")
    search: str | None = strawberry.field(
        default=None, description="Part of ArtNr or of ArtBez (any language), case-insensitive."
    )
    available: bool | None = strawberry.field(
        default=None, description="true: positive stock in a released warehouse; false: none."
    )

    def to_filter(self) -> ArticleFilter:
        return ArticleFilter(self.group, self.article_class, self.search, self.available)


@strawberry.input(description="One sort key.")
class ArticleSortInput:
    field: ArticleSortField
    direction: SortDirection = SortDirection.ASC

    def to_sort(self) -> Sort:
        return Sort(SortField(self.field.value), descending=self.direction is SortDirection.DESC)
