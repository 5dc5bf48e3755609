"""`gateway users ...`: the API users (clients) that may get tokens."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from datasources import users
from datasources.errors import DomainError
from gateway.cli.database import migrated_database
from gateway.cli.tables import print_table, utc_time
from gateway.settings import Settings

T = TypeVar("T")


def _read_secret() -> str:
    if sys.stdin.isatty():
        secret = getpass.getpass("secret: ")
        if getpass.getpass("again: ") != secret:
            raise SystemExit("the secrets differ")
        return secret
    return sys.stdin.readline().rstrip("\r\n")


def _write(settings: Settings, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    async def run() -> T:
        async with migrated_database(settings) as database:
            return await database.write(work)

    return asyncio.run(run())


def _refused(error: DomainError) -> int:
    print(f"gateway: {error.message}", file=sys.stderr)
    return 1


def _add(args: argparse.Namespace) -> int:
    scopes = tuple(dict.fromkeys(args.scope or ["shop"]))
    settings = Settings.from_env()
    secret = _read_secret()
    try:
        _write(settings, lambda session: users.add_user(session, args.name, secret, scopes))
    except DomainError as error:
        return _refused(error)
    print(f"user {args.name!r} created with scopes: {' '.join(scopes)}")
    return 0


def _list(args: argparse.Namespace) -> int:
    records = _write(Settings.from_env(), users.list_users)
    if args.json:
        listed = [
            {
                "name": record.name,
                "scopes": list(record.scopes),
                "created": utc_time(record.created_at),
                "rotations": record.token_version.number,
            }
            for record in records
        ]
        print(json.dumps(listed, ensure_ascii=False, indent=2))
        return 0
    rows = [
        (record.name, ",".join(record.scopes), utc_time(record.created_at), str(record.token_version.number))
        for record in records
    ]
    print_table(("NAME", "SCOPES", "CREATED", "ROTATIONS"), rows)
    return 0


def _remove(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    try:
        _write(settings, lambda session: users.remove_user(session, args.name))
    except DomainError as error:
        return _refused(error)
    print(f"user {args.name!r} removed; its tokens are refused within {_check_time(settings)}")
    return 0


def _rotate(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    secret = _read_secret()
    try:
        _write(settings, lambda session: users.rotate_user(session, args.name, secret))
    except DomainError as error:
        return _refused(error)
    print(f"user {args.name!r} has a new secret; tokens issued before are refused within {_check_time(settings)}")
    return 0


def _check_time(settings: Settings) -> str:
    # As the servers see it if they run with this environment (GATEWAY_TOKEN_CHECK_SECONDS).
    return f"{settings.token_check_seconds:g} s"
    return 0
