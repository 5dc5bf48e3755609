"""`gateway db upgrade`: Alembic migrations to head."""

from __future__ import annotations

import argparse
import asyncio

from gateway.cli.database import migrated_database
from gateway.settings import Settings


async def _migrate(settings: Settings) -> None:
    async with migrated_database(settings):
        pass


def _upgrade(args: argparse.Namespace) -> int:
    asyncio.run(_migrate(Settings.from_env()))
    print("database is at the newest revision")
    return 0
