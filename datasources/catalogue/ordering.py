"""The order of the article list: sort keys, and the ORDER BY an index serves.

Every single-key sort, in either direction, is served by an index holding ties in ArtNr order
(datasources/models/article_order.py): a page reads its rows in order and stops after them. ArtBez and the
tax rate come from `article_sort_key`, the rows of the output language; the other keys are columns of
`article`. With several keys, the first one's index orders the walk and the database sorts only the ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Select, and_, func, select
from sqlalchemy.orm import InstrumentedAttribute

from datasources.errors import InvalidInput
from datasources.models import Article, ArticleSortKey, ArticleSortLanguage
from datasources.models.article_order import GERMAN


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


DEFAULT_SORT = (Sort(SortField.DESIGNATION),)  # +ArtBez, as the specification says


def check_sort_keys(count: int, limit: int) -> None:
    """More keys than the limit would only add work (SQLite refuses ORDER BY past 2,000 terms)."""
    if count > limit:
        raise InvalidInput(f"at most {limit} sort keys", field="sort", info={"limit": limit})


# Keys kept per article and language in article_sort_key; the others are columns of article.
_KEYED: dict[SortField, InstrumentedAttribute[Any]] = {
    SortField.DESIGNATION: ArticleSortKey.designation,
    SortField.TAX_RATE: ArticleSortKey.tax_rate,
}


def with_sort_keys(stmt: Select[*tuple[Any, ...]], language: str | BindParameter[str]) -> Select[*tuple[Any, ...]]:
    """`stmt` (over `article`) joined with each article's keys as output in `language` (the language, or the
    parameter that will hold it): one row per article, every article has keys in the language read."""
    return stmt.join(
        ArticleSortKey,
        and_(ArticleSortKey.article_id == Article.id, ArticleSortKey.language == _sort_language(language)),
    )


def ordered(stmt: Select[*tuple[Any, ...]], sorts: Sequence[Sort]) -> Select[*tuple[Any, ...]]:
    """`stmt` (over `article` with_sort_keys) in the order of `sorts`, ties broken by ArtNr ascending."""
    # The tie-break is the ArtNr copy of the table whose index orders the walk.
    number = ArticleSortKey.number if sorts and sorts[0].field in _KEYED else Article.number
    order = [_term(sort) for sort in sorts]
    if all(sort.field is not SortField.NUMBER for sort in sorts):
        order.append(number.asc())
    return stmt.order_by(*order)


def _sort_language(language: str | BindParameter[str]) -> ColumnElement[str] | str:
    """The language whose keys to read: `language` where the keys have rows in it, else German (every
    article falls back to its German text in a language no designation was ever written in)."""
    if isinstance(language, str) and language == GERMAN:
        return GERMAN
    listed = select(ArticleSortLanguage.language).where(ArticleSortLanguage.language == language)
    return func.coalesce(listed.scalar_subquery(), GERMAN)


def _term(sort: Sort) -> ColumnElement[Any]:
    column: InstrumentedAttribute[Any] = _KEYED.get(sort.field) or getattr(Article, sort.field.value)
    if not column.expression.nullable:
        # Without NULLs the words change nothing, and an index of a NOT NULL column needs none of them.
        return column.desc() if sort.descending else column.asc()
    # NULLs first ascending, last descending, on both databases (PostgreSQL's own default is the reverse).
    return column.desc().nulls_last() if sort.descending else column.asc().nulls_first()
