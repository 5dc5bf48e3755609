"""The order of the article list: sort keys, and the ORDER BY an index serves.

Every single-key sort, in either direction, is served by an index that leads with the exposure and holds
ties in ArtNr order (datasources/models/article_order.py): a page reads the exposed articles in order and
stops after them, however few of the catalogue's articles are exposed. ArtBez and the tax rate come from
`article_sort_key`, the rows of the output language; the other keys from `article_listing`. The exposure is
read from the table whose index orders the walk (the first key's); with several keys, the database sorts
only the ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlalchemy import ColumnElement, Select, Subquery, and_, func, select
from sqlalchemy.orm import InstrumentedAttribute

from datasources.errors import InvalidInput
from datasources.models import Article, ArticleListing, ArticleSortKey, ArticleSortLanguage
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


# Keys kept per article and language in article_sort_key; the others are copies in article_listing.
_KEYED: dict[SortField, InstrumentedAttribute[Any]] = {
    SortField.DESIGNATION: ArticleSortKey.designation,
    SortField.TAX_RATE: ArticleSortKey.tax_rate,
}


def with_sort_keys(stmt: Select[*tuple[Any, ...]], language: str | ColumnElement[str]) -> Select[*tuple[Any, ...]]:
    """`stmt` (over `article`) joined with each article's keys as output in `language` (the language, or the
    parameter or expression that will hold it): one row per article, every article has keys in the language
    read."""
    return stmt.join(
        ArticleSortKey,
        and_(ArticleSortKey.article_id == Article.id, ArticleSortKey.language == _sort_language(language)),
    )


def listed(stmt: Select[*tuple[Any, ...]], sorts: Sequence[Sort]) -> Select[*tuple[Any, ...]]:
    """`stmt` (over `article` with_sort_keys): its exposed articles in the order of `sorts`, ties broken by
    ArtNr ascending."""
    walked = _walked(sorts)
    stmt = stmt.join(ArticleListing, ArticleListing.article_id == Article.id)
    return stmt.where(walked.exposed).order_by(*(_term(column, sort) for column, sort in _keys(sorts)))


def walk(
    sorts: Sequence[Sort], language: str | ColumnElement[str], conditions: Sequence[ColumnElement[bool]] = ()
) -> Select[*tuple[Any, ...]]:
    """The ids (`id`) of the exposed articles that meet `conditions` (on `article`) in the order of `sorts`, as
    `listed` gives them, read from the index the first key walks and the other order table only where a key
    is there: `article` only for conditions, so that the rows a page's offset passes cost nothing but the
    walk. Its keys come out too, as key0, key1, ...: `in_order` orders a statement over it (a subquery, with
    its limit and offset) as it is ordered."""
    walked = _walked(sorts)
    keys = _keys(sorts)
    stmt = select(walked.article_id.label("id"), *(column.label(f"key{i}") for i, (column, _) in enumerate(keys)))
    language_read = ArticleSortKey.language == _sort_language(language)
    if walked is ArticleSortKey:
        stmt = stmt.where(language_read)
    elif any(sort.field in _KEYED for sort in sorts):
        stmt = stmt.join(ArticleSortKey, and_(ArticleSortKey.article_id == walked.article_id, language_read))
    if walked is ArticleSortKey and any(sort.field not in _KEYED for sort in sorts):
        stmt = stmt.join(ArticleListing, ArticleListing.article_id == walked.article_id)
    if conditions:
        stmt = stmt.join(Article, Article.id == walked.article_id).where(*conditions)
    return stmt.where(walked.exposed).order_by(*(_term(column, sort) for column, sort in keys))


def in_order(walked: Subquery, sorts: Sequence[Sort]) -> list[ColumnElement[Any]]:
    """The ORDER BY of a statement over `walk(sorts, ...)` as a subquery: the order it was walked in."""
    return [_term(column, sort, walked.c[f"key{i}"]) for i, (column, sort) in enumerate(_keys(sorts))]


def _walked(sorts: Sequence[Sort]) -> type[ArticleSortKey] | type[ArticleListing]:
    """The table whose index the first key walks (it holds the exposure)."""
    return ArticleSortKey if sorts and sorts[0].field in _KEYED else ArticleListing


def _keys(sorts: Sequence[Sort]) -> list[tuple[InstrumentedAttribute[Any], Sort]]:
    """The ORDER BY's columns and their directions: the sorts', then the ArtNr copy of the walked table for
    the ties, which its index holds."""
    keys = [(_KEYED.get(sort.field) or getattr(ArticleListing, sort.field.value), sort) for sort in sorts]
    if all(sort.field is not SortField.NUMBER for sort in sorts):
        keys.append((_walked(sorts).number, Sort(SortField.NUMBER)))
    return keys


def _sort_language(language: str | ColumnElement[str]) -> ColumnElement[str] | str:
    """The language whose keys to read: `language` where the keys have rows in it, else German (every
    article falls back to its German text in a language no designation was ever written in)."""
    if isinstance(language, str) and language == GERMAN:
        return GERMAN
    listed = select(ArticleSortLanguage.language).where(ArticleSortLanguage.language == language)
    return func.coalesce(listed.scalar_subquery(), GERMAN)


def _term(
    column: InstrumentedAttribute[Any], sort: Sort, value: ColumnElement[Any] | None = None
) -> ColumnElement[Any]:
    """`column` (or `value`, a copy of it) in the direction of `sort`."""
    ordered: ColumnElement[Any] = column.expression if value is None else value
    if not column.expression.nullable:
        # Without NULLs the words change nothing, and an index of a NOT NULL column needs none of them.
        return ordered.desc() if sort.descending else ordered.asc()
    # NULLs first ascending, last descending, on both databases (PostgreSQL's own default is the reverse).
    return ordered.desc().nulls_last() if sort.descending else ordered.asc().nulls_first()
