"""`gateway users ...`: the API users (clients) that may get tokens."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from typing import Any

from datasources import users
from datasources.errors import DomainError
from gateway.cli.arguments import HELP_FORMAT
from gateway.cli.database import migrated_database
from gateway.settings import Settings


def add_parser(commands: Any) -> None:
    actions = commands.add_parser("users", help="API users").add_subparsers(required=True, metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="create an API user; the secret is read from standard input",
        description="Creates an API user in the configured database (by default gateway.db in the working "
        "directory). The secret (at least 8 characters) is read from standard input, or asked for twice on "
        "a terminal.",
        formatter_class=HELP_FORMAT,
    )
    add.add_argument("name", help="the user name, as sent with HTTP Basic to POST /www/token")
    add.add_argument(
        "--scope",
        action="append",
        choices=users.SCOPES,
        help="shop, catalogue or admin; repeatable (default: shop)",
    )
    add.set_defaults(run=_add)


def _read_secret() -> str:
    if sys.stdin.isatty():
        secret = getpass.getpass("secret: ")
        if getpass.getpass("again: ") != secret:
            raise SystemExit("the secrets differ")
        return secret
    return sys.stdin.readline().rstrip("\r\n")


async def _add_user(settings: Settings, name: str, secret: str, scopes: tuple[str, ...]) -> None:
    async with migrated_database(settings) as database, database.writer() as session, session.begin():
        await users.add_user(session, name, secret, scopes)


def _add(args: argparse.Namespace) -> int:
    scopes = tuple(dict.fromkeys(args.scope or ["shop"]))
    try:
        asyncio.run(_add_user(Settings.from_env(), args.name, _read_secret(), scopes))
    except DomainError as error:
        print(f"gateway: {error.message}", file=sys.stderr)
        return 1
    print(f"user {args.name!r} created with scopes: {' '.join(scopes)}")
    return 0
