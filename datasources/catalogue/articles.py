"""Which articles are exposed, and finding, filtering, sorting and counting them.

A page costs what it holds: its rows are read in order from an index (ordering.py), one more than the page
so that whether more follow is known without counting, and the count is made only when asked for, from the
index of the exposing attribute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Integer, Select, String, bindparam, exists, func, null, select
from sqlalchemy.orm import aliased

from datasources import phkeys
from datasources.catalogue.change_log import position_of
from datasources.catalogue.filters import ArticleFilter as ArticleFilter  # the list's filter, where it always was
from datasources.catalogue.filters import FilterShape, condition_values, conditions
from datasources.catalogue.ordering import DEFAULT_SORT, Sort, listed, with_sort_keys
from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.view import DEFAULT_LANGUAGE
from datasources.models import Article, ArticleAttribute, ArticleChange, ArticleSortKey, TaxCode
from datasources.models.article_order import GERMAN
from datasources.reads import Query, Reads, Row, record_columns


@dataclass(frozen=True, slots=True)
class ArticleQuery:
    language: str = DEFAULT_LANGUAGE
    filter: ArticleFilter = field(default_factory=ArticleFilter)
    sort: tuple[Sort, ...] = DEFAULT_SORT
    limit: int | None = None
    offset: int = 0


_standard_rate = select(TaxCode.rate).where(TaxCode.is_standard).scalar_subquery()
_tax = aliased(TaxCode)


def is_exposed() -> ColumnElement[bool]:
    return exists().where(ArticleAttribute.article_id == Article.id, ArticleAttribute.key == phkeys.EXPOSED)


def _select_articles(designation: ColumnElement[Any] | Any) -> Select[*tuple[Any, ...]]:
    """The articles' columns as ArticleRecord has them, with `designation` as its ArtBez, of exposed and hidden
    ones alike: a page's order reads the exposure with its sort keys (ordering.listed), a single article the
    attribute's index (is_exposed)."""
    columns = record_columns(
        ArticleRecord,
        id=Article.id,
        number=Article.number,
        stock_managed=Article.stock_managed,
        status=Article.status,
        unit=Article.unit,
        colour=Article.colour,
        tax_rate=func.coalesce(_tax.rate, _standard_rate),
        group=Article.group,
        article_class=Article.article_class,
        procurement_type=Article.procurement_type,
        processing_type=Article.processing_type,
        weight=Article.weight,
        modified_at=Article.modified_at,
        designation=designation,
        change_position=position_of(),
    )
    return (
        select(*columns)
        .outerjoin(_tax, _tax.code == Article.tax_code)
        .outerjoin(ArticleChange, ArticleChange.article_id == Article.id)
    )


def _record(row: Row) -> ArticleRecord:
    return ArticleRecord(*row)  # the statement's columns are its fields, checked by Query(record=...)


def _by_number(language: str | BindParameter[str] | None) -> Query:
    """One article; with a language, with its ArtBez as output in it (its sort key, "" for none), as a page."""
    if language is None:
        stmt = _select_articles(null()).where(is_exposed())
    else:
        stmt = with_sort_keys(_select_articles(ArticleSortKey.designation).where(is_exposed()), language)
    return Query(stmt.where(Article.number == bindparam("number")), record=ArticleRecord)


_BY_NUMBER = _by_number(None)
_BY_NUMBER_IN_GERMAN = _by_number(GERMAN)
_BY_NUMBER_IN = _by_number(bindparam("language", type_=String()))


def by_number_query(language: str | None) -> Query:
    """article_by_number's statement for `language`; its parameters: `number`, and `language` unless that is
    None or German."""
    if language is None:
        return _BY_NUMBER
    return _BY_NUMBER_IN_GERMAN if language == GERMAN else _BY_NUMBER_IN


async def article_by_number(reads: Reads, number: str, language: str | None = None) -> ArticleRecord | None:
    """The exposed article `number`; with `language` (the output language), its designation read with it."""
    given = {} if language is None or language == GERMAN else {"language": language}
    rows = await reads.rows(by_number_query(language), number=number, **given)
    return _record(rows[0]) if rows else None


@dataclass(frozen=True, slots=True)
class FoundArticles:
    records: list[ArticleRecord]
    has_more: bool  # articles follow the page


async def find_articles(reads: Reads, query: ArticleQuery) -> FoundArticles:
    statement, params = page_query(query)
    rows = await reads.rows(statement, **params)
    if query.limit is None:
        return FoundArticles([_record(row) for row in rows], has_more=False)
    return FoundArticles([_record(row) for row in rows[: query.limit]], has_more=len(rows) > query.limit)


def page_query(query: ArticleQuery) -> tuple[Query, dict[str, Any]]:
    """The page's rows in order; with a limit, one row more: it tells whether another page follows. The
    statement is compiled once per kind of page (PageShape); the query's values are its parameters."""
    return _page_query(PageShape.of(query)), page_values(query)


async def article_numbers(reads: Reads, query: ArticleQuery) -> list[str]:
    """The ArtNr of the page's articles in order, one more with a limit, as one statement reads them at
    one moment: a list to be read in parts (`ArticleFilter.numbers`) that neither skips nor repeats an
    article another writer renames, adds or removes meanwhile, as pages by offset would."""
    statement, params = numbers_query(query)
    return [row[0] for row in await reads.rows(statement, **params)]


def numbers_query(query: ArticleQuery) -> tuple[Query, dict[str, Any]]:
    """The statement of `article_numbers` and its values."""
    return _numbers_query(PageShape.of(query)), page_values(query)


def page_values(query: ArticleQuery) -> dict[str, Any]:
    params = {**condition_values(query.filter), "offset": query.offset}
    if query.language != GERMAN:
        params["language"] = query.language
    if query.limit is not None:
        params["limit"] = query.limit + 1
    return params


def page_statement(query: ArticleQuery) -> Select[*tuple[Any, ...]]:
    """The page's statement with its values in place (to EXPLAIN it)."""
    statement, params = page_query(query)
    return statement.statement.params(**params)


@dataclass(frozen=True, slots=True)
class PageShape:
    """What makes the text of a page's statement: which filters, which sort, whether it is German, whether
    it has a limit. Their values are parameters."""

    filters: FilterShape
    sort: tuple[Sort, ...]
    german: bool
    limited: bool

    @property
    def scan(self) -> bool:
        """Whether its statement's cost grows with the table: a condition may read far past a page to fill it
        (a search, the availability of stock, a price or date); without a limit, all of it but for given
        numbers, which bound the rows by their list, at most a page (Query.small)."""
        return self.filters.scans or (not self.limited and not self.filters.numbers)

    @classmethod
    def of(cls, query: ArticleQuery) -> PageShape:
        return cls(FilterShape.of(query.filter), query.sort, query.language == GERMAN, query.limit is not None)


@lru_cache(maxsize=256)
def _page_query(shape: PageShape) -> Query:
    # With the designation as output in the language (its sort key, "" for none): the page's own ArtBez.
    return listing(_select_articles(ArticleSortKey.designation), shape, record=ArticleRecord)


@lru_cache(maxsize=256)
def _numbers_query(shape: PageShape) -> Query:
    return listing(select(Article.number), shape)


def listing(
    columns: Select[*tuple[Any, ...]],
    shape: PageShape,
    record: type | None = None,
    language: ColumnElement[str] | None = None,
) -> Query:
    """`columns` (over `article`) of the exposed articles of the page `shape` describes, in its order;
    `language`: the output language as an expression (a customer's, read by the statement), in place of
    German or the parameter `language`."""
    output: str | ColumnElement[str] = language if language is not None else GERMAN
    if language is None and not shape.german:
        output = bindparam("language", type_=String())
    stmt = listed(with_sort_keys(columns, output).where(*conditions(shape.filters)), shape.sort)
    return Query(paged(stmt, shape), scan=shape.scan, record=record)


def paged(stmt: Select[*tuple[Any, ...]], shape: PageShape) -> Select[*tuple[Any, ...]]:
    """`stmt` from the parameter `offset`, up to the parameter `limit` rows when the page has one."""
    stmt = stmt.offset(bindparam("offset", type_=Integer()))
    return stmt.limit(bindparam("limit", type_=Integer())) if shape.limited else stmt


async def count_articles(reads: Reads, query: ArticleQuery) -> int:
    rows = await reads.rows(_count_query(PageShape.of(query).filters), **condition_values(query.filter))
    return int(rows[0][0] or 0)


def count_statement(query: ArticleQuery) -> Select[*tuple[Any, ...]]:
    """The count's statement with its values in place (to EXPLAIN it)."""
    return _count_query(PageShape.of(query).filters).statement.params(**condition_values(query.filter))


@lru_cache(maxsize=256)
def _count_query(filters: FilterShape) -> Query:
    """From the attribute's index (key, article id) alone when nothing else is asked; each exposed article
    has the attribute once (it is part of the attribute's primary key)."""
    stmt = select(func.count()).select_from(ArticleAttribute).where(ArticleAttribute.key == phkeys.EXPOSED)
    given = conditions(filters)
    if given:
        stmt = stmt.join(Article, Article.id == ArticleAttribute.article_id).where(*given)
    return Query(stmt, scan=True)
