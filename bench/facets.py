"""Facets and statistics of the whole catalogue beside a 10-article page, through /graphql in-process.

    python -m bench facets [--articles 20000,200000] [--repeat 5] [--database-url postgresql+asyncpg://...]

Builds a demo catalogue per size in a throwaway database (bench/catalogue.py) and times, round-robin in one
run, POSTs to /graphql: a page of 10 articles with designation, prices and stock (the baseline), the facets
of the whole catalogue (total, groups, classes, availability, nice price bands, without price) and the
statistics per group, each twice: "counted" right after an article changed (a price moved on a connection of
the ERP's own, as a shop's catalogue moves; the whole catalogue's sums are corrected by that article,
datasources/catalogue/digest.py), and "kept" when nothing changed since the last time they were asked
(datasources/catalogue/aggregate_cache.py: one statement checks the change stamps). And the process's first
facets, which read every article into the sums. Medians of wall-clock ms and of the process's CPU ms (on
SQLite the statements run in the process, in the reads' thread, so CPU counts them; on PostgreSQL the
server's CPU is not counted, and wall clock is the fairer figure), and each one's ratio to the page. The
issue's goal: at most 3x the page.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bench.catalogue.main import _postgresql_url, build_catalogue, rest_client, throwaway_database
from bench.common.options import numbers

PAGE = "{ articles(limit: 10) { items { number designation prices { amount minQuantity } stock { quantity } } } }"
FACETS = (
    "{ articleFacets { total groups { value count } classes { value count } availability { value count }"
    " priceBands { from to count } withoutPrice } }"
)
STATISTICS = (
    "{ articleStatistics(groupBy: GROUP) { value count minPrice maxPrice avgPrice stock withoutPrice withoutStock } }"
)
DOCUMENTS = {"page of 10": PAGE, "facets": FACETS, "statistics": STATISTICS}
# A change the ERP makes: one price moves, so every kept count is counted again.
TOUCH = text("UPDATE price SET amount = amount + 0.01 WHERE id = (SELECT min(id) FROM price)")


async def timed(client: httpx.AsyncClient, query: str) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    response = await client.post("/graphql", json={"query": query})
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if response.status_code != 200 or "errors" in response.json():
        raise SystemExit(f"{query[:40]}: {response.status_code} {response.text[:500]}")
    return wall * 1000, cpu * 1000


async def measure(client: httpx.AsyncClient, erp: AsyncEngine, repeat: int) -> None:
    first = {name: await timed(client, query) for name, query in DOCUMENTS.items()}  # warm: plans, statements
    rows = ["page of 10"] + [f"{name}, {kind}" for name in DOCUMENTS if name != "page of 10" for kind in KINDS]
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
    for _ in range(repeat):  # round-robin: the machine's noise falls on all alike
        figures["page of 10"].append(await timed(client, PAGE))
        for name, query in DOCUMENTS.items():
            if name == "page of 10":
                continue
            async with erp.begin() as connection:
                await connection.execute(TOUCH)
            figures[f"{name}, counted"].append(await timed(client, query))
            figures[f"{name}, kept"].append(await timed(client, query))
    base_wall = statistics.median(w for w, _ in figures["page of 10"])
    base_cpu = statistics.median(c for _, c in figures["page of 10"])
    print(f"{'':>20} {'wall ms':>9} {'ratio':>7} {'cpu ms':>9} {'ratio':>7}")
    for name, runs in figures.items():
        wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
        print(f"{name:>20} {wall:>9.1f} {wall / base_wall:>6.1f}x {cpu:>9.1f} {cpu / base_cpu:>6.1f}x")
    wall, cpu = first["facets"]
    print(f"the process's first facets (reads the whole catalogue's digest): {wall:.0f} ms wall, {cpu:.0f} ms CPU")


KINDS = ("counted", "kept")


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--articles", type=numbers, default=[20_000], help="catalogue sizes (default: 20000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement (default: 5)")
    parser.add_argument("--database-url", type=_postgresql_url, default=None, help="a PostgreSQL server")
    args = parser.parse_args(argv)
    for size in args.articles:
        with tempfile.TemporaryDirectory() as tmp:
            async with throwaway_database(args.database_url, Path(tmp)) as url:
                db, built = await build_catalogue(url, size)
                await db.dispose()
                print(f"\n{db.engine.dialect.name}, {size:,} articles (built in {built:.0f} s)")
                erp = create_async_engine(url)
                try:
                    async with rest_client(url, Path(tmp)) as client:
                        await measure(client, erp, args.repeat)
                finally:
                    await erp.dispose()


if __name__ == "__main__":
    asyncio.run(main())
