"""A long list is read in parts (rest_compat/articles.py): the list's numbers once (`article_numbers`), then
its articles a part at a time by those numbers (`ArticleFilter.numbers`). The numbers come in the page's own
order for every sort, language, filter, limit and offset; a part reads its articles by ArtNr's index, not the
catalogue. On the backend under test."""

from __future__ import annotations

import pytest

from datasources.catalogue.articles import (
    ArticleFilter,
    ArticleQuery,
    article_numbers,
    count_articles,
    find_articles,
    numbers_query,
    page_query,
)
from datasources.catalogue.ordering import Sort, SortField
from datasources.database import Database
from datasources.demo import fill_demo
from tests.datasources.catalogue.test_page_plans import ORDER_INDEXES, SORTS, add_articles, sorts_the_catalogue
from tests.plans import query_plan, work


@pytest.fixture
async def demo(db: Database) -> Database:
    assert await fill_demo(db.engine, articles=1500, customers=5, seed=1)
    return db


FILTERS = [
    ArticleFilter(),
    ArticleFilter(search="a-00"),
    ArticleFilter(available=True),
    ArticleFilter(numbers=("A-000010", "A-000003", "A-000999", "A-999999")),
]


async def test_the_numbers_come_in_the_order_of_the_page(demo: Database) -> None:
    differ = []
    for sort in SORTS:
        for language in ("ger", "fre", "spa"):
            for flt in FILTERS:
                for limit, offset in ((None, 0), (25, 0), (30, 7), (None, 1400)):
                    query = ArticleQuery(language, flt, (sort,), limit, offset)
                    found = await find_articles(demo.reads, query)
                    expected = [record.number for record in found.records]
                    # With a limit the numbers hold one more: whether more follow.
                    numbers = await article_numbers(demo.reads, query)
                    if numbers[:limit] != expected or (len(numbers) > len(expected)) != found.has_more:
                        differ.append(f"{sort} {language} {flt} {limit} {offset}")
    assert differ == []
    assert len(await article_numbers(demo.reads, ArticleQuery())) == await count_articles(demo.reads, ArticleQuery())


async def test_numbers_select_those_articles_whatever_their_order(demo: Database) -> None:
    every = await article_numbers(demo.reads, ArticleQuery())
    chosen = (every[40], every[3], every[1000], "A-999999", every[3])
    query = ArticleQuery(filter=ArticleFilter(numbers=chosen), sort=(Sort(SortField.NUMBER),))
    found = await find_articles(demo.reads, query)
    assert [record.number for record in found.records] == sorted({every[3], every[40], every[1000]})
    empty = ArticleQuery(filter=ArticleFilter(numbers=()))
    assert (await find_articles(demo.reads, empty)).records == []
    assert await count_articles(demo.reads, ArticleQuery(filter=ArticleFilter(numbers=chosen))) == 3


async def test_the_rows_a_part_reads_do_not_grow_with_the_catalogue(db: Database) -> None:
    """A part reads its articles by ArtNr's index, not the catalogue, whichever sort it asks for."""
    await db.engine.dispose()  # fresh connections after the bulk loads (SQLite reads new statistics)
    part = ArticleFilter(numbers=tuple(f"B-{i:06d}" for i in range(101, 401, 10)))  # 30 of them
    sorts = (Sort(SortField.NUMBER), Sort(SortField.DESIGNATION))
    queries = [ArticleQuery(language, part, (sort,)) for sort in sorts for language in ("ger", "fre")]
    await add_articles(db, 1, 400)
    small = [await _work(db, query) for query in queries]
    await add_articles(db, 401, 7600)  # 20 times the articles
    await db.engine.dispose()
    large = [await _work(db, query) for query in queries]
    assert [len((await find_articles(db.reads, query)).records) for query in queries] == [30] * 4
    grown = [
        f"{query.sort[0]} in {query.language}: {before} -> {after}"
        for query, before, after in zip(queries, small, large, strict=True)
        if after > 1.5 * before + 50
    ]
    assert grown == []


async def _work(db: Database, query: ArticleQuery) -> int:
    """plans.work of the part's statement as the reads run it: with its list parameter bound."""
    statement, params = page_query(query)
    compiled = statement.compiled(db.engine.dialect)
    return await work(db, compiled.sql, compiled.arguments(params))


async def test_a_page_of_numbers_is_read_from_the_sort_index(demo: Database) -> None:
    """As a page of articles (test_page_plans.py). The whole list is read whole: a sort of it costs no more."""
    sorting = []
    async with demo.engine.connect() as conn:
        for sort in SORTS:
            for language in ("ger", "fre"):
                query = ArticleQuery(language, sort=(sort,), limit=20, offset=40)
                shown = await query_plan(demo, conn, *numbers_query(query))
                if sorts_the_catalogue(demo, shown) or not any(index in shown for index in ORDER_INDEXES):
                    sorting.append(f"{sort} in {language}:\n{shown}")
    assert sorting == []


def _scans_articles(db: Database, shown: str) -> bool:
    if db.engine.dialect.name == "postgresql":
        return "Seq Scan on article " in shown + " "
    return any(line.strip().startswith("SCAN article") and "USING" not in line for line in shown.splitlines())
