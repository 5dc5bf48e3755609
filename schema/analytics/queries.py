"""Analytics queries: facets and statistics of the article list, for the caller's view of the catalogue."""

from __future__ import annotations

from typing import Annotated

import strawberry

from datasources.catalogue import aggregates
from datasources.catalogue.facets import FacetColumn
from datasources.catalogue.filters import ArticleFilter
from datasources.catalogue.list_price import PriceView
from datasources.catalogue.view import resolve_view
from schema.analytics.types import ArticleFacets, ArticleStatistics, StatisticsGrouping, answer
from schema.catalogue.inputs import ArticleFilterInput
from schema.catalogue.queries import CURRENCY, CUSTOMER, LANGUAGE, article_filter, customer_allowed
from schema.context import Context
from schema.permissions import CanReadCatalogue


@strawberry.type
class AnalyticsQuery:
    @strawberry.field(
        description="Counts of the exposed articles matching `filter` (every filter of `articles`), per group, "
        "class, availability and price band, in the caller's view (price list, currency). A fixed cost, "
        "whatever the number of articles: with a filter counted in the database; without, read off sums the "
        "gateway keeps and corrects by each article that changes.",
        permission_classes=[CanReadCatalogue],
    )
    async def article_facets(
        self,
        info: strawberry.Info[Context],
        filter: ArticleFilterInput | None = None,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> ArticleFacets:
        flt, prices = await _filter_in_view(info, filter, language, currency, customer_number)
        return ArticleFacets(filter=flt, prices=prices)

    @strawberry.field(
        description="Statistics of the exposed articles matching `filter`, one bucket per group or class "
        "(most articles first), or one for all: counts, list prices in the caller's view, stock. At a fixed "
        "cost: with a filter computed in the database; without, read off sums the gateway keeps and corrects "
        "by each article that changes.",
        permission_classes=[CanReadCatalogue],
    )
    async def article_statistics(
        self,
        info: strawberry.Info[Context],
        filter: ArticleFilterInput | None = None,
        group_by: Annotated[
            StatisticsGrouping | None, strawberry.argument(description="Buckets per this; null: one bucket.")
        ] = None,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> list[ArticleStatistics]:
        flt, prices = await _filter_in_view(info, filter, language, currency, customer_number)
        column = None if group_by is None else FacetColumn(group_by.value)
        reads = info.context.db.reads
        buckets = await answer(
            info,
            flt,
            prices,
            lambda whole: whole.statistics(column),
            (aggregates.statistics, flt, prices, column),
            lambda: aggregates.statistics(reads, flt, prices, column),
        )
        return [ArticleStatistics.of(bucket) for bucket in buckets]


async def _filter_in_view(
    info: strawberry.Info[Context],
    filter: ArticleFilterInput | None,
    language: str | None,
    currency: str | None,
    customer_number: str | None,
) -> tuple[ArticleFilter, PriceView]:
    """The filter and the price view of the caller (a customer's needs the shop scope)."""
    customer_allowed(info, customer_number)
    view = await resolve_view(
        info.context.db.reads, language=language, currency=currency, customer_number=customer_number
    )
    return article_filter(filter, view), PriceView(view.currency, view.price_list_ids)
