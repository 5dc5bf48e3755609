"""Catalogue queries: articles, one article, a media file."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

import strawberry

from datasources.catalogue import article_view, articles, media, ordering
from datasources.catalogue.articles import ArticleQuery
from datasources.catalogue.list_price import PriceView
from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.view import CatalogueView, ViewRequest, output_language, resolve_view
from datasources.errors import InvalidInput
from schema.catalogue.inputs import ArticleFilterInput, ArticleSortInput
from schema.catalogue.types import Article, ArticlePage, MediaContent
from schema.context import Context
from schema.permissions import CanReadCatalogue, Scope, require

LANGUAGE = "Output language (adrsprache), ISO 639-2/B; default ger. A customer's own language wins."
CURRENCY = "Currency of prices (waehrabk), ISO 4217; default the leading currency."
CUSTOMER = (
    "Customer number (debinr): selects the customer's price list and language. Needs the shop scope: a "
    "customer's prices, and whether a customer exists, are shop data."
)
CURRENCY_OF_FILTER = "Currency in which the filter's priceFrom and priceTo are read; default the leading currency."
PAGE = (
    "Page size; null: the largest page (GATEWAY_GRAPHQL_PAGE_SIZE, 1000 by default). totalCount says how many "
    "there are: page with offset."
)


def customer_allowed(info: strawberry.Info[Context], customer_number: str | None) -> None:
    if customer_number is not None:
        require(info.context.user, Scope.SHOP, "customerNumber needs the shop scope (customer prices are shop data)")


def _page_size(info: strawberry.Info[Context], limit: int | None) -> int | None:
    """A client's page is at most the configured size; the REST routes' own documents keep limit=0 = all."""
    if not info.context.client_document:
        return limit
    largest = info.context.document_limits.page_size
    if limit is None:
        return largest
    if limit > largest:
        raise InvalidInput(
            f"limit is at most {largest}: page with offset (totalCount says how many there are)",
            field="limit",
            info={"limit": largest},
        )
    return limit


def checked_page(
    info: strawberry.Info[Context],
    limit: int | None,
    offset: int,
    sort: list[ArticleSortInput] | None,
    customer_number: str | None,
) -> int | None:
    """The page's limit, once its arguments are checked (in this order: what the client may fix first)."""
    if limit is not None and limit < 0:
        raise InvalidInput("limit cannot be negative", field="limit")
    if offset < 0:
        raise InvalidInput("offset cannot be negative", field="offset")
    ordering.check_sort_keys(len(sort or ()), info.context.limits.sort_keys)
    customer_allowed(info, customer_number)
    return _page_size(info, limit)


def article_filter(filter: ArticleFilterInput | None, view: CatalogueView | None) -> articles.ArticleFilter:
    """The filter of `filter`, its prices read in `view` (the caller's, needed when it has a price)."""
    if filter is None:
        return articles.ArticleFilter()
    return filter.to_filter(None if view is None else PriceView(view.currency, view.price_list_ids))


def article_query(
    view: CatalogueView,
    filter: ArticleFilterInput | None,
    sort: list[ArticleSortInput] | None,
    limit: int | None,
    offset: int,
) -> ArticleQuery:
    return ArticleQuery(
        language=view.language,
        filter=article_filter(filter, view),
        sort=tuple(s.to_sort() for s in sort) if sort else ordering.DEFAULT_SORT,
        limit=limit,
        offset=offset,
    )


def prime_designations(info: strawberry.Info[Context], records: Iterable[ArticleRecord], language: str) -> None:
    """The designations read with the articles are the designation loader's answers; "" (none at all) and
    None (not read) are left to it."""
    designations = info.context.catalogue.designation
    for record in records:
        if record.designation:
            designations.prime((record.id, language), record.designation)


@strawberry.type
class CatalogueQuery:
    @strawberry.field(description="Exposed articles (ArtikelListe).", permission_classes=[CanReadCatalogue])
    async def articles(
        self,
        info: strawberry.Info[Context],
        filter: ArticleFilterInput | None = None,
        sort: list[ArticleSortInput] | None = None,
        limit: Annotated[int | None, strawberry.argument(description=PAGE)] = None,
        offset: int = 0,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> ArticlePage:
        limit = checked_page(info, limit, offset, sort, customer_number)
        reads = info.context.db.reads
        view = await resolve_view(reads, language=language, currency=currency, customer_number=customer_number)
        query = article_query(view, filter, sort, limit, offset)
        found = await articles.find_articles(reads, query)
        prime_designations(info, found.records, view.language)
        items = [Article.of(r, view) for r in found.records]
        return ArticlePage(items=items, has_next_page=found.has_more, query=query, view=view)

    @strawberry.field(
        description="The ArtNr of the exposed articles in the order of `articles` with the same arguments, "
        "one page of them, read at one moment: read the articles in parts with `filter: {numbers}`, and none "
        "is skipped or repeated when another writer renames, adds or removes articles meanwhile, as pages "
        "by offset may. The output language (ArtBez sorts in it) is decided as for `articles`.",
        permission_classes=[CanReadCatalogue],
    )
    async def article_numbers(
        self,
        info: strawberry.Info[Context],
        filter: ArticleFilterInput | None = None,
        sort: list[ArticleSortInput] | None = None,
        limit: Annotated[int | None, strawberry.argument(description=PAGE)] = None,
        offset: int = 0,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY_OF_FILTER)] = None,
    ) -> list[str]:
        limit = checked_page(info, limit, offset, sort, customer_number)
        reads = info.context.db.reads
        if customer_number is None and not (filter and filter.priced):
            view = CatalogueView(output_language(language), currency or "", ())  # no price is read
        else:  # the customer's own language wins; a price filter reads the caller's price lists
            view = await resolve_view(reads, language=language, currency=currency, customer_number=customer_number)
        query = article_query(view, filter, sort, limit, offset)
        numbers = await articles.article_numbers(reads, query)
        return numbers[:limit]  # the data layer reads one more: whether more follow

    @strawberry.field(
        description="One exposed article (Artikel) by ArtNr; null when there is none.",
        permission_classes=[CanReadCatalogue],
    )
    async def article(
        self,
        info: strawberry.Info[Context],
        number: str,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> Article | None:
        customer_allowed(info, customer_number)
        asked = ViewRequest.of(language, currency, customer_number)
        # The article (with its designation, unless a customer's language decides) and the view, in one
        # statement (datasources/catalogue/article_view.py).
        known_language = asked.language if customer_number is None else None
        record, view = await article_view.article_with_view(info.context.db.reads, number, asked, known_language)
        if record is None:
            return None
        prime_designations(info, (record,), view.language)
        return Article.of(record, view)

    @strawberry.field(
        description="The image or text of a media record (ArtikelMediaDaten). `kind` is Bild, Text or "
        "one of the record's formats; without it, the image where there is one, else the text.",
        permission_classes=[CanReadCatalogue],
    )
    async def media_content(self, info: strawberry.Info[Context], id: int, kind: str | None = None) -> MediaContent:
        return MediaContent.of(await media.media_file(info.context.db.reads, id, kind))
