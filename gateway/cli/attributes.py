"""`gateway attributes ...`: the company attributes (PHKey management), e.g. RESTEVENTS, which enables the
ERP events."""

from __future__ import annotations

import argparse
import asyncio
import sys

from datasources import attributes
from datasources.errors import DomainError
from gateway.cli.database import migrated_database
from gateway.settings import Settings


async def _store(settings: Settings, key: str, contents: str) -> str:
    async with migrated_database(settings) as database, database.writer() as session, session.begin():
        return (await attributes.set_attribute(session, key, contents)).key


async def _read(settings: Settings) -> list[tuple[str, str]]:
    async with migrated_database(settings) as database, database.reader() as session:
        return await attributes.list_attributes(session)


def _set(args: argparse.Namespace) -> int:
    try:
        key = asyncio.run(_store(Settings.from_env(), args.key, args.contents))
    except DomainError as error:
        print(f"gateway: {error.message}", file=sys.stderr)
        return 1
    print(f"{key} = {args.contents!r}")
    return 0


def _list(args: argparse.Namespace) -> int:
    for key, contents in asyncio.run(_read(Settings.from_env())):
        print(f"{key} = {contents!r}")
    return 0
