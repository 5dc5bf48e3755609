"""The catalogue change feed's tombstones are purged once they are older than GATEWAY_CHANGES_RETENTION
(datasources/catalogue/changes.py): by every serving process, a minute after its start (not in the way of
starting up) and every hour after. The purge is one DELETE; several processes doing it is harmless."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.ext.asyncio import AsyncSession

from datasources.catalogue.changes import purge_statement
from datasources.database import Database

log = logging.getLogger("gateway.changes")

PURGE_INTERVAL = 3600.0
FIRST_PURGE = 60.0


async def purge_once(db: Database, retention: float) -> None:
    async def purge(session: AsyncSession) -> None:
        await session.execute(purge_statement(retention))  # type: ignore[call-overload]

    await db.write(purge)


async def purge_periodically(db: Database, retention: float, interval: float = PURGE_INTERVAL) -> None:
    await asyncio.sleep(FIRST_PURGE)
    while True:
        try:
            await purge_once(db, retention)
        except Exception as error:  # an outage (the database's availability logs it): the next round tries again
            log.info("the change feed's tombstones were not purged: %s", error)
        await asyncio.sleep(interval)
