"""SQLite's change log is folded into the articles' change positions soon after a change, by every serving
process (datasources/catalogue/change_log.py): a reader scans the log, which has no index, so it must stay
short, whoever wrote it (the ERP on its own connection too, in one bulk statement of 100,000 prices).

A look costs one read of the log's two ends (its rowid's) every FOLD_INTERVAL; only a log with rows to fold
takes the write lock, in batches, each its own transaction, so that other writers come between them. Several
processes folding is harmless: each batch reads what is left under the lock. PostgreSQL has no log to fold.
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.ext.asyncio import AsyncSession

from datasources.catalogue.change_log import fold_batch, has_tail
from datasources.database import Database

log = logging.getLogger("gateway.changes")

FOLD_INTERVAL = 0.5


async def fold_once(db: Database) -> None:
    """Folds the log through, a batch per write transaction."""
    if not await has_tail(db.reads):
        return

    async def batch(session: AsyncSession) -> bool:
        return await fold_batch(session)

    while await db.write(batch):
        pass


async def fold_periodically(db: Database, interval: float = FOLD_INTERVAL) -> None:
    while True:
        try:
            await fold_once(db)
        except Exception as error:  # an outage (the database's availability logs it): the next round tries again
            log.info("the change log was not folded: %s", error)
        await asyncio.sleep(interval)
