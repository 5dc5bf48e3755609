"""`gateway demo`: deterministic demo data in an empty database (also what `gateway serve` seeds)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from gateway.cli.database import migrated_database
from gateway.settings import Settings


async def fill(settings: Settings, articles: int, customers: int, seed: int) -> bool:
    """Migrates, then fills an empty database; False when it has articles already."""
    from datasources.demo import fill_demo

    progress = _ProgressBar(articles)
    try:
        async with migrated_database(settings) as database:
            return await fill_demo(
                database.engine, articles=articles, customers=customers, seed=seed, progress=progress
            )
    finally:
        progress.close()


class _ProgressBar:
    """A bar made on the first chunk written, so a database that is filled already shows none."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._bar: Any = None

    def __call__(self, written: int) -> None:
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=self.total, unit="articles", desc="demo data", file=sys.stderr)
        self._bar.update(written)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _demo(args: argparse.Namespace) -> int:
    filled = asyncio.run(fill(Settings.from_env(), args.articles, args.customers, args.seed))
    print("demo data written" if filled else "the database already has articles; nothing was written")
    return 0
