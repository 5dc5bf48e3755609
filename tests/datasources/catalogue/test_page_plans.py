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
from datasources.database import Database
from datasources.demo import fill_demo
from datasources.models import Article, ArticleAttribute, ArticleDesignation
from datasources.planner import analyze
from tests import plans
from tests.plans import plan, sql

SORTS = [Sort(field, descending) for field in SortField for descending in (False, True)]
# German; a language of the demo (French); one no designation is written in (sorts as German).
LANGUAGES = ("ger", "fre", "spa")
# The indexes that hold the orders (ArtNr's unique index is named by SQLite itself there).
ORDER_INDEXES = ("ix_article_order_", "ix_article_sort_key_", "uq_article_number", "sqlite_autoindex_article_1")


def sorts_the_catalogue(db: Database, shown: str) -> bool:
    """SQLite: a temporary B-tree for (part of) the ORDER BY; PostgreSQL: a Sort node (incremental or not)."""
    return "Sort" in shown if db.engine.dialect.name == "postgresql" else "TEMP B-TREE" in shown


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


async def test_the_count_reads_only_the_exposing_attribute(demo: Database) -> None:
    async with demo.engine.connect() as conn:
        shown = await plan(demo, conn, count_statement(ArticleQuery()))
    assert "article_attribute" in shown
    assert "article " not in shown.replace("\n", " ") + " "  # no look at the articles themselves
    if demo.engine.dialect.name == "sqlite":
        assert "COVERING INDEX ix_article_attribute_key" in shown


# --- the rows a page reads, at two sizes of the catalogue --------------------------------------------


async def add_articles(db: Database, first: int, count: int) -> None:
    """Exposed articles with a German and a French designation, in bulk (the triggers make their keys)."""
    ids = range(first, first + count)
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
        await conn.execute(insert(ArticleAttribute), [{"article_id": i, "key": "RESTWEBSHOP"} for i in ids])
        await conn.execute(
            insert(ArticleDesignation),
            [
                {"article_id": i, "language": lang, "text": f"{lang} {i * 7919 % count}"}
                for i in ids
                for lang in ("ger", "fre")
            ],
        )
    await analyze(db.engine)


async def work(db: Database, statement: Select[Any]) -> int:
    return await plans.work(db, sql(db, statement))


async def test_the_rows_a_page_reads_do_not_grow_with_the_catalogue(db: Database) -> None:
    await db.engine.dispose()  # fresh connections after the bulk loads (SQLite reads new statistics)
    queries = [ArticleQuery(language=lang, sort=(sort,), limit=10) for sort in SORTS for lang in ("ger", "fre")]
    await add_articles(db, 1, 400)
    small = [await work(db, page_statement(query)) for query in queries]
    await add_articles(db, 401, 7600)  # 20 times the articles
    await db.engine.dispose()
    large = [await work(db, page_statement(query)) for query in queries]
    grown = [
        f"{query.sort[0]} in {query.language}: {before} -> {after}"
        for query, before, after in zip(queries, small, large, strict=True)
        if after > 1.5 * before + 50
    ]
    assert grown == []
