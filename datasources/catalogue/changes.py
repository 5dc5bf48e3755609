"""The catalogue's change feed: which articles changed or were removed after a cursor, from the positions the
triggers keep (datasources/models/article_change.py), so that the ERP's own writes are seen too.

A cursor says where a reader stands: after the change (position, article). On SQLite that is enough: one
writer at a time, positions taken in commit order. On PostgreSQL a position is taken when a transaction
writes, not when it commits: a transaction still open can hold a position below one a reader already
passed. So there a cursor also holds two snapshots: `since`, what the reader has seen, and `until`, the
end of the window it is reading. A window holds the changes of the transactions committed after `since`
and by `until` (pg_visible_in_snapshot), in position order; once read through, the next window starts at
its end. A transaction open at `until` is in the next window, whatever its positions: nothing is skipped,
and as a row holds only its latest change, nothing is repeated.

A cursor is text: URL-safe base64 of its fields. A cursor whose window began before the retention
(GATEWAY_CHANGES_RETENTION) is refused with `Gone`: the tombstones it would need may be purged.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import time
from dataclasses import dataclass, replace

from sqlalchemy import (
    BigInteger,
    Integer,
    String,
    bindparam,
    delete,
    func,
    literal_column,
    or_,
    select,
    text,
    tuple_,
    union_all,
)

from datasources.catalogue.change_log import GREATEST
from datasources.errors import DomainError, InvalidInput
from datasources.models import ArticleChange, ArticleChangeLog
from datasources.reads import Query, Reads

FORMAT = "1"
# After every article of a position: a cursor at the current position on SQLite.
AFTER_ALL = 2**63 - 1
DEFAULT_RETENTION = 30 * 24 * 3600.0


class Gone(DomainError):
    """The cursor is older than the changes kept: read the whole list again."""

    code = "gone"


@dataclass(frozen=True, slots=True)
class Cursor:
    position: int  # after (position, article_id)
    article_id: int
    since: str  # PostgreSQL: the snapshot read through; "" on SQLite
    until: str  # PostgreSQL: the end of the window being read; "" when none is open
    started: int  # when the window began (Unix seconds): its age decides Gone

    def encode(self) -> str:
        fields = (FORMAT, self.position, self.article_id, self.started, self.since, self.until)
        raw = "|".join(str(value) for value in fields).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, value: str) -> Cursor:
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
            version, position, article_id, started, since, until = raw.split("|")
            if version != FORMAT:
                raise ValueError(version)
            return cls(int(position), int(article_id), _snapshot(since), _snapshot(until), int(started))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise InvalidInput("not a cursor of this feed", field="since") from None


def _snapshot(value: str) -> str:
    """A PostgreSQL snapshot's text (xmin:xmax:xip,...), checked: it goes into a statement as a parameter."""
    if value and not all(part.replace(",", "").isdigit() or part == "" for part in value.split(":")):
        raise ValueError(value)
    return value


@dataclass(frozen=True, slots=True)
class Change:
    article_id: int
    number: str  # ArtNr
    removed: bool


@dataclass(frozen=True, slots=True)
class Changes:
    changed: list[Change]  # in the feed's order; `removed` ones too
    cursor: Cursor  # after them
    more: bool  # changes follow in the same window: ask again at once


_COLUMNS = (ArticleChange.article_id, ArticleChange.number, ArticleChange.removed)
_AFTER = tuple_(ArticleChange.position, ArticleChange.article_id) > tuple_(
    bindparam("position", type_=BigInteger()), bindparam("article", type_=BigInteger())
)
_ORDER = (ArticleChange.position, ArticleChange.article_id)
_LIMIT = bindparam("limit", type_=Integer())


def _xid(snapshot: str) -> str:
    return f"CAST(CAST(:{snapshot} AS text) AS pg_snapshot)"


_TRANSACTION = "CAST(CAST(article_change.transaction_id AS text) AS xid8)"
_IN_WINDOW = text(
    f"article_change.transaction_id >= CAST(CAST(pg_snapshot_xmin({_xid('since')}) AS text) AS bigint) "
    f"AND NOT pg_visible_in_snapshot({_TRANSACTION}, {_xid('since')}) "
    f"AND pg_visible_in_snapshot({_TRANSACTION}, {_xid('until')})"
).bindparams(bindparam("since", type_=String()), bindparam("until", type_=String()))


def _sqlite_feed() -> Query:
    """SQLite: the rows after the cursor whose position is their own, walked along the position's index, and
    the articles the change log moved past it (change_log.py: a short tail, the gateway folds it), in order."""
    log = ArticleChangeLog
    tail = (
        select(log.article_id, func.max(log.seq).label("seq"))
        .where(log.seq >= bindparam("position", type_=BigInteger()), log.article_id.is_not(None))
        .group_by(log.article_id)
        .cte("tail")
        # Materialised once for both branches, SQLite scanned the whole article_change into a Bloom filter for
        # the join below (0.8 ms at 20,000 articles, 14 at 200,000); made for each, the tail costs µs.
        .prefix_with("NOT MATERIALIZED", dialect="sqlite")
    )
    settled = (
        select(*_COLUMNS, ArticleChange.position)
        .where(_AFTER, or_(ArticleChange.removed, ArticleChange.article_id.not_in(select(tail.c.article_id))))
        .order_by(*_ORDER)
        .limit(_LIMIT)
        .subquery("settled")
    )
    position = func.max(ArticleChange.position, tail.c.seq)  # SQLite's max of two: the log's is greater
    moved = (
        select(*_COLUMNS, position.label("position"))
        .join(tail, tail.c.article_id == ArticleChange.article_id)
        .where(
            ArticleChange.removed.is_(False),
            tuple_(position, ArticleChange.article_id)
            > tuple_(bindparam("position", type_=BigInteger()), bindparam("article", type_=BigInteger())),
        )
    )
    feed = union_all(select(settled), moved).subquery("feed")
    return Query(select(feed).order_by(feed.c.position, feed.c.article_id).limit(_LIMIT))


_SQLITE_FEED = _sqlite_feed()
_POSTGRESQL_FEED = Query(
    select(*_COLUMNS, ArticleChange.position).where(_IN_WINDOW, _AFTER).order_by(*_ORDER).limit(_LIMIT),
    ranged=True,  # the transactions after `since`: few, when the feed is read often
)
_SQLITE_NOW = GREATEST
_POSTGRESQL_NOW = Query(select(literal_column("CAST(pg_current_snapshot() AS text)")))


async def current_cursor(reads: Reads, postgresql: bool) -> Cursor:
    """Where the feed stands now: a reader starting here sees every change committed from now on."""
    now = int(time.time())
    if postgresql:
        rows = await reads.rows(_POSTGRESQL_NOW)
        return Cursor(0, 0, rows[0][0], "", now)
    rows = await reads.rows(_SQLITE_NOW)
    return Cursor(int(rows[0][0]), AFTER_ALL, "", "", now)


def check_age(cursor: Cursor, retention: float) -> None:
    if cursor.started < time.time() - retention:
        raise Gone("the cursor is older than the changes kept: read the whole list again", field="since")


async def read_changes(reads: Reads, cursor: Cursor, limit: int, *, postgresql: bool, retention: float) -> Changes:
    """Up to `limit` changes after `cursor`, in order, and the cursor after them."""
    check_age(cursor, retention)
    after = {"position": cursor.position, "article": cursor.article_id, "limit": limit + 1}
    if postgresql:
        window = cursor if cursor.until else replace(cursor, until=(await current_cursor(reads, True)).since)
        rows = await reads.rows(_POSTGRESQL_FEED, since=window.since, until=window.until, **after)
    else:
        window = cursor
        rows = await reads.rows(_SQLITE_FEED, **after)
    more = len(rows) > limit
    rows = rows[:limit]
    changes = [Change(int(article_id), number, bool(removed)) for article_id, number, removed, _ in rows]
    if more:  # the window continues after the last one returned
        return Changes(changes, replace(window, position=int(rows[-1][3]), article_id=int(rows[-1][0])), True)
    now = int(time.time())
    if postgresql:  # the window is read through: the next one starts where it ended
        return Changes(changes, Cursor(0, 0, window.until, "", now if not cursor.until else window.started), False)
    if rows:
        return Changes(changes, Cursor(int(rows[-1][3]), int(rows[-1][0]), "", "", now), False)
    return Changes(changes, replace(cursor, started=now), False)


def purge_statement(retention: float) -> object:
    """The tombstones older than the retention, but the greatest position (kept since SQLite took the next one from
    it; since migration 0014 its change log gives it, and one row more is harmless)."""
    cutoff = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=retention)
    greatest = select(func.max(ArticleChange.position)).scalar_subquery()
    return delete(ArticleChange).where(
        ArticleChange.removed, ArticleChange.changed_at < cutoff, ArticleChange.position < greatest
    )
