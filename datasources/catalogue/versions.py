"""Versions of the catalogue's answers: short texts that change when what an answer holds changes, so that a
client holding an answer learns whether it is still current (HTTP's ETag and 304) without its being built.

A version is a digest of the view the answer is shown in (CatalogueView.key: its language, its currency and
the customer's price list type, which move no article) and of the change positions of the articles it holds,
in its order (datasources/models/article_change.py: triggers move an article's position on every change of
what its answer holds, whoever writes, the ERP on its own connection too), and for a page whether more
articles follow it. So a page's version changes when an article enters, leaves or changes within it, and
not when another article changes; an article's only when it changes.

The answers' own reads give their version: the positions are read with the articles (ArticleRecord
.change_position) and the view beside them. `page_version`, `article_version` and `media_version` find the
same version without the answer, in one indexed statement each that reads the view's values too (only
when it finds no article is the view read by a statement of its own, which refuses an unknown customer as
the answer would).

Read with an answer's first statement, or before it, a version is never newer than its answer: a change
between the two gives the client an older version with a newer answer, and the next request sends that
answer again.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Select, String, bindparam, select

from datasources.catalogue.articles import ArticleQuery, PageShape, is_exposed, page_values, paged
from datasources.catalogue.change_log import position_of
from datasources.catalogue.filters import conditions
from datasources.catalogue.ordering import in_order, walk
from datasources.catalogue.records import ArticleRecord
from datasources.catalogue.view import LEADING, CatalogueView, ViewRequest, resolve_asked
from datasources.models import Article, ArticleChange, Customer, Media
from datasources.models.article_order import GERMAN
from datasources.reads import Query, Reads, Row

ViewKey = tuple[Any, ...]
NO_POSITION = -1  # an exposed article always has one; a row written around the triggers might not


def digest(key: ViewKey, entries: Sequence[Sequence[Any]], more: bool = False) -> str:
    """The version of an answer shown in the view `key` that holds the articles `entries` ((id, change
    position, ...), in the answer's order); `more`: articles follow (a page's `next` link)."""
    hashed = hashlib.blake2b(repr((key, more, len(entries))).encode(), digest_size=16)
    # As 64-bit integers: a page's hundreds of them are hashed in microseconds (their repr took 100).
    hashed.update(array("q", [entry[0] for entry in entries]).tobytes())
    hashed.update(array("q", [NO_POSITION if entry[1] is None else entry[1] for entry in entries]).tobytes())
    return hashed.hexdigest()


def records_version(view: CatalogueView, records: Iterable[ArticleRecord], more: bool = False) -> str:
    """The version of an answer made of `records` (read with their positions) in `view`."""
    return digest(view.key, [(record.id, record.change_position) for record in records], more)


def media_digest(media_id: int, article_id: int, position: int | None) -> str:
    """The version of a media record's file: its record and its article move the article's position."""
    return digest(("media", media_id), [(article_id, position)])


# --- without the answer: one statement ------------------------------------------------------------------

_CUSTOMER = bindparam("customer", type_=String())


def _of_customer(column: Any) -> ColumnElement[Any]:
    return select(column).where(Customer.number == _CUSTOMER).scalar_subquery()


def _view_columns(customer: bool) -> list[ColumnElement[Any]]:
    """What ViewRequest.key reads beside the articles: the leading currency; with a customer, the customer's
    number (NULL: no such customer), language and price list type. Each is read once per statement."""
    columns: list[ColumnElement[Any]] = [LEADING]
    if customer:
        columns += [_of_customer(Customer.number), _of_customer(Customer.language)]
        columns.append(_of_customer(Customer.price_list_type))
    return columns


def _positions(*view: ColumnElement[Any]) -> Any:
    return select(Article.id, position_of(), *view).outerjoin(ArticleChange, ArticleChange.article_id == Article.id)


def _walk(shape: PageShape, customer: bool) -> Select[*tuple[Any, ...]]:
    language: str | ColumnElement[str] = GERMAN if shape.german else bindparam("language", type_=String())
    if customer:
        language = _of_customer(Customer.language)
    return paged(walk(shape.sort, language, conditions(shape.filters)), shape)


def walk_statement(query: ArticleQuery) -> Select[*tuple[Any, ...]]:
    """The walk of a page's version statement with its values in place (to EXPLAIN it)."""
    return _walk(PageShape.of(query), False).params(**page_values(query))


@lru_cache(maxsize=256)
def _page_versions(shape: PageShape, customer: bool, with_view: bool) -> Query:
    """The page's (id, position) rows in its order, one more with a limit, and the view's values with each;
    with a customer, ordered in the customer's language, as the page the customer's view reads. The page's
    ids are walked from the order's index alone (ordering.walk), the positions read for them only: the rows
    its offset passes cost nothing else."""
    page = _walk(shape, customer).subquery("page")
    stmt = (
        select(page.c.id, position_of(), *(_view_columns(customer) if with_view else ()))
        .outerjoin(ArticleChange, ArticleChange.article_id == page.c.id)
        .order_by(*in_order(page, shape.sort))
    )
    return Query(stmt, scan=shape.scan)


async def page_version(reads: Reads, query: ArticleQuery, asked: ViewRequest) -> str:
    """The version of the page `query` in the view `asked` (the page's language is `asked`'s, or with a
    customer number the customer's)."""
    customer = asked.customer_number is not None
    values = page_values(query)
    if customer:
        values["customer"] = asked.customer_number
    rows = await reads.rows(_page_versions(PageShape.of(query), customer, True), **values)
    if not rows:
        return digest((await resolve_asked(reads, asked)).key, ())
    return _page_digest(_key(asked, rows[0]), rows, query.limit)


async def page_version_in(reads: Reads, query: ArticleQuery, view: CatalogueView) -> str:
    """The version of the page `query` in a view already read (a filter by price needs its price lists)."""
    rows = await reads.rows(_page_versions(PageShape.of(query), False, False), **page_values(query))
    return _page_digest(view.key, rows, query.limit)


def _page_digest(key: ViewKey, rows: list[Row], limit: int | None) -> str:
    # A page with a limit reads one more: whether more follow, as the page itself knows it.
    more = limit is not None and len(rows) > limit
    return digest(key, rows[:limit], more)


def _key(asked: ViewRequest, row: Row) -> ViewKey:
    return asked.key(row[2], row[3:6] if asked.customer_number is not None else None)


@lru_cache(maxsize=2)
def _article_versions(customer: bool) -> Query:
    return Query(_positions(*_view_columns(customer)).where(Article.number == bindparam("number"), is_exposed()))


async def article_version(reads: Reads, number: str, asked: ViewRequest) -> str | None:
    """The version of the exposed article `number` in the view `asked`; None when there is none."""
    values: dict[str, Any] = {"number": number}
    if asked.customer_number is not None:
        values["customer"] = asked.customer_number
    rows = await reads.rows(_article_versions(asked.customer_number is not None), **values)
    if not rows:
        if asked.customer_number is not None:
            await resolve_asked(reads, asked)  # refuses an unknown customer, as the article's view does
        return None
    return digest(_key(asked, rows[0]), rows[:1])


_MEDIA_VERSION = Query(
    select(Media.article_id, position_of())
    .join(Article, Article.id == Media.article_id)
    .outerjoin(ArticleChange, ArticleChange.article_id == Media.article_id)
    .where(Media.id == bindparam("id"), is_exposed())
)


async def media_version(reads: Reads, media_id: int) -> str | None:
    """The version of the media record's file; None when there is no such record of an exposed article."""
    rows = await reads.rows(_MEDIA_VERSION, id=media_id)
    return media_digest(media_id, rows[0][0], rows[0][1]) if rows else None
