"""Where each article's change stands: its position in the catalogue's change order, kept by database
triggers (migration 0011) on every table an article's answer is built from, whoever writes (the gateway, the
demo, the ERP on its own connection). The change feed, the ETags and `REST_Artikel` read it.

One row per article the shop saw exposed: `position` moves forward on every change of what its answer holds,
`removed` says the article was deleted or is no longer exposed (a tombstone, kept for
GATEWAY_CHANGES_RETENTION). An article never exposed has no row. On PostgreSQL the articles one statement
changes share a position (a tax code's new rate moves every article with it at once).

Positions come from SQLite's change log (`ArticleChangeLog`: its rowid, taken under the write lock, writers
follow one another; a row's position there is read with the log's, datasources/catalogue/change_log.py) or a
PostgreSQL sequence. On PostgreSQL positions are not taken in commit order, so each row also holds the
transaction that wrote it (`transaction_id`, an xid8): a reader bounds what it returns by snapshots, never
by a position alone (datasources/catalogue/changes.py).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Boolean, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from datasources.models.base import Base


class ArticleChange(Base):
    __tablename__ = "article_change"
    # No foreign key: a tombstone outlives its article.
    article_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    number: Mapped[str] = mapped_column(String(15))  # ArtNr, kept for the tombstone
    position: Mapped[int] = mapped_column(BigInteger)
    removed: Mapped[bool] = mapped_column(Boolean)
    # UTC: when the row was made, or became a tombstone (the purge reads it); on SQLite a move keeps it.
    changed_at: Mapped[dt.datetime] = mapped_column()
    transaction_id: Mapped[int | None] = mapped_column(BigInteger)  # PostgreSQL: the writer's xid8
    __table_args__ = (
        Index("ix_article_change_position", "position", "article_id"),
        Index("ix_article_change_transaction", "transaction_id"),
    )


class ArticleChangeLog(Base):
    """SQLite: a change of an article's position not yet folded into its row (datasources/catalogue/change_log.py,
    migration 0014); `seq` is the position, the rowid, taken in commit order. No index: appending a row is all
    a trigger per row can afford in a bulk update. Empty on PostgreSQL, whose triggers run per statement."""

    __tablename__ = "article_change_log"
    # INTEGER PRIMARY KEY on SQLite: the rowid itself, one more than the greatest (the fold keeps that row).
    seq: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True)
    article_id: Mapped[int | None] = mapped_column()  # NULL: a position taken for no article's move


class ArticleEventState(Base):
    """How far the REST_Artikel events have come (datasources/catalogue/change_events.py): one row, made by
    migration 0012, which the process that records the next events locks, so that any number of gateway
    processes record each change once."""

    __tablename__ = "article_event_state"
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)  # 1
    cursor: Mapped[str | None] = mapped_column(String(4096))  # the change feed's, after the last event
    # UTC: when the last batch was recorded, the next is due an interval later; NULL: due now (a batch split
    # in parts is recorded on at once).
    produced_at: Mapped[dt.datetime | None] = mapped_column()
