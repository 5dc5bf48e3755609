"""A page of the article list when the shop exposes a part of the ERP's catalogue: 100 %, 10 % and 1 %.

    python -m bench exposure [--articles 20000,200000] [--repeat 21] [--database-url postgresql+asyncpg://...]

Builds a demo catalogue per size in a throwaway database (bench/catalogue/main.py), exposes every article, then
one in ten, then one in a hundred (the attribute RESTWEBSHOP; the triggers of migration 0010 carry it into
the sort keys; the statistics are renewed after each change, as after any bulk change), and times the data
layer's page of 10 (`find_articles`, what `GET /www/artikel?limit=10&sorts=...` reads) for several sorts in
German and French. Wall-clock times in ms, and each share's time against the fully exposed catalogue's:
a page costs what it holds, so the ratio stays near 1 whatever the catalogue's size and the share exposed.
Each page is run R times round-robin with the others; its figure is the median of its fastest quarter (the
machine is shared: a busy moment between one share and the next would otherwise decide the ratio).
It exits non-zero when a page does not hold the exposed articles it should.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import text

from bench.catalogue.main import _postgresql_url, build_catalogue, throwaway_database
from bench.common.options import numbers
from datasources.catalogue.articles import ArticleQuery, find_articles
from datasources.catalogue.ordering import Sort, SortField
from datasources.database import Database, Timeouts
from datasources.planner import analyze

SHARES = (1, 10, 100)  # one in N articles exposed
SORTS = {
    "-ArtBez": Sort(SortField.DESIGNATION, descending=True),
    "+ArtBez": Sort(SortField.DESIGNATION),
    "+ArtNr": Sort(SortField.NUMBER),
    "-ArtGruppe": Sort(SortField.GROUP, descending=True),
    "+WUSTSatz": Sort(SortField.TAX_RATE),
    "-GeaendertAmUTC": Sort(SortField.MODIFIED_AT, descending=True),
}
LANGUAGES = ("ger", "fre")
BULK_STATEMENT = 900.0  # seconds: the load's VACUUM and the exposure's changes, at 200,000 articles


async def expose_one_in(db: Database, every: int) -> None:
    async with db.engine.begin() as conn:
        if every == 1:
            await conn.execute(
                text(
                    "INSERT INTO article_attribute (article_id, \"key\", contents) SELECT a.id, 'RESTWEBSHOP', '1' "
                    "FROM article a WHERE NOT EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = a.id "
                    "AND x.\"key\" = 'RESTWEBSHOP')"
                )
            )
        else:
            await conn.execute(
                text("DELETE FROM article_attribute WHERE \"key\" = 'RESTWEBSHOP' AND article_id % :every <> 0"),
                {"every": every},
            )
    await analyze(db.engine)


async def page(db: Database, sort: Sort, language: str) -> list[str]:
    found = await find_articles(db.reads, ArticleQuery(language=language, sort=(sort,), limit=10))
    return [record.number for record in found.records]


async def elapsed_ms(db: Database, sort: Sort, language: str) -> float:
    started = time.perf_counter()
    await page(db, sort, language)
    return (time.perf_counter() - started) * 1000


async def measure(db: Database, repeat: int) -> None:
    figures: dict[tuple[int, str, str], float] = {}
    for every in SHARES:
        await expose_one_in(db, every)
        pages = [(name, sort, language) for name, sort in SORTS.items() for language in LANGUAGES]
        for name, sort, language in pages:
            numbers_ = await page(db, sort, language)
            if len(numbers_) != 10 or any(int(number[2:]) % every for number in numbers_):
                sys.exit(f"1 in {every}, {name} in {language}: the page holds {numbers_}")
        samples: dict[tuple[str, str], list[float]] = {}
        for _ in range(repeat):  # round-robin: a busy moment of the machine falls on every page alike
            for name, sort, language in pages:
                samples.setdefault((name, language), []).append(await elapsed_ms(db, sort, language))
        for (name, language), runs in samples.items():
            figures[every, name, language] = statistics.median(sorted(runs)[: max(1, len(runs) // 4)])
    print(f"{'sort':>16} {'lang':>4} | {'100 %':>7} {'10 %':>7} {'1 %':>7} | {'10 %/100 %':>10} {'1 %/100 %':>9}")
    for name in SORTS:
        for language in LANGUAGES:
            full, tenth, hundredth = (figures[every, name, language] for every in SHARES)
            print(f"{name:>16} {language:>4} | {full:>7.2f} {tenth:>7.2f} {hundredth:>7.2f} | "
                  f"{tenth / full:>9.2f}x {hundredth / full:>8.2f}x")  # fmt: skip


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--articles", type=numbers, default=[20_000], help="catalogue sizes (default: 20000)")
    parser.add_argument("--repeat", type=int, default=21, help="runs of each page (default: 21)")
    parser.add_argument("--database-url", type=_postgresql_url, default=None, help="a PostgreSQL server")
    args = parser.parse_args(argv)
    for size in args.articles:
        with tempfile.TemporaryDirectory() as tmp:
            async with throwaway_database(args.database_url, Path(tmp)) as url:
                db, built = await build_catalogue(url, size, Timeouts(statement=BULK_STATEMENT))
                try:
                    print(f"\n{db.engine.dialect.name}, {size:,} articles (built in {built:.0f} s)")
                    await measure(db, args.repeat)
                finally:
                    await db.dispose()


if __name__ == "__main__":
    asyncio.run(main())
