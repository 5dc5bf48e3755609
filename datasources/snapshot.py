"""The catalogue as it is at one moment, for a read made of several operations (a CSV download's pages).

Each request reads at its own moment, and a list read page by page (offset 0, 1000, 2000, ...) in separate
requests may see an article added, removed or moved in its order between two pages: a row repeated or missed at
the border. `snapshot(db)` gives a copy of the database whose catalogue reads (`Database.reads`) all go through
one read-only transaction: on PostgreSQL REPEATABLE READ, which takes its snapshot at the first statement; on
SQLite a deferred BEGIN, whose first read fixes what the transaction sees (WAL: writers go on meanwhile). The
transaction holds one connection of the pool until the block ends, and ends by rolling back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

from sqlalchemy import text

from datasources.database import Database
from datasources.reads import SessionReads


@asynccontextmanager
async def snapshot(db: Database) -> AsyncIterator[Database]:
    postgresql = db.engine.dialect.name == "postgresql"
    engine = db.engine.execution_options(isolation_level="REPEATABLE READ") if postgresql else db.engine
    async with engine.connect() as connection:
        await connection.begin()
        if postgresql:
            await connection.execute(text("SET TRANSACTION READ ONLY"))
        yield replace(db, reads=SessionReads(connection))
