"""The versions of the catalogue's answers, without the answers (datasources/catalogue/versions.py).

Beside each catalogue field whose answer a client keeps, a root field named after it with `Version` and the
same arguments gives the `version` that answer would hold now (`articlesVersion(...)` is `articles(...)
{ version }`), from one indexed statement and without building the answer: a client holding an answer
learns whether it is still current. GET /www/artikel, /www/artikel/{ArtNr} and /www/artikelmedia... ask them
for If-None-Match, and GET /graphql for a query of these fields (gateway/graphql_view.py rewrites the query
into its twins: schema/conditional.py). The twins check their arguments and permissions as their fields do.
"""

from __future__ import annotations

from typing import Annotated

import strawberry

from datasources.catalogue import versions
from datasources.catalogue.articles import ArticleQuery
from datasources.catalogue.view import CatalogueView, ViewRequest, resolve_asked
from schema.catalogue.inputs import ArticleFilterInput, ArticleSortInput
from schema.catalogue.queries import CURRENCY, CUSTOMER, LANGUAGE, PAGE, article_query, checked_page, customer_allowed
from schema.context import Context
from schema.permissions import CanReadCatalogue

SUFFIX = "Version"  # a field's twin is named after it: articles -> articlesVersion
KIND = "As mediaContent's; the version is the record's, whichever of its files is asked for."


def _query(
    asked: ViewRequest,
    filter: ArticleFilterInput | None,
    sort: list[ArticleSortInput] | None,
    limit: int | None,
    offset: int,
) -> ArticleQuery:
    """The page's query before its view is read: the filter reads no price, the language is the one asked."""
    return article_query(CatalogueView(asked.language, asked.currency or "", ()), filter, sort, limit, offset)


@strawberry.type
class CatalogueVersionQuery:
    @strawberry.field(
        description="The version `articles` with the same arguments would have (ArticlePage.version), read "
        "without the page: whether a page held is still current.",
        permission_classes=[CanReadCatalogue],
    )
    async def articles_version(
        self,
        info: strawberry.Info[Context],
        filter: ArticleFilterInput | None = None,
        sort: list[ArticleSortInput] | None = None,
        limit: Annotated[int | None, strawberry.argument(description=PAGE)] = None,
        offset: int = 0,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> str:
        limit = checked_page(info, limit, offset, sort, customer_number)
        reads = info.context.db.reads
        asked = ViewRequest.of(language, currency, customer_number)
        if filter is not None and filter.priced:  # the filter reads prices in the view's lists: the view first
            view = await resolve_asked(reads, asked)
            return await versions.page_version_in(reads, article_query(view, filter, sort, limit, offset), view)
        return await versions.page_version(reads, _query(asked, filter, sort, limit, offset), asked)

    @strawberry.field(
        description="The version `article` with the same arguments would have (Article.version), read without "
        "the article; null when there is no such exposed article.",
        permission_classes=[CanReadCatalogue],
    )
    async def article_version(
        self,
        info: strawberry.Info[Context],
        number: str,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> str | None:
        customer_allowed(info, customer_number)
        asked = ViewRequest.of(language, currency, customer_number)
        return await versions.article_version(info.context.db.reads, number, asked)

    @strawberry.field(
        description="The version `mediaContent` with the same arguments would have (MediaContent.version), "
        "read without the file; null when there is no such media record of an exposed article.",
        permission_classes=[CanReadCatalogue],
    )
    async def media_content_version(
        self,
        info: strawberry.Info[Context],
        id: int,
        kind: Annotated[str | None, strawberry.argument(description=KIND)] = None,
    ) -> str | None:
        return await versions.media_version(info.context.db.reads, id)
