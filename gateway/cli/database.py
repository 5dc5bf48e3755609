"""The database as the commands use it: reachable (or one clear line), migrated to head, disposed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from datasources import migrate
from datasources.database import Database, check_reachable, create_database
from gateway.settings import Settings


@asynccontextmanager
async def migrated_database(settings: Settings) -> AsyncIterator[Database]:
    database = create_database(settings.database_url)
    try:
        await check_reachable(database)
        await migrate.upgrade(database.engine)
        yield database
    finally:
        await database.dispose()
