"""One article and the request's view of the catalogue, in one statement.

A single article's answer needs both: the article (with its designation in the output language) and the
view (the leading currency, the price lists, a customer's language and list type), which decides its prices.
Asked as two statements they were two round trips of a request that makes four; here the view's rows (one
per price list, datasources/catalogue/view.py) carry the article's columns, NULL when there is no such exposed
article. The article's statement is articles.by_number_query's, unchanged, as a subquery.
"""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import true

from datasources.catalogue import articles
from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.view import CatalogueView, ViewRequest, view_columns, view_of, view_statement
from datasources.models.article_order import GERMAN
from datasources.reads import Query, Reads


@lru_cache(maxsize=8)
def _query(language: str | None, customer: bool) -> Query:
    # `language` stands for its kind of statement (None, German, any other) as by_number_query tells them apart.
    article = articles.by_number_query(language).statement.subquery("article")
    stmt = view_statement(customer).add_columns(*article.c).outerjoin(article, true())
    return Query(stmt, record=ArticleRecord, lead=view_columns(customer))


def _kind(language: str | None) -> str | None:
    return language if language is None or language == GERMAN else ""  # "": any other, a parameter


async def article_with_view(
    reads: Reads, number: str, asked: ViewRequest, language: str | None
) -> tuple[ArticleRecord | None, CatalogueView]:
    """The exposed article `number` (None: there is none), with its designation when `language` (the output
    language) is given, and the view `asked` for."""
    customer = asked.customer_number is not None
    given: dict[str, str] = {"number": number}
    if customer:
        given["customer"] = str(asked.customer_number)
    if language is not None and language != GERMAN:
        given["language"] = language
    rows = await reads.rows(_query(_kind(language), customer), **given)
    view = view_of(asked, rows)
    lead = view_columns(customer)
    first = rows[0]
    return (ArticleRecord(*first[lead:]) if first[lead] is not None else None), view
