"""The whole catalogue's facets and statistics, corrected by the articles that change instead of counted again.

Counting the facets of 200,000 articles reads each one's list price and stock: hundreds of pages' cost. Kept
answers (aggregate_cache.py) are dropped at every change, so the first request after each one paid it all
again. A digest keeps, for one view of the prices, every exposed article's facts (digest_tally.Facts) and
their sums; when the catalogue changed, it reads the change feed (changes.py) from where it stands, the
facts of the articles named there, and corrects the sums: the change's cost, not the catalogue's.

It answers the questions without a filter condition (a shop's category navigation, an analyst's overview);
a filter's answers are counted in the database as before, and kept while nothing changes. Each process keeps
its own digests, a few views' at most, each built on its first question.

Consistent as the change feed is: the feed's cursor is taken before the facts are read, so an article that
changes meanwhile is read again at the next catch-up (reading an article's facts twice is harmless); an
article removed or hidden has no facts and leaves the sums. A catch-up that finds more changes than
REBUILD (a price list's change names every article it prices) reads the whole digest again instead.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

from sqlalchemy import case, select

from datasources.catalogue.changes import Cursor, Gone, current_cursor, read_changes
from datasources.catalogue.digest_tally import Facts, Tallies
from datasources.catalogue.list_price import PriceView, list_price, price_values
from datasources.catalogue.stock import has_available_stock, stock_in_base_units
from datasources.models import ArticleListing
from datasources.reads import Query, Reads, values_in

# Digests a process keeps, the views asked last: each holds about 230 bytes per exposed article (45 MB at
# 200,000), and a view asked for after it was let go is read whole again.
VIEWS = 3
FEED_PAGE = 1000  # changes read per statement
REBUILD = 5000  # changes in one catch-up beyond which the digest is read whole again


class Digest:
    """Every exposed article's facts in one view, their sums, and where in the change feed they stand."""

    def __init__(self, view: PriceView, facts: dict[int, Facts], cursor: Cursor, generation: int) -> None:
        self.view = view
        self.facts = facts
        self.tallies = Tallies.of(facts.values())
        self.cursor = cursor
        self.generation = generation  # the aggregate cache's, when the digest was last caught up

    def correct(self, fresh: dict[int, Facts], changed: Sequence[int], cursor: Cursor, generation: int) -> None:
        """The changed articles' facts as now read (`fresh`; an article without any is gone or hidden)."""
        for article_id in changed:
            old = self.facts.pop(article_id, None)
            if old is not None:
                self.tallies.add(old, -1)
            new = fresh.get(article_id)
            if new is not None:
                self.facts[article_id] = new
                self.tallies.add(new, 1)
        self.cursor = cursor
        self.generation = generation


class Digests:
    """A process's digests, by view; one reads or catches up at a time (the others wait for it)."""

    def __init__(self, size: int = VIEWS) -> None:
        self.size = size
        self._digests: OrderedDict[PriceView, Digest] = OrderedDict()
        self._lock = asyncio.Lock()

    async def tallies(
        self, reads: Reads, view: PriceView, generation: int, *, postgresql: bool, retention: float
    ) -> Tallies:
        """The view's sums, true at least as of the aggregate cache's check that gave `generation`."""
        digest = self._digests.get(view)
        if digest is not None and digest.generation >= generation:
            self._digests.move_to_end(view)
            return digest.tallies
        # Shielded: a request that goes away (its client, its timeout) leaves the reading to those who wait.
        updated = asyncio.ensure_future(self._updated(reads, view, generation, postgresql, retention))
        return await asyncio.shield(updated)

    async def _updated(
        self, reads: Reads, view: PriceView, generation: int, postgresql: bool, retention: float
    ) -> Tallies:
        async with self._lock:
            digest = self._digests.get(view)
            if digest is None:
                digest = await _read(reads, view, generation, postgresql)
            elif digest.generation < generation:
                await _catch_up(reads, digest, generation, postgresql, retention)
            self._digests[view] = digest
            self._digests.move_to_end(view)
            if len(self._digests) > self.size:
                self._digests.popitem(last=False)
            return digest.tallies


async def _read(reads: Reads, view: PriceView, generation: int, postgresql: bool) -> Digest:
    cursor = await current_cursor(reads, postgresql)  # first: what changes meanwhile is read again later
    return Digest(view, await _facts(reads, view, None), cursor, generation)


async def _catch_up(reads: Reads, digest: Digest, generation: int, postgresql: bool, retention: float) -> None:
    found = await _changed(reads, digest.cursor, postgresql, retention)
    if found is None:
        fresh = await _read(reads, digest.view, generation, postgresql)
        digest.facts, digest.tallies, digest.cursor = fresh.facts, fresh.tallies, fresh.cursor
        digest.generation = generation
        return
    ids, cursor = found
    facts = await _facts(reads, digest.view, ids) if ids else {}
    digest.correct(facts, ids, cursor, generation)


async def _changed(reads: Reads, cursor: Cursor, postgresql: bool, retention: float) -> tuple[list[int], Cursor] | None:
    """The articles changed after `cursor`, once each, and the cursor after them; None when there are more than
    REBUILD, or the cursor is older than the feed's tombstones (not asked for that long)."""
    changed: dict[int, None] = {}  # in the feed's order
    try:
        while True:
            changes = await read_changes(reads, cursor, FEED_PAGE, postgresql=postgresql, retention=retention)
            changed.update(dict.fromkeys(change.article_id for change in changes.changed))
            cursor = changes.cursor
            if len(changed) > REBUILD:
                return None
            if not changes.more:
                return list(changed), cursor
    except Gone:
        return None


async def _facts(reads: Reads, view: PriceView, ids: list[int] | None) -> dict[int, Facts]:
    """The exposed articles' facts in the view: all of them, or those of `ids`."""
    values = price_values(view)
    if ids is not None:
        values["ids"] = ids
    rows = await reads.rows(_facts_query(len(view.price_list_ids), ids is not None), **values)
    return {int(row[0]): Facts.read(*row[1:]) for row in rows}


@lru_cache(maxsize=2 * 3)
def _facts_query(chain: int, some: bool) -> Query:
    listing = ArticleListing
    statement = select(
        listing.article_id,
        listing.group,
        listing.article_class,
        list_price(chain, listing.article_id),
        stock_in_base_units(listing.article_id),
        case((has_available_stock(listing.article_id), 1), else_=0),
    ).where(listing.exposed)
    if some:
        return Query(statement.where(values_in(listing.article_id, "ids")))
    return Query(statement, scan=True)
