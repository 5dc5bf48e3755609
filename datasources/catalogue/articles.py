"""Which articles are exposed, and finding, filtering, sorting and counting them.

A page costs what it holds: its rows are read in order from an index (ordering.py), one more than the page
so that whether more follow is known without counting, and the count is made only when asked for, from the
index of the exposing attribute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Select, exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from datasources.catalogue.ordering import DEFAULT_SORT, Sort, ordered
from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.stock import has_available_stock
from datasources.catalogue.view import DEFAULT_LANGUAGE
from datasources.errors import InvalidInput
from datasources.models import Article, ArticleAttribute, ArticleDesignation, TaxCode

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


def _record(row: object) -> ArticleRecord:
    return ArticleRecord(**row._mapping)  # type: ignore[attr-defined]


async def article_by_number(session: AsyncSession, number: str) -> ArticleRecord | None:
    row = (await session.execute(_select_articles().where(Article.number == number))).one_or_none()
    return None if row is None else _record(row)


@dataclass(frozen=True, slots=True)
class FoundArticles:
    records: list[ArticleRecord]
    has_more: bool  # articles follow the page


async def find_articles(session: AsyncSession, query: ArticleQuery) -> FoundArticles:
    rows = (await session.execute(page_statement(query))).all()
    if query.limit is None:
        return FoundArticles([_record(row) for row in rows], has_more=False)
    return FoundArticles([_record(row) for row in rows[: query.limit]], has_more=len(rows) > query.limit)


def page_statement(query: ArticleQuery) -> Select[*tuple[Any, ...]]:
    """The page's rows in order; with a limit, one row more: it tells whether another page follows."""
    stmt = ordered(_select_articles().where(*_conditions(query)), query.sort, query.language).offset(query.offset)
    return stmt if query.limit is None else stmt.limit(query.limit + 1)


async def count_articles(session: AsyncSession, query: ArticleQuery) -> int:
    return int(await session.scalar(count_statement(query)) or 0)


def count_statement(query: ArticleQuery) -> Select[int]:
    """From the attribute's index (key, article id) alone when nothing else is asked; each exposed article
    has the attribute once (it is part of the attribute's primary key)."""
    stmt = select(func.count()).select_from(ArticleAttribute).where(ArticleAttribute.key == EXPOSED_ATTRIBUTE)
    conditions = _conditions(query)
    if conditions:
        stmt = stmt.join(Article, Article.id == ArticleAttribute.article_id).where(*conditions)
    return stmt


def _conditions(query: ArticleQuery) -> list[ColumnElement[bool]]:
    flt = query.filter
    conditions: list[ColumnElement[bool]] = []
    if flt.group is not None:
        conditions.append(Article.group == flt.group)
    if flt.article_class is not None:
        conditions.append(Article.article_class == flt.article_class)
    if flt.search:
        pattern = f"%{_escape_like(flt.search.strip().lower())}%"
        in_designation = exists().where(
            ArticleDesignation.article_id == Article.id,
            func.lower(ArticleDesignation.text).like(pattern, escape="\\"),
        )
        conditions.append(or_(func.lower(Article.number).like(pattern, escape="\\"), in_designation))
    if flt.available is not None:
        positive = has_available_stock(Article.id)
        conditions.append(positive if flt.available else ~positive)
    return conditions


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
