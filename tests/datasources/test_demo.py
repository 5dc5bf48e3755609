"""The demo data: deterministic, written only into an empty database, and exercising every catalogue rule."""

# The rule queries are assembled from constants of this file only, never from input.
# ruff: noqa: S608

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import String, Table, func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from datasources.database import Database, create_database
from datasources.demo import fill as fill_module
from datasources.demo import fill_demo
from datasources.migrate import upgrade
from datasources.models import Article, ArticleDesignation, Base, Customer, Media

ARTICLES, CUSTOMERS, SEED = 300, 20, 1
DEMO_TABLES = (
    "currency", "tax_code", "price_list", "warehouse", "customer", "article", "article_designation",
    "article_attribute", "packaging_unit", "price", "stock", "reservation", "declaration", "media",
)  # fmt: skip

# Each query is positive when the data shows one rule of the catalogue at work.
_EXPOSED = "EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = a.id AND x.key = 'RESTWEBSHOP')"
_HAS_UNITS = "EXISTS (SELECT 1 FROM packaging_unit u WHERE u.article_id = a.id)"
_RESERVED = """(SELECT coalesce(sum(r.quantity), 0) FROM reservation r WHERE r.article_id = s.article_id
    AND r.warehouse_id = s.warehouse_id AND r.packaging_unit IS s.packaging_unit)"""


def _priced(list_type: str, currency: str = "%") -> str:
    return f"""EXISTS (SELECT 1 FROM price p JOIN price_list l ON l.id = p.price_list_id
        WHERE p.article_id = a.id AND l.list_type = '{list_type}' AND p.currency LIKE '{currency}')"""


def _media(condition: str) -> str:
    return f"SELECT count(*) FROM media m WHERE {condition}"


RULES = {
    "leading currency CHF rounds to 0.05": "SELECT count(*) FROM currency WHERE is_leading AND code = 'CHF'"
    " AND rounding_step = 0.05",
    "standard tax rate 8.1": "SELECT count(*) FROM tax_code WHERE is_standard AND rate = 8.1",
    "default price list": "SELECT count(*) FROM price_list WHERE is_default",
    "gross price list": "SELECT count(*) FROM price_list WHERE price_kind = 'B'",
    "unreleased warehouse": "SELECT count(*) FROM warehouse WHERE NOT released",
    "exposed article": f"SELECT count(*) FROM article a WHERE {_EXPOSED}",
    "unexposed article": f"SELECT count(*) FROM article a WHERE NOT {_EXPOSED}",
    "inactive article": "SELECT count(*) FROM article WHERE status <> 1",
    "article without tax code": "SELECT count(*) FROM article WHERE tax_code IS NULL",
    "article with reduced tax": "SELECT count(*) FROM article WHERE tax_code = 'R26'",
    "article with colour marker": "SELECT count(*) FROM article WHERE colour LIKE '#______'",
    "article without colour marker": "SELECT count(*) FROM article WHERE colour IS NULL",
    "batch-managed article": "SELECT count(*) FROM article WHERE processing_type = 'C'",
    "article with weight": "SELECT count(*) FROM article WHERE weight IS NOT NULL",
    "article with packaging units": f"SELECT count(*) FROM article a WHERE {_HAS_UNITS}",
    "article without packaging units": f"SELECT count(*) FROM article a WHERE NOT {_HAS_UNITS}",
    "13-digit EAN": "SELECT count(*) FROM packaging_unit WHERE length(ean) = 13",
    "WEBSHOPVPE hiding a packaging unit": """SELECT count(*) FROM article_attribute v
        JOIN packaging_unit u ON u.article_id = v.article_id
        WHERE v.key = 'WEBSHOPVPE' AND v.contents <> ''
        AND instr(',' || v.contents || ',', ',' || u.code || ',') = 0""",
    "empty WEBSHOPVPE": "SELECT count(*) FROM article_attribute WHERE key = 'WEBSHOPVPE' AND contents = ''",
    "designation only in German": """SELECT count(*) FROM article a
        WHERE (SELECT group_concat(language) FROM article_designation d WHERE d.article_id = a.id) = 'ger'""",
    "price in CHF in the default list": f"SELECT count(*) FROM article a WHERE {_priced('STD', 'CHF')}",
    "price in EUR in the default list": f"SELECT count(*) FROM article a WHERE {_priced('STD', 'EUR')}",
    "price in CHF in the reseller list": f"SELECT count(*) FROM article a WHERE {_priced('WV', 'CHF')}",
    "price in EUR in the reseller list": f"SELECT count(*) FROM article a WHERE {_priced('WV', 'EUR')}",
    "price in the gross list": f"SELECT count(*) FROM article a WHERE {_priced('BRUTTO')}",
    "price only in the reseller list": f"SELECT count(*) FROM article a WHERE {_priced('WV')} AND NOT {_priced('STD')}",
    "price only in the default list": f"SELECT count(*) FROM article a WHERE {_priced('STD')} AND NOT {_priced('WV')}",
    "exposed article without any price": f"SELECT count(*) FROM article a WHERE {_EXPOSED}"
    " AND NOT EXISTS (SELECT 1 FROM price p WHERE p.article_id = a.id)",
    "price per packaging unit": "SELECT count(*) FROM price WHERE packaging_unit IS NOT NULL",
    "price on the article itself": "SELECT count(*) FROM price WHERE packaging_unit IS NULL",
    "several price tiers": """SELECT count(*) FROM (SELECT 1 FROM price
        GROUP BY article_id, price_list_id, currency, packaging_unit
        HAVING count(DISTINCT min_quantity) > 1)""",
    "price range": "SELECT count(*) FROM price WHERE price_range IS NOT NULL",
    "stock in a released warehouse": "SELECT count(*) FROM stock s JOIN warehouse w ON w.id = s.warehouse_id"
    " WHERE w.released",
    "stock in an unreleased warehouse": "SELECT count(*) FROM stock s JOIN warehouse w"
    " ON w.id = s.warehouse_id WHERE NOT w.released",
    "stock per packaging unit": "SELECT count(*) FROM stock WHERE packaging_unit IS NOT NULL",
    "negative net stock": f"SELECT count(*) FROM stock s WHERE s.on_hand < {_RESERVED}",
    "zero net stock": f"SELECT count(*) FROM stock s WHERE s.on_hand = {_RESERVED}",
    "positive net stock": f"SELECT count(*) FROM stock s WHERE s.on_hand > {_RESERVED}",
    "declarations in several languages": """SELECT count(*) FROM (SELECT 1 FROM declaration
        GROUP BY article_id HAVING count(DISTINCT language) > 1)""",
    "image-only media": _media("m.image IS NOT NULL AND m.text IS NULL AND m.image_format = 'png'"),
    "image with text media": _media("m.image IS NOT NULL AND m.text IS NOT NULL AND m.image_format = 'jpg'"),
    "text-only media": _media("m.image IS NULL AND m.text IS NOT NULL"),
    "html text media": _media("m.text_format = 'html'"),
    "media with language and country": _media("m.language IS NOT NULL AND m.country IS NOT NULL"),
    "media with its own usage": _media("m.usage IS NOT NULL"),
    "media usage from VERWENDUNG": _media(
        "m.usage IS NULL AND EXISTS (SELECT 1 FROM article_attribute v"
        " WHERE v.article_id = m.article_id AND v.key = 'VERWENDUNG')"
    ),
    "media without any usage": _media(
        "m.usage IS NULL AND NOT EXISTS (SELECT 1 FROM article_attribute v"
        " WHERE v.article_id = m.article_id AND v.key = 'VERWENDUNG')"
    ),
    "customers in all four languages": "SELECT count(DISTINCT language) = 4 FROM customer",
    "customer with the gross list": "SELECT count(*) FROM customer WHERE price_list_type = 'BRUTTO'",
    "customer paying in EUR": "SELECT count(*) FROM customer WHERE currency = 'EUR'",
    "customer without price list": "SELECT count(*) FROM customer WHERE price_list_type IS NULL",
    "customer with the reseller list": "SELECT count(*) FROM customer WHERE price_list_type = 'WV'",
}


@asynccontextmanager
async def demo_database(path: Path, **options: Any) -> AsyncIterator[AsyncEngine]:
    db = create_database(f"sqlite+aiosqlite:///{path}")
    try:
        await upgrade(db.engine)
        assert await fill_demo(db.engine, **({"articles": ARTICLES, "customers": CUSTOMERS} | options))
        yield db.engine
    finally:
        await db.dispose()


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    async with demo_database(tmp_path / "demo.db", seed=SEED) as engine:
        yield engine


async def dump(engine: AsyncEngine, names: tuple[str, ...] = DEMO_TABLES) -> dict[str, list[tuple[Any, ...]]]:
    async with engine.connect() as conn:
        return {
            name: [tuple(row) for row in await conn.execute(select(table).order_by(*table.primary_key))]
            for name, table in ((name, Base.metadata.tables[name]) for name in names)
        }


async def test_the_same_seed_gives_identical_data(tmp_path: Path) -> None:
    async with (
        demo_database(tmp_path / "a.db", seed=7) as first,
        demo_database(tmp_path / "b.db", seed=7) as second,
    ):
        assert await dump(first) == await dump(second)


async def test_a_different_seed_gives_different_data(tmp_path: Path) -> None:
    varying = ("customer", "article", "article_designation", "price", "stock")
    async with (
        demo_database(tmp_path / "a.db", seed=1) as first,
        demo_database(tmp_path / "b.db", seed=2) as second,
    ):
        one, other = await dump(first, varying), await dump(second, varying)
    assert [name for name in varying if one[name] == other[name]] == []


async def test_chunking_does_not_change_the_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with demo_database(tmp_path / "a.db") as whole:
        expected = await dump(whole)
    monkeypatch.setattr(fill_module, "CHUNK_SIZE", 70)
    async with demo_database(tmp_path / "b.db") as chunked:
        assert await dump(chunked) == expected


async def test_progress_is_reported_per_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fill_module, "CHUNK_SIZE", 120)
    reported: list[int] = []
    async with demo_database(tmp_path / "demo.db", progress=reported.append):
        pass
    assert reported == [120, 120, ARTICLES - 240]


async def test_a_second_fill_writes_nothing(demo: AsyncEngine) -> None:
    before = await dump(demo)
    assert await fill_demo(demo, articles=10, customers=5, seed=SEED + 1) is False
    assert await dump(demo) == before


async def test_the_requested_numbers_are_written(demo: AsyncEngine) -> None:
    async with demo.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(Article)) == ARTICLES
        assert await conn.scalar(select(func.count()).select_from(Customer)) == CUSTOMERS


async def test_every_catalogue_rule_is_present(demo: AsyncEngine) -> None:
    async with demo.connect() as conn:
        missing = [rule for rule, query in RULES.items() if not await conn.scalar(text(query))]
    assert missing == []


async def test_designations_differ_per_language_and_use_accents(demo: AsyncEngine) -> None:
    async with demo.connect() as conn:
        rows = (await conn.execute(select(ArticleDesignation.article_id, ArticleDesignation.text))).all()
    by_article: dict[int, list[str]] = {}
    for article_id, designation in rows:
        by_article.setdefault(article_id, []).append(designation)
    assert any(len(texts) == 4 and len(set(texts)) == 4 for texts in by_article.values())
    assert any(not designation.isascii() for _, designation in rows)


async def test_media_images_are_real_png_and_jpeg(demo: AsyncEngine) -> None:
    async with demo.connect() as conn:
        stmt = select(Media.file_name, Media.image_format, Media.image).where(Media.image.is_not(None))
        rows = (await conn.execute(stmt)).all()
    pillow_formats = {"png": "PNG", "jpg": "JPEG"}
    assert {image_format for _, image_format, _ in rows} == set(pillow_formats)
    for file_name, image_format, image in rows:
        assert image is not None and image_format is not None
        assert file_name.endswith(f".{image_format}")
        with Image.open(BytesIO(image)) as opened:
            assert opened.format == pillow_formats[image_format]
            opened.load()


async def test_timestamps_are_aware_utc(demo: AsyncEngine) -> None:
    async with demo.connect() as conn:
        stamps = (await conn.scalars(select(Article.modified_at).union_all(select(Media.modified_at)))).all()
    assert stamps
    assert {stamp.utcoffset() for stamp in stamps} == {dt.timedelta(0)}


async def test_strings_fit_their_columns(demo: AsyncEngine) -> None:
    too_long = []
    async with demo.connect() as conn:
        for table in (Base.metadata.tables[name] for name in DEMO_TABLES):
            for column in _string_columns(table):
                limit = _SPEC_LIMITS.get((table.name, column.name), column.type.length)
                longest = await conn.scalar(select(func.max(func.length(column))))
                if longest is not None and limit is not None and longest > limit:
                    too_long.append(f"{table.name}.{column.name}")
    assert too_long == []


# Narrower in the specification (ArtGruppe char(12), ArtKlasse char(8)) than in the model.
_SPEC_LIMITS = {("article", "group"): 12, ("article", "article_class"): 8}


def _string_columns(table: Table) -> list[Any]:
    return [column for column in table.columns if isinstance(column.type, String)]


async def test_a_fill_leaves_the_planners_statistics(db: Database) -> None:
    """On the backend under test: the tables the demo filled are analysed after it wrote them."""
    async with db.engine.connect() as conn:
        started = None if db.engine.dialect.name == "sqlite" else await conn.scalar(text("SELECT now()"))
    assert await fill_demo(db.engine, articles=40, customers=5, seed=SEED)
    async with db.engine.connect() as conn:
        if started is None:
            # sqlite_stat1: per index, the rows of its table first.
            stats = await conn.execute(text("SELECT tbl, stat FROM sqlite_stat1 WHERE idx IS NOT NULL"))
            rows = {table: int(stat.split()[0]) for table, stat in stats}
            assert rows["article"] == 40
            assert rows["article_sort_key"] == 40 * 4  # every article in each of the demo's four languages
        else:
            analysed = await conn.scalars(
                text("SELECT relname FROM pg_stat_user_tables WHERE last_analyze >= :started"), {"started": started}
            )
            assert {"article", "article_sort_key", "article_designation", "price", "stock"} <= set(analysed)
