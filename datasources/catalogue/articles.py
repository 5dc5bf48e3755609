"""Which articles are exposed, and finding, filtering, sorting and counting them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.stock import has_available_stock
from datasources.catalogue.view import DEFAULT_LANGUAGE
from datasources.errors import InvalidInput
from datasources.models import Article, ArticleAttribute, ArticleDesignation, TaxCode

EXPOSED_ATTRIBUTE = "RESTWEBSHOP"
# A search text longer than any designation (varchar(255)) cannot match; SQLite also refuses LIKE
# patterns over 50,000 bytes ("LIKE or GLOB pattern too complex").
MAX_SEARCH_LENGTH = 255


class SortField(Enum):
    NUMBER = "number"
    DESIGNATION = "designation"
    GROUP = "group"
    ARTICLE_CLASS = "article_class"
    UNIT = "unit"
    STATUS = "status"
    COLOUR = "colour"
    STOCK_MANAGED = "stock_managed"
    PROCUREMENT_TYPE = "procurement_type"
    PROCESSING_TYPE = "processing_type"
    WEIGHT = "weight"
    TAX_RATE = "tax_rate"
    MODIFIED_AT = "modified_at"


@dataclass(frozen=True, slots=True)
class Sort:
    field: SortField
    descending: bool = False


@dataclass(frozen=True, slots=True)
class ArticleFilter:
    group: str | None = None
    article_class: str | None = None
    search: str | None = None  # part of the number or of the designation, case-insensitive
    available: bool | None = None  # True: positive stock in released warehouses

    def __post_init__(self) -> None:
        if self.search is not None and len(self.search) > MAX_SEARCH_LENGTH:
            raise InvalidInput(f"search has at most {MAX_SEARCH_LENGTH} characters", field="filter.search")


DEFAULT_SORT = (Sort(SortField.DESIGNATION),)  # +ArtBez, as the specification says


def check_sort_keys(count: int, limit: int) -> None:
    """More keys than the limit would only add work (SQLite refuses ORDER BY past 2,000 terms)."""
    if count > limit:
        raise InvalidInput(f"at most {limit} sort keys", field="sort", info={"limit": limit})


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


async def find_articles(session: AsyncSession, query: ArticleQuery) -> list[ArticleRecord]:
    stmt = _select_articles().where(*_conditions(query))
    if any(s.field is SortField.DESIGNATION for s in query.sort):
        designation, stmt = _join_designation(stmt, query.language)
    else:
        designation = None
    stmt = stmt.order_by(*_order_by(query.sort, designation), Article.number).offset(query.offset)
    if query.limit is not None:
        stmt = stmt.limit(query.limit)
    return [_record(row) for row in await session.execute(stmt)]


async def count_articles(session: AsyncSession, query: ArticleQuery) -> int:
    stmt = select(func.count()).select_from(Article).where(is_exposed(), *_conditions(query))
    return int(await session.scalar(stmt) or 0)


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


def _join_designation(
    stmt: Select[*tuple[Any, ...]], language: str
) -> tuple[ColumnElement[str], Select[*tuple[Any, ...]]]:
    asked = aliased(ArticleDesignation)
    stmt = stmt.outerjoin(asked, and_(asked.article_id == Article.id, asked.language == language))
    if language == DEFAULT_LANGUAGE:
        # The fallback is German too: a second join would sort the whole catalogue for nothing.
        return func.coalesce(asked.text, ""), stmt
    fallback = aliased(ArticleDesignation)
    stmt = stmt.outerjoin(fallback, and_(fallback.article_id == Article.id, fallback.language == DEFAULT_LANGUAGE))
    return func.coalesce(asked.text, fallback.text, ""), stmt


def _order_by(sorts: Sequence[Sort], designation: ColumnElement[str] | None) -> list[ColumnElement[Any]]:
    columns: dict[SortField, Any] = {  # columns and attributes of several types
        SortField.NUMBER: Article.number,
        SortField.GROUP: Article.group,
        SortField.ARTICLE_CLASS: Article.article_class,
        SortField.UNIT: Article.unit,
        SortField.STATUS: Article.status,
        SortField.COLOUR: Article.colour,
        SortField.STOCK_MANAGED: Article.stock_managed,
        SortField.PROCUREMENT_TYPE: Article.procurement_type,
        SortField.PROCESSING_TYPE: Article.processing_type,
        SortField.WEIGHT: Article.weight,
        SortField.TAX_RATE: func.coalesce(_tax.rate, _standard_rate),
        SortField.MODIFIED_AT: Article.modified_at,
    }
    order: list[ColumnElement[Any]] = []
    for sort in sorts:
        column = designation if sort.field is SortField.DESIGNATION else columns[sort.field]
        assert column is not None
        # NULLs sort first ascending on both databases (PostgreSQL would put them last).
        order.append(column.desc().nulls_last() if sort.descending else column.asc().nulls_first())
    return order
