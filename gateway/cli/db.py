"""`gateway db upgrade`: Alembic migrations to head."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from gateway.cli.arguments import HELP_FORMAT
from gateway.cli.database import migrated_database
from gateway.settings import Settings


def add_parser(commands: Any) -> None:
    actions = commands.add_parser("db", help="database").add_subparsers(required=True, metavar="ACTION")
    upgrade = actions.add_parser(
        "upgrade", help="run the migrations to the newest revision", formatter_class=HELP_FORMAT
    )
    upgrade.set_defaults(run=_upgrade)


async def _migrate(settings: Settings) -> None:
    async with migrated_database(settings):
        pass


def _upgrade(args: argparse.Namespace) -> int:
    asyncio.run(_migrate(Settings.from_env()))
    print("database is at the newest revision")
    return 0
