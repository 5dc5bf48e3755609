"""The article search finds exactly what folding finds (ArtNr or a designation in any language contains the
folded term), whether its term is looked up in the trigram index or compared on every article; the index
follows every write, whoever writes; and a term few articles have reads about what it finds, not the
catalogue. On the backend under test."""

from __future__ import annotations

import contextlib
import random
import sqlite3

import pytest
from sqlalchemy import delete, update

from datasources.catalogue.articles import (
    ArticleFilter,
    ArticleQuery,
    article_numbers,
    count_articles,
    count_statement,
    find_articles,
    page_statement,
)
from datasources.catalogue.search import search_kind
from datasources.database import Database
from datasources.folding import fold_text
from datasources.models import Article, ArticleDesignation
from tests.datasources.catalogue.test_page_plans import add_articles
from tests.factories import Factory
from tests.plans import plan, sql, work

KELVIN, DOTTED_I = "\u212a", "\u0130"  # the two non-ASCII letters that fold to ASCII ones
# ArtNr -> designations: capitals beyond ASCII, the letters above, LIKE's and FTS5's special characters,
# several lines, padding.
ARTICLES = {
    "A-700": {"ger": "ÖLFILTER", "fre": "FILTRE À HUILE"},
    "A-701": {"ger": f"{DOTTED_I}STANBUL TEPPICH", "eng": f"Carpet KEL{DOTTED_I}M"},
    "A-702": {"ger": f"{KELVIN}ELVIN-Thermometer"},
    "A-703": {"ger": "Straße 100% _Rabatt_ \\ Pfad", "ita": 'Detto "Sconto"'},
    "A-704": {"ger": "  Mini-Kit\nZweite Zeile  "},
    "KIT-9": {"ger": "Schraube"},
    "A-706": {"ger": "Kinderschere", "fre": "Ciseaux d'enfant"},
    # Python lower-cases a word's last Σ to a final sigma, PostgreSQL's lower() to a plain one.
    "A-707": {"ger": "Strassenschild", "ell": "ΠΙΝΑΚΙΔΑ ΟΔΟΣΗΜΑΝΣΗΣ"},
}
TERMS = [
    "ölfilter", "ÖLFILTER", "lfilter", "filtre à", "STANBUL", "stanbul tep", "keli", "kelvin", "KELVIN",
    "elvin-thermo", "straße", "STRASSE", "100%", "% _rab", "_rabatt_", "\\ pfad", '"sconto"', 'o "s', "mini-kit",
    "kit\nzweite", "zeile", "  KIT-9 ", "kit", "KIT", "ki", "ö", "öl", "a-70", "enfant", "nothing like it", "ß",
    "istanbul", f"{DOTTED_I}stanbul", f"{DOTTED_I}STANBUL TEP", f"kel{DOTTED_I}m", "KELIM", "ΟΔΟΣ", "ΑΚΙΔΑ ΟΔΟΣ",
    "ΟΔΟΣΗΜΑΝΣΗΣ", "ΝΣΗΣ",
]  # fmt: skip


def found_by_folding(search: str) -> list[str]:
    term = fold_text(search)
    assert term is not None
    return sorted(
        number
        for number, texts in ARTICLES.items()
        if term in (fold_text(number) or "") or any(term in (fold_text(text) or "") for text in texts.values())
    )


@pytest.fixture
async def articles(factory: Factory) -> Factory:
    for number, designations in ARTICLES.items():
        await factory.article(number, designations=designations)
    await factory.article("A-799", designations={"ger": "Ölfilter, nicht freigegeben"}, exposed=False)
    return factory


async def found(db: Database, search: str) -> list[str]:
    page = await find_articles(db.reads, ArticleQuery(filter=ArticleFilter(search=search), limit=100))
    return sorted(record.number for record in page.records)


@pytest.mark.parametrize("search", TERMS)
async def test_a_search_finds_what_folding_finds(db: Database, articles: Factory, search: str) -> None:
    query = ArticleQuery(filter=ArticleFilter(search=search))
    expected = found_by_folding(search)
    assert await found(db, search) == expected
    assert await count_articles(db.reads, query) == len(expected)
    assert sorted(await article_numbers(db.reads, query)) == expected


async def test_random_parts_of_the_texts_find_what_folding_finds(db: Database, articles: Factory) -> None:
    """Parts of every text, ASCII letters' case changed at random: indexed or not, the same answer."""
    chance = random.Random(15)
    texts = [text for number, texts in ARTICLES.items() for text in (number, *texts.values())]
    differences = []
    kinds = set()
    for _ in range(60):
        text = chance.choice(texts)
        start = chance.randrange(len(text))
        part = text[start : start + chance.randint(1, 8)]
        search = "".join(char.swapcase() if char.isascii() and chance.random() < 0.5 else char for char in part)
        if not search.strip():
            continue
        kinds.add(search_kind(search))
        if (got := await found(db, search)) != (expected := found_by_folding(search)):
            differences.append(f"{search!r}: {got} != {expected}")
    assert differences == []
    assert kinds == {"indexed", "compared"}


async def test_the_index_follows_every_write(db: Database, factory: Factory) -> None:
    hammer = await factory.article("H-1", designations={"ger": "Hammer"})
    assert await found(db, "hammer") == ["H-1"]
    await factory.add(ArticleDesignation(article_id=hammer.id, language="fre", text="Marteau"))
    assert await found(db, "marteau") == await found(db, "hammer") == ["H-1"]

    async with db.writer() as session, session.begin():
        await session.execute(
            update(ArticleDesignation)
            .where(ArticleDesignation.article_id == hammer.id, ArticleDesignation.language == "ger")
            .values(text="Fäustel")
        )
        await session.execute(update(Article).where(Article.id == hammer.id).values(number="F-77"))
    assert await found(db, "hammer") == [] == await found(db, "h-1")
    assert await found(db, "fäustel") == await found(db, "f-77") == await found(db, "marteau") == ["F-77"]

    async with db.writer() as session, session.begin():
        await session.execute(delete(ArticleDesignation).where(ArticleDesignation.language == "fre"))
    assert await found(db, "marteau") == []
    assert await found(db, "f-77") == ["F-77"]
    async with db.writer() as session, session.begin():
        await session.execute(delete(Article).where(Article.id == hammer.id))
    assert await found(db, "f-77") == [] == await found(db, "fäustel")


def uses_the_index(db: Database, shown: str) -> bool:
    if db.engine.dialect.name == "postgresql":
        return "ix_article_designation_search" in shown and "ix_article_search_number" in shown
    return "article_search VIRTUAL TABLE" in shown


@pytest.mark.parametrize("limit", [10, 1000])
async def test_a_term_few_articles_have_reads_what_it_finds(db: Database, limit: int) -> None:
    """The page and the count of a search for one article's number and for a text no article has use the
    index, and read as much in a catalogue 20 times the size."""
    await db.engine.dispose()  # fresh connections after the bulk loads (SQLite reads new statistics)
    searches = ["B-000123", "nowhere"]
    queries = [ArticleQuery(filter=ArticleFilter(search=search), limit=limit) for search in searches]
    statements = [make(query) for query in queries for make in (page_statement, count_statement)]
    await add_articles(db, 1, 400)
    small = [await work(db, sql(db, statement)) for statement in statements]
    await add_articles(db, 401, 7600)
    await db.engine.dispose()
    large = [await work(db, sql(db, statement)) for statement in statements]
    async with db.engine.connect() as conn:
        shown = [await plan(db, conn, statement) for statement in statements]
    assert [text for text in shown if not uses_the_index(db, text)] == []
    grown = [f"{before} -> {after}" for before, after in zip(small, large, strict=True) if after > 2 * before + 100]
    assert grown == []


async def test_a_term_too_short_for_the_index_is_compared_in_list_order(db: Database) -> None:
    """The control: such a search reads the articles in the list's order, without the index."""
    assert search_kind("öl") == "compared"
    async with db.engine.connect() as conn:
        shown = await plan(db, conn, page_statement(ArticleQuery(filter=ArticleFilter(search="öl"), limit=10)))
    assert not uses_the_index(db, shown)


async def vacuum(db: Database) -> None:
    if db.engine.dialect.name == "sqlite":  # as the sqlite3 shell does it, outside the gateway's connections
        await db.engine.dispose()
        with contextlib.closing(sqlite3.connect(str(db.engine.url.database), isolation_level=None)) as conn:
            conn.execute("VACUUM")
        return
    async with db.engine.connect() as conn:
        await (await conn.execution_options(isolation_level="AUTOCOMMIT")).exec_driver_sql("VACUUM")


async def test_the_index_survives_vacuum(db: Database, factory: Factory) -> None:
    """SQLite's VACUUM may renumber the rows of a table without an INTEGER PRIMARY KEY (the designations', its
    documentation says); the index is keyed by one of its own, and finds the right articles afterwards."""
    for n in range(6):
        await factory.article(f"V-{n}", designations={"ger": f"Ventil {n}", "fre": f"Soupape {n}"})
    async with db.writer() as session, session.begin():
        await session.execute(delete(ArticleDesignation).where(ArticleDesignation.text.in_(["Ventil 1", "Soupape 4"])))
    await vacuum(db)
    assert await found(db, "ventil") == ["V-0", "V-2", "V-3", "V-4", "V-5"]
    assert await found(db, "soupape") == ["V-0", "V-1", "V-2", "V-3", "V-5"]
