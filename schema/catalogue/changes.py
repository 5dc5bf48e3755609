"""The catalogue's change feed: what changed and what was removed after a cursor (datasources/catalogue/changes.py).

A shop reads the whole list once, taking the feed's current cursor first (`since` null), and then follows
the feed: each answer holds the exposed articles that changed after its cursor, as `articles` shows them,
the ArtNr of those removed (deleted, or no longer exposed), and the cursor to ask with next.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import strawberry

from datasources.catalogue import articles, changes
from datasources.catalogue.articles import ArticleFilter, ArticleQuery
from datasources.catalogue.changes import Cursor
from datasources.catalogue.view import CatalogueView, resolve_view
from datasources.errors import InvalidInput
from schema.catalogue.queries import CURRENCY, CUSTOMER, LANGUAGE, customer_allowed, prime_designations
from schema.catalogue.types import Article
from schema.context import Context
from schema.permissions import CanReadCatalogue

DEFAULT_LIMIT = 100
SINCE = (
    "The cursor of the previous answer; null: the feed's current cursor, with empty lists (take it before "
    "reading the whole list). A cursor older than GATEWAY_CHANGES_RETENTION is refused with the code gone: "
    "read the whole list again."
)
LIMIT = "Changes per answer, 1 to GATEWAY_GRAPHQL_PAGE_SIZE; 100 by default."


@strawberry.type(description="The catalogue's changes after a cursor (ArtikelAenderungen).")
class ArticleChanges:
    cursor: str = strawberry.field(description="Cursor: ask with it next (opaque, URL-safe).")
    has_more: bool = strawberry.field(description="MehrVorhanden: more changes follow at once: ask again now.")
    changed: list[Article] = strawberry.field(
        description="Artikel: the exposed articles that changed, in the order of their changes, as they are now."
    )
    removed: list[str] = strawberry.field(
        description="Entfernt: the ArtNr of the articles deleted or no longer exposed."
    )


def _limit(info: strawberry.Info[Context], limit: int | None) -> int:
    largest = info.context.document_limits.page_size
    if limit is None:
        return min(DEFAULT_LIMIT, largest)
    if not 0 < limit <= largest:
        raise InvalidInput(f"limit is 1 to {largest}", field="limit", info={"limit": largest})
    return limit


@strawberry.type
class CatalogueChangeQuery:
    @strawberry.field(
        description="What changed in the catalogue after a cursor, whoever wrote it (the ERP too).",
        permission_classes=[CanReadCatalogue],
    )
    async def catalogue_changes(
        self,
        info: strawberry.Info[Context],
        since: Annotated[str | None, strawberry.argument(description=SINCE)] = None,
        limit: Annotated[int | None, strawberry.argument(description=LIMIT)] = None,
        language: Annotated[str | None, strawberry.argument(description=LANGUAGE)] = None,
        currency: Annotated[str | None, strawberry.argument(description=CURRENCY)] = None,
        customer_number: Annotated[str | None, strawberry.argument(description=CUSTOMER)] = None,
    ) -> ArticleChanges:
        size = _limit(info, limit)
        customer_allowed(info, customer_number)
        cursor = None if since is None else Cursor.decode(since)
        db = info.context.db
        postgresql = db.engine.dialect.name == "postgresql"
        view = resolve_view(db.reads, language=language, currency=currency, customer_number=customer_number)
        if cursor is None:
            _, now = await asyncio.gather(view, changes.current_cursor(db.reads, postgresql))
            return ArticleChanges(cursor=now.encode(), has_more=False, changed=[], removed=[])
        retention = info.context.changes_retention
        resolved, found = await asyncio.gather(
            view, changes.read_changes(db.reads, cursor, size, postgresql=postgresql, retention=retention)
        )
        numbers = [change.number for change in found.changed if not change.removed]
        return ArticleChanges(
            cursor=found.cursor.encode(),
            has_more=found.more,
            changed=await _articles(info, numbers, resolved),
            removed=[change.number for change in found.changed if change.removed],
        )


async def _articles(info: strawberry.Info[Context], numbers: list[str], view: CatalogueView) -> list[Article]:
    """The articles `numbers` names as `articles` shows them, in that order; one hidden or deleted since is
    left out (its removal follows in the feed)."""
    if not numbers:
        return []
    query = ArticleQuery(language=view.language, filter=ArticleFilter(numbers=tuple(numbers)))
    records = {record.number: record for record in (await articles.find_articles(info.context.db.reads, query)).records}
    found = [records[number] for number in numbers if number in records]
    prime_designations(info, found, view.language)
    return [Article.of(record, view) for record in found]
