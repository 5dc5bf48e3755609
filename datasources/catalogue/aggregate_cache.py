"""Facets and statistics kept while the catalogue does not change.

Counting 200,000 articles per group, class, availability and price band reads every matching article; a
shop's category pages and an analyst's repeated queries ask the same counts again and again, while the
catalogue changes a few times an hour. So the counts are kept, per question (the function and its
arguments: filter, price view, bounds), and the change stamps (migration 0011) say when they are no longer
true: each request asks once, in one indexed statement, whether any article changed since the kept counts
were made; when one did, every kept count is dropped. Whoever writes (the gateway, an import, the ERP on its
own connection) moves the stamps, so a kept count is never stale past the request that sees the change.

The question "changed since?" is the change feed's (changes.py): on SQLite the greatest position of a change
the shop sees moved; on PostgreSQL a change committed that the snapshot taken at the last check did not see
(positions are not taken in commit order there). The snapshot is taken before the counts it covers are made:
a change committed meanwhile is both counted and seen as new at the next check, which recounts: never the
other way round.

Each process keeps its own (N gateways, N caches, each checked against the same stamps), bounded in entries.

The whole catalogue's answers (no filter condition) are not dropped but corrected: the digests (digest.py)
read the articles a change names, once this check has seen it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import String, bindparam, exists, literal_column, select, text

from datasources.catalogue.change_log import SEEN
from datasources.catalogue.digest import Digests
from datasources.catalogue.digest_tally import Tallies
from datasources.catalogue.list_price import PriceView
from datasources.models import ArticleChange
from datasources.reads import Query, Reads

T = TypeVar("T")

SIZE = 512  # questions kept per process

_SQLITE_PROBE = SEEN  # the greatest position of a change the shop sees (change_log.py)
_SINCE = "CAST(CAST(:since AS text) AS pg_snapshot)"
_NOT_SEEN = text(
    f"article_change.transaction_id >= CAST(CAST(pg_snapshot_xmin({_SINCE}) AS text) AS bigint) "
    f"AND NOT pg_visible_in_snapshot(CAST(CAST(article_change.transaction_id AS text) AS xid8), {_SINCE})"
).bindparams(bindparam("since", type_=String()))
# The snapshot now and whether a change committed that `since` did not see: one statement, one snapshot.
_POSTGRESQL_PROBE = Query(
    select(
        literal_column("CAST(pg_current_snapshot() AS text)", type_=String()),
        exists(select(ArticleChange.article_id).where(_NOT_SEEN)),
    ),
    ranged=True,  # the transactions after the last check's snapshot
)


class AggregateCache:
    """Answers to aggregate questions, kept for one generation: while no article changes."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self.generation = 0  # moves on every change seen: what a request's answers are kept under
        self._mark: str | int | None = None  # the snapshot (PostgreSQL) or position (SQLite) last checked
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()
        # The answers being counted, by generation and question: whoever asks meanwhile (another field of
        # the same request, as priceBands and withoutPrice both ask the price range, or another request)
        # waits for that count instead of making it again.
        self._counting: dict[tuple[int, Hashable], asyncio.Future[Any]] = {}
        # The whole catalogue's sums, corrected by each change rather than dropped (digest.py).
        self.digests = Digests()

    async def check(self, reads: Reads, *, postgresql: bool) -> int:
        """Whether the catalogue changed since the last check, in one statement; drops every answer kept when
        it did. The generation to keep this request's answers under."""
        if postgresql:
            since = self._mark if isinstance(self._mark, str) else ""
            if since:
                ((snapshot, changed),) = await reads.rows(_POSTGRESQL_PROBE, since=since)
            else:  # the first check: nothing is kept yet, any snapshot will do as the mark
                ((snapshot, changed),) = await reads.rows(_POSTGRESQL_PROBE, since="1:1:")
            self._advance(str(snapshot), bool(changed) or not since)
        else:
            ((position,),) = await reads.rows(_SQLITE_PROBE)
            self._advance(int(position), int(position) != self._mark)
        return self.generation

    def _advance(self, mark: str | int, changed: bool) -> None:
        if changed:
            self._answers.clear()
            self.generation += 1
            self._mark = mark

    async def answer(self, generation: int, question: Hashable, compute: Callable[[], Awaitable[T]]) -> T:
        """The answer kept for `question`, or `compute`'s, kept when the catalogue has not changed since the
        request checked (a change seen by another request meanwhile leaves it unkept). Asked again while it
        is being computed, the question waits for that computation."""
        if generation == self.generation and question in self._answers:
            self._answers.move_to_end(question)
            found: T = self._answers[question]
            return found
        key = (generation, question)
        counting = self._counting.get(key)
        if counting is None:
            counting = asyncio.ensure_future(compute())
            self._counting[key] = counting
            counting.add_done_callback(lambda done: self._counted(key, done))
        # Shielded: a request cancelled while it waits leaves the count to the others waiting for it.
        value: T = await asyncio.shield(counting)
        return value

    def _counted(self, key: tuple[int, Hashable], done: asyncio.Future[Any]) -> None:
        del self._counting[key]
        generation, question = key
        if done.cancelled() or done.exception() is not None or generation != self.generation:
            return  # a failed count is not kept; its waiters have its error
        self._answers[question] = done.result()
        if len(self._answers) > self.size:
            self._answers.popitem(last=False)


class CheckedAggregates:
    """A request's view of the cache: checked once, on first use, however many answers the request asks. A
    context that outlives a request (a WebSocket connection's operations) checks again when its last check is
    older than RECHECK seconds."""

    RECHECK = 0.5

    def __init__(self, cache: AggregateCache, reads: Reads, *, postgresql: bool, retention: float) -> None:
        self._cache = cache
        self._reads = reads
        self._postgresql = postgresql
        self._retention = retention  # the change feed's (digest.py reads it)
        self._checked: asyncio.Task[int] | None = None
        self._checked_at = 0.0

    async def answer(self, question: Hashable, compute: Callable[[], Awaitable[T]]) -> T:
        return await self._cache.answer(await self._generation(), question, compute)

    async def tallies(self, view: PriceView) -> Tallies:
        """The whole catalogue's sums in the view, as of this request's check."""
        generation = await self._generation()
        return await self._cache.digests.tallies(
            self._reads, view, generation, postgresql=self._postgresql, retention=self._retention
        )

    async def _generation(self) -> int:
        now = asyncio.get_running_loop().time()
        if self._checked is None or now - self._checked_at > self.RECHECK:
            self._checked = asyncio.ensure_future(self._cache.check(self._reads, postgresql=self._postgresql))
            self._checked_at = now
        return await asyncio.shield(self._checked)
