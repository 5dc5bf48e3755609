"""A page of the article list costs what the page holds: for every sort the list allows, in either direction
and in any output language, the planner reads the page in order from an index instead of sorting the
catalogue, and the rows a page reads do not grow with the catalogue. On the backend under test."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import Select, insert

from datasources.catalogue.articles import ArticleQuery, count_statement, page_statement
from datasources.catalogue.ordering import Sort, SortField
from datasources.catalogue.versions import walk_statement
from datasources.database import Database, Timeouts, create_database
from datasources.demo import fill_demo
from datasources.models import Article, ArticleAttribute, ArticleDesignation
from datasources.planner import analyze
from gateway.change_folding import fold_once
from tests import plans
from tests.plans import plan, sql

SORTS = [Sort(field, descending) for field in SortField for descending in (False, True)]
# German; a language of the demo (French); one no designation is written in (sorts as German).
LANGUAGES = ("ger", "fre", "spa")
# The indexes that hold the orders (ArtNr's unique index is named by SQLite itself there).
ORDER_INDEXES = ("ix_article_listing_", "ix_article_sort_key_")


def sorts_the_catalogue(db: Database, shown: str) -> bool:
    """SQLite: a temporary B-tree for (part of) the ORDER BY (not the change log's GROUP BY,
    datasources/catalogue/change_log.py); PostgreSQL: a Sort node (incremental or not)."""
    if db.engine.dialect.name == "postgresql":
        return "Sort" in shown
    return any("TEMP B-TREE" in line and "ORDER BY" in line for line in shown.splitlines())


@pytest.fixture
async def demo(db: Database) -> Database:
    # Large enough that an index walk beats reading everything on both planners; the demo analyses.
    assert await fill_demo(db.engine, articles=1500, customers=5, seed=1)
    return db


@pytest.mark.parametrize("page", [(10, 0), (20, 40)])
async def test_every_sort_reads_its_page_from_an_index(demo: Database, page: tuple[int, int]) -> None:
    limit, offset = page
    sorting = []
    async with demo.engine.connect() as conn:
        for sort in SORTS:
            for language in LANGUAGES:
                query = ArticleQuery(language=language, sort=(sort,), limit=limit, offset=offset)
                shown = await plan(demo, conn, page_statement(query))
                if sorts_the_catalogue(demo, shown) or not any(index in shown for index in ORDER_INDEXES):
                    sorting.append(f"{sort} in {language}:\n{shown}")
    assert sorting == []


@pytest.mark.parametrize("page", [(10, 0), (20, 40)])
async def test_a_pages_version_walks_an_order_index_alone(demo: Database, page: tuple[int, int]) -> None:
    """The version of a page (datasources/catalogue/versions.py) walks the index of its order and reads
    nothing else for the rows its offset passes: neither the articles nor, for a key of its own table, the
    other order table."""
    limit, offset = page
    wrong = []
    async with demo.engine.connect() as conn:
        for sort in SORTS:
            for language in LANGUAGES:
                query = ArticleQuery(language=language, sort=(sort,), limit=limit, offset=offset)
                shown = await plan(demo, conn, walk_statement(query))
                flat = shown.replace("\n", " ") + " "
                if sorts_the_catalogue(demo, shown) or not any(index in shown for index in ORDER_INDEXES):
                    wrong.append(f"{sort} in {language} sorts:\n{shown}")
                elif "article " in flat or ("article_listing" in flat) == ("article_sort_key" in flat):
                    wrong.append(f"{sort} in {language} reads more than its order's table:\n{shown}")
    assert wrong == []


async def test_the_count_reads_only_the_exposing_attribute(demo: Database) -> None:
    async with demo.engine.connect() as conn:
        shown = await plan(demo, conn, count_statement(ArticleQuery()))
    assert "article_attribute" in shown
    assert "article " not in shown.replace("\n", " ") + " "  # no look at the articles themselves
    if demo.engine.dialect.name == "sqlite":
        assert "COVERING INDEX ix_article_attribute_key" in shown


# --- the rows a page reads, at two sizes of the catalogue --------------------------------------------


async def add_articles(db: Database, first: int, count: int, exposed_every: int = 1) -> None:
    """Articles with a German and a French designation, in bulk (the triggers make their keys); one in
    `exposed_every` is exposed, as a shop that sells a part of the ERP's catalogue has it."""
    ids = range(first, first + count)
    # Its own engine, with a bulk load's statement timeout: on PostgreSQL executemany runs the statement per
    # row, and the change positions' statement triggers with it; a busy machine took more than a request's 10 s.
    bulk = create_database(db.engine.url.render_as_string(hide_password=False), timeouts=Timeouts(statement=600))
    try:
        await _insert(bulk, ids, count, exposed_every)
        # As a serving gateway does within half a second of a bulk write (gateway/change_folding.py): until
        # then SQLite's reads scan the change log's tail, whose size is the write's, not the catalogue's.
        await fold_once(bulk)
    finally:
        await bulk.dispose()
    await analyze(db.engine)


async def _insert(db: Database, ids: range, count: int, exposed_every: int) -> None:
    async with db.engine.begin() as conn:
        await conn.execute(
            insert(Article),
            [
                {
                    "id": i,
                    "number": f"B-{i:06d}",
                    "group": f"G{i % 7}" if i % 5 else None,
                    "weight": Decimal(i % 13) if i % 3 else None,
                    "tax_code": None,
                }
                for i in ids
            ],
        )
        exposed = [{"article_id": i, "key": "RESTWEBSHOP"} for i in ids if i % exposed_every == 0]
        await conn.execute(insert(ArticleAttribute), exposed)
        await conn.execute(
            insert(ArticleDesignation),
            [
                {"article_id": i, "language": lang, "text": f"{lang} {i * 7919 % count}"}
                for i in ids
                for lang in ("ger", "fre")
            ],
        )


async def work(db: Database, statement: Select[Any]) -> int:
    return await plans.work(db, sql(db, statement))


# A shop exposes a part of the ERP's catalogue: 1 %, 10 % or all of it.
@pytest.mark.parametrize("exposed_every", [100, 10, 1])
async def test_the_rows_a_page_reads_do_not_grow_with_the_catalogue(db: Database, exposed_every: int) -> None:
    await db.engine.dispose()  # fresh connections after the bulk loads (SQLite reads new statistics)
    queries = [ArticleQuery(language=lang, sort=(sort,), limit=10) for sort in SORTS for lang in ("ger", "fre")]
    await add_articles(db, 1, 1200, exposed_every)  # a full page of exposed ones at 1 %
    small = [await work(db, page_statement(query)) for query in queries]
    await add_articles(db, 1201, 10800, exposed_every)  # 10 times the articles
    await db.engine.dispose()
    large = [await work(db, page_statement(query)) for query in queries]
    grown = [
        f"{query.sort[0]} in {query.language}: {before} -> {after}"
        for query, before, after in zip(queries, small, large, strict=True)
        if after > 1.5 * before + 50
    ]
    assert grown == []
