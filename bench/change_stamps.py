"""What the change positions' triggers (migrations 0011-0014) cost bulk writes: the demo load and 1,000 prices.

    python -m bench change-stamps [--articles 20000] [--repeat 3] [--database-url postgresql+asyncpg://...]
                                  [--without notify]

Per run, two throwaway databases are migrated alike; in one the change positions' triggers are dropped (the
baseline; the demo load's time includes folding SQLite's change log, datasources/catalogue/change_log.py),
and with them 0012's NOTIFY on PostgreSQL. `--without notify` drops that one alone: its own cost.
Each is filled with `gateway demo`'s load (datasources.demo.fill_demo, N articles), then 1,000 prices are
changed twice: in one statement, and as 1,000 statements in one transaction (as an ERP writes them row by
row). The figures are wall-clock seconds, the best of R runs, with and without the triggers side by side, and
their ratio; the issue's goal is at most 1.5x. On SQLite the baseline's price updates are timed again with a
row trigger on `price` that does nothing: the floor of any design that sees the ERP's writes by row triggers
(SQLite has no other kind). It exits non-zero when the positions did not move with the triggers (a bench of
triggers that do nothing would prove nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import URL

from bench.catalogue.main import _postgresql_url, throwaway_database
from datasources import demo, migrate
from datasources.database import Database, Timeouts, create_database

GOAL = 1.5
FLOOR = "floor: "  # the baseline's figures with a row trigger that does nothing
FLOOR_TRIGGER = "CREATE TRIGGER bench_floor AFTER UPDATE ON price FOR EACH ROW BEGIN SELECT 1; END"
PRICES = 1000
BULK = Timeouts(statement=900.0)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=20_000, help="articles of the demo load")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best counts")
    parser.add_argument("--database-url", type=_postgresql_url, default=None, help="a PostgreSQL server")
    parser.add_argument(
        "--without",
        choices=("all", "notify"),
        default="all",
        help="the baseline drops every trigger of the change positions, or only 0012's NOTIFY (PostgreSQL)",
    )
    return parser.parse_args(argv)


async def drop_notify(db: Database) -> None:
    async with db.engine.begin() as conn:
        await conn.execute(text("DROP TRIGGER article_change_notify ON article_change"))


async def drop_triggers(db: Database) -> None:
    async with db.engine.begin() as conn:
        if db.engine.dialect.name == "sqlite":
            rows = await conn.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'article_change_%'")
            )
            for (name,) in rows.all():
                await conn.execute(text(f'DROP TRIGGER "{name}"'))
        else:
            rows = await conn.execute(
                text(
                    "SELECT tgname, CAST(tgrelid::regclass AS text) FROM pg_trigger "
                    "WHERE tgname LIKE 'article_change_%'"
                )
            )
            for name, table in rows.all():
                await conn.execute(text(f'DROP TRIGGER "{name}" ON {table}'))


async def timed_fill(db: Database, articles: int) -> float:
    started = time.perf_counter()
    if not await demo.fill_demo(db.engine, articles=articles, customers=0, seed=1):
        raise SystemExit("the new database already has articles")
    return time.perf_counter() - started


async def price_ids(db: Database) -> list[int]:
    async with db.engine.connect() as conn:
        rows = await conn.execute(text(f"SELECT id FROM price ORDER BY id LIMIT {PRICES}"))
        return [row[0] for row in rows]


async def one_statement(db: Database, ids: list[int]) -> float:
    started = time.perf_counter()
    async with db.engine.begin() as conn:
        await conn.execute(text(f"UPDATE price SET amount = amount + 0.05 WHERE id BETWEEN {ids[0]} AND {ids[-1]}"))
    return time.perf_counter() - started


async def row_by_row(db: Database, ids: list[int]) -> float:
    started = time.perf_counter()
    async with db.engine.begin() as conn:
        for price in ids:
            await conn.execute(text("UPDATE price SET amount = amount + 0.05 WHERE id = :id"), {"id": price})
    return time.perf_counter() - started


async def positions(db: Database) -> int:
    async with db.engine.connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM article_change"))).scalar_one())


async def one_run(server: URL | None, articles: int, triggers: bool, without: str) -> tuple[dict[str, float], int]:
    with tempfile.TemporaryDirectory() as tmp:
        async with throwaway_database(server, Path(tmp)) as url:
            db = create_database(url, timeouts=BULK)
            try:
                await migrate.upgrade(db.engine)
                if not triggers:
                    await (drop_notify(db) if without == "notify" else drop_triggers(db))
                figures = {"demo load": await timed_fill(db, articles)}
                ids = await price_ids(db)
                figures["1,000 prices, 1 statement"] = await one_statement(db, ids)
                figures["1,000 prices, 1,000 statements"] = await row_by_row(db, ids)
                if not triggers and db.engine.dialect.name == "sqlite":
                    async with db.engine.begin() as conn:
                        await conn.execute(text(FLOOR_TRIGGER))
                    figures[FLOOR + "1 statement"] = await one_statement(db, ids)
                    figures[FLOOR + "1,000 statements"] = await row_by_row(db, ids)
                return figures, await positions(db)
            finally:
                await db.dispose()


async def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    best: dict[bool, dict[str, float]] = {True: {}, False: {}}
    moved = {True: 0, False: 0}
    for _ in range(args.repeat):
        for triggers in (False, True):  # alternating: a busy moment of the shared machine hits both
            figures, moved[triggers] = await one_run(args.database_url, args.articles, triggers, args.without)
            for name, seconds in figures.items():
                best[triggers][name] = min(seconds, best[triggers].get(name, seconds))
    backend = "PostgreSQL" if args.database_url else "SQLite"
    if args.without == "notify" and not args.database_url:
        raise SystemExit("--without notify: the NOTIFY trigger is PostgreSQL's")
    compared = "without 0012's NOTIFY" if args.without == "notify" else "without the triggers"
    print(f"{backend}, {args.articles:,} articles, best of {args.repeat} (seconds); baseline {compared}")
    print(f"{'':34}{'without':>10}{'with':>10}{'ratio':>8}{'floor':>10}{'ratio':>8}")
    worst = 0.0
    for name, baseline in best[False].items():
        if name.startswith(FLOOR):
            continue
        ratio = best[True][name] / baseline
        worst = max(worst, ratio)
        floor = best[False].get(FLOOR + name.removeprefix("1,000 prices, "))
        beside = "" if floor is None else f"{floor:10.4f}{floor / baseline:7.2f}x"
        print(f"{name:34}{baseline:10.4f}{best[True][name]:10.4f}{ratio:7.2f}x{beside}")
    print(f"goal: at most {GOAL}x; worst {worst:.2f}x")
    if moved[True] == 0 or (moved[False] != 0) != (args.without == "notify"):
        print(f"the positions did not move as they should (with: {moved[True]}, without: {moved[False]})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
