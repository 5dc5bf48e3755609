"""The database as the commands use it: reachable (or one clear line), migrated to head, disposed.

Only `serve`, `demo` and `db` create an SQLite database (mode 0600); every other command run where there is
none says where it looked (gateway/cli/main.py), instead of leaving an empty database there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from datasources import migrate
from datasources.database import Database, check_reachable, create_database
from datasources.database_file import create_private, sqlite_file
from gateway.settings import Settings


class DatabaseMissing(Exception):
    """The SQLite file of GATEWAY_DATABASE_URL is not there, for a command that does not create one."""


def require_database(url: str) -> None:
    """DatabaseMissing when `url` names an SQLite file that does not exist."""
    path = sqlite_file(url)
    if path is not None and not path.exists():
        raise DatabaseMissing(
            f"no database at {path.absolute()}: run `gateway serve` or `gateway db upgrade` to create one "
            "there, or set GATEWAY_DATABASE_URL to the gateway's database"
        )


@asynccontextmanager
async def migrated_database(settings: Settings) -> AsyncIterator[Database]:
    path = sqlite_file(settings.database_url)
    if path is not None:
        create_private(path)  # before SQLite opens it, which would make it readable by everyone
    database = create_database(settings.database_url)
    try:
        await check_reachable(database)
        await migrate.upgrade(database.engine)
        yield database
    finally:
        await database.dispose()
