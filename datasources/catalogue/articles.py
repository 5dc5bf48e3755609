"""Which articles are exposed, and finding, filtering, sorting and counting them.

A page costs what it holds: its rows are read in order from an index (ordering.py), one more than the page
so that whether more follow is known without counting, and the count is made only when asked for, from the
index of the exposing attribute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Integer, Select, String, bindparam, exists, func, select
from sqlalchemy.orm import aliased

from datasources.catalogue.ordering import DEFAULT_SORT, Sort, ordered, with_sort_keys
from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.search import SearchKind, search_condition, search_kind, search_values
from datasources.catalogue.stock import has_available_stock
from datasources.catalogue.view import DEFAULT_LANGUAGE
from datasources.errors import InvalidInput
from datasources.models import Article, ArticleAttribute, ArticleSortKey, TaxCode
from datasources.models.article_order import GERMAN
from datasources.reads import Query, Reads, Row, values_in

EXPOSED_ATTRIBUTE = "RESTWEBSHOP"
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

    def __post_init__(self) -> None:
        if self.search is not None and len(self.search) > MAX_SEARCH_LENGTH:
            raise InvalidInput(f"search has at most {MAX_SEARCH_LENGTH} characters", field="filter.search")


@dataclass(frozen=True, slots=True)
class ArticleQuery:
    language: str = DEFAULT_LANGUAGE
    filter: ArticleFilter = field(default_factory=ArticleFilter)
    sort: tuple[Sort, ...] = DEFAULT_SORT
    limit: int | None = None
    offset: int = 0


_standard_rate = select(TaxCode.rate).where(TaxCode.is_standard).scalar_subquery()
_tax = aliased(TaxCode)
_COLUMNS = (
    Article.id,
    Article.number,
    Article.stock_managed,
    Article.status,
    Article.unit,
    Article.colour,
    func.coalesce(_tax.rate, _standard_rate).label("tax_rate"),
    Article.group,
    Article.article_class,
    Article.procurement_type,
    Article.processing_type,
    Article.weight,
    Article.modified_at,
)


def is_exposed() -> ColumnElement[bool]:
    return exists().where(ArticleAttribute.article_id == Article.id, ArticleAttribute.key == EXPOSED_ATTRIBUTE)


def _select_articles() -> Select[*tuple[Any, ...]]:
    return select(*_COLUMNS).outerjoin(_tax, _tax.code == Article.tax_code).where(is_exposed())


def _record(row: Row) -> ArticleRecord:
    return ArticleRecord(*row)


def _by_number(language: str | BindParameter[str] | None) -> Query:
    """One article; with a language, with its ArtBez as output in it (its sort key, "" for none), as a page."""
    stmt = _select_articles()
    if language is not None:
        stmt = with_sort_keys(stmt.add_columns(ArticleSortKey.designation), language)
    return Query(stmt.where(Article.number == bindparam("number")))


_BY_NUMBER = _by_number(None)
_BY_NUMBER_IN_GERMAN = _by_number(GERMAN)
_BY_NUMBER_IN = _by_number(bindparam("language", type_=String()))


async def article_by_number(reads: Reads, number: str, language: str | None = None) -> ArticleRecord | None:
    """The exposed article `number`; with `language` (the output language), its designation read with it."""
    if language is None:
        rows = await reads.rows(_BY_NUMBER, number=number)
    elif language == GERMAN:
        rows = await reads.rows(_BY_NUMBER_IN_GERMAN, number=number)
    else:
        rows = await reads.rows(_BY_NUMBER_IN, number=number, language=language)
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
    statement is compiled once per kind of page (_Shape); the query's values are its parameters."""
    return _page_query(_Shape.of(query)), _page_values(query)


async def article_numbers(reads: Reads, query: ArticleQuery) -> list[str]:
    """The ArtNr of the page's articles in order, one more with a limit, as one statement reads them at
    one moment: a list to be read in parts (`ArticleFilter.numbers`) that neither skips nor repeats an
    article another writer renames, adds or removes meanwhile, as pages by offset would."""
    statement, params = numbers_query(query)
    return [row[0] for row in await reads.rows(statement, **params)]


def numbers_query(query: ArticleQuery) -> tuple[Query, dict[str, Any]]:
    """The statement of `article_numbers` and its values."""
    return _numbers_query(_Shape.of(query)), _page_values(query)


def _page_values(query: ArticleQuery) -> dict[str, Any]:
    params = {**_condition_values(query.filter), "offset": query.offset}
    if query.language != GERMAN:
        params["language"] = query.language
    if query.limit is not None:
        params["limit"] = query.limit + 1
    return params


def page_statement(query: ArticleQuery) -> Select[*tuple[Any, ...]]:
    """The page's statement with its values in place (to EXPLAIN it)."""
    statement, params = page_query(query)
    return statement.statement.params(**params)


# Which filters a page has: group and class given; how a search is made, if any; available wanted or not;
# numbers given.
_Filters = tuple[bool, bool, SearchKind | None, bool | None, bool]


@dataclass(frozen=True, slots=True)
class _Shape:
    """What makes the text of a page's statement: which filters, which sort, whether it is German, whether
    it has a limit. Their values are parameters."""

    filters: _Filters
    sort: tuple[Sort, ...]
    german: bool
    limited: bool

    @classmethod
    def of(cls, query: ArticleQuery) -> _Shape:
        flt = query.filter
        given = (
            flt.group is not None,
            flt.article_class is not None,
            search_kind(flt.search) if flt.search else None,
            flt.available,
            flt.numbers is not None,
        )
        return cls(given, query.sort, query.language == GERMAN, query.limit is not None)


@lru_cache(maxsize=256)
def _page_query(shape: _Shape) -> Query:
    # With the designation as output in the language (its sort key, "" for none): the page's own ArtBez.
    return _listing(_select_articles().add_columns(ArticleSortKey.designation), shape)


@lru_cache(maxsize=256)
def _numbers_query(shape: _Shape) -> Query:
    return _listing(select(Article.number).where(is_exposed()), shape)


def _listing(columns: Select[*tuple[Any, ...]], shape: _Shape) -> Query:
    """`columns` (of exposed articles) of the page `shape` describes, in its order."""
    language: str | BindParameter[str] = GERMAN if shape.german else bindparam("language", type_=String())
    stmt = ordered(with_sort_keys(columns, language).where(*_conditions(shape.filters)), shape.sort)
    stmt = stmt.offset(bindparam("offset", type_=Integer()))
    search, available, numbers = shape.filters[2:]
    # A search, or the availability of stock, may read far past the page to fill it; given numbers bound
    # the rows by their list, which is at most a page (Query.small).
    filtered = search is not None or available is not None
    if not shape.limited:
        return Query(stmt, scan=filtered or not numbers)  # without numbers: the whole list
    return Query(stmt.limit(bindparam("limit", type_=Integer())), scan=filtered)


async def count_articles(reads: Reads, query: ArticleQuery) -> int:
    rows = await reads.rows(_count_query(_Shape.of(query).filters), **_condition_values(query.filter))
    return int(rows[0][0] or 0)


def count_statement(query: ArticleQuery) -> Select[*tuple[Any, ...]]:
    """The count's statement with its values in place (to EXPLAIN it)."""
    return _count_query(_Shape.of(query).filters).statement.params(**_condition_values(query.filter))


@lru_cache(maxsize=128)  # every combination of filters (72)
def _count_query(filters: _Filters) -> Query:
    """From the attribute's index (key, article id) alone when nothing else is asked; each exposed article
    has the attribute once (it is part of the attribute's primary key)."""
    stmt = select(func.count()).select_from(ArticleAttribute).where(ArticleAttribute.key == EXPOSED_ATTRIBUTE)
    conditions = _conditions(filters)
    if conditions:
        stmt = stmt.join(Article, Article.id == ArticleAttribute.article_id).where(*conditions)
    return Query(stmt, scan=True)


def _conditions(filters: _Filters) -> list[ColumnElement[bool]]:
    group, article_class, search, available, numbers = filters
    conditions: list[ColumnElement[bool]] = []
    if group:
        conditions.append(Article.group == bindparam("group"))
    if article_class:
        conditions.append(Article.article_class == bindparam("article_class"))
    if search:
        conditions.append(search_condition(search))
    if available is not None:
        positive = has_available_stock(Article.id)
        conditions.append(positive if available else ~positive)
    if numbers:
        conditions.append(values_in(Article.number, "numbers"))
    return conditions


def _condition_values(flt: ArticleFilter) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if flt.group is not None:
        values["group"] = flt.group
    if flt.article_class is not None:
        values["article_class"] = flt.article_class
    if flt.search:
        values.update(search_values(flt.search))
    if flt.numbers is not None:
        values["numbers"] = flt.numbers
    return values
