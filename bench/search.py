"""The article search through its trigram index beside the same search compared on the articles in list order.

    python -m bench search [--articles 20000,200000] [--repeat 5] [--database-url postgresql+asyncpg://...]
                           [--terms A-012345,nowhere,...]

Builds a demo catalogue per size in a throwaway database (bench/catalogue/main.py) and times, for each term, the
data layer's page of 10 (`find_articles`) and its count (`count_articles`, GraphQL's `totalCount`) two ways,
round-robin in one run: as the gateway makes them (*indexed*: the candidates from the index, migration 0009),
and compared on every article in the list's order until the page is full (*compared*, the search before the
index, which the gateway still makes for a term without three ASCII characters in a row). Both must find the
same articles and count alike, or it exits non-zero. Wall-clock medians in ms (the statements run on the
database; on SQLite in the reads' thread), and the ratio indexed/compared.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

import datasources.catalogue.filters as filters
from bench.catalogue.main import _postgresql_url, build_catalogue, throwaway_database
from bench.common.options import numbers
from datasources.catalogue.articles import ArticleFilter, ArticleQuery, count_articles, find_articles
from datasources.catalogue.search import SearchKind, search_kind
from datasources.database import Database

# An ArtNr, a text no article has, designations some hundred or thousand have (scaled with the catalogue),
# parts of many, and a term too short for the index (compared either way).
TERMS = ("A-001234", "nowhere", "ölfilter", "kugelschreiber", "sport", "hammer", "profi", "set", "öl")


@contextmanager
def searches(kind: SearchKind | None) -> Iterator[None]:
    """The gateway's own choice (None), or every search made as `kind`."""
    if kind is None:
        yield
        return
    with patch.object(filters, "search_kind", lambda search: kind):  # where FilterShape takes it
        yield


async def page(db: Database, term: str) -> list[str]:
    found = await find_articles(db.reads, ArticleQuery(filter=ArticleFilter(search=term), limit=10))
    return [record.number for record in found.records]


async def count(db: Database, term: str) -> int:
    return await count_articles(db.reads, ArticleQuery(filter=ArticleFilter(search=term)))


async def elapsed_ms(run: Callable[[], Awaitable[object]], kind: SearchKind | None) -> float:
    with searches(kind):
        started = time.perf_counter()
        await run()
        return (time.perf_counter() - started) * 1000


async def measure(db: Database, terms: Sequence[str], repeat: int) -> None:
    print(f"{'term':>16} {'kind':>8} {'found':>7} | {'page: compared':>14} {'indexed':>8} {'ratio':>6} | "
          f"{'count: compared':>15} {'indexed':>8} {'ratio':>6}")  # fmt: skip
    for term in terms:
        with searches("compared"):
            expected = (await page(db, term), await count(db, term))
        with searches(None):
            got = (await page(db, term), await count(db, term))
        if got != expected:
            sys.exit(f"{term!r}: indexed {got} != compared {expected}")
        figures: dict[tuple[str, SearchKind | None], list[float]] = {}
        for _ in range(repeat):  # round-robin: the machine's noise falls on both alike
            runs = (("page", lambda term=term: page(db, term)), ("count", lambda term=term: count(db, term)))
            for name, run in runs:
                kinds: tuple[SearchKind | None, ...] = ("compared", None)
                for kind in kinds:
                    figures.setdefault((name, kind), []).append(await elapsed_ms(run, kind))
        page_c, page_i, count_c, count_i = (
            statistics.median(figures[key])
            for key in (("page", "compared"), ("page", None), ("count", "compared"), ("count", None))
        )
        print(f"{term!r:>16} {search_kind(term):>8} {expected[1]:>7} | {page_c:>14.1f} {page_i:>8.1f} "
              f"{page_i / page_c:>5.2f}x | {count_c:>15.1f} {count_i:>8.1f} {count_i / count_c:>5.2f}x")  # fmt: skip


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--articles", type=numbers, default=[20_000], help="catalogue sizes (default: 20000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement (default: 5)")
    parser.add_argument("--terms", default=",".join(TERMS), help="comma-separated search terms")
    parser.add_argument("--database-url", type=_postgresql_url, default=None, help="a PostgreSQL server")
    args = parser.parse_args(argv)
    for size in args.articles:
        with tempfile.TemporaryDirectory() as tmp:
            async with throwaway_database(args.database_url, Path(tmp)) as url:
                db, built = await build_catalogue(url, size)
                try:
                    print(f"\n{db.engine.dialect.name}, {size:,} articles (built in {built:.0f} s)")
                    await measure(db, args.terms.split(","), args.repeat)
                finally:
                    await db.dispose()


if __name__ == "__main__":
    asyncio.run(main())
