"""The sort keys of the article list (article_sort_key) follow every write, made by the database's triggers:
whoever writes articles, designations or tax codes (the gateway, the demo, the ERP) leaves them current."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import delete, insert, select, update

from datasources.database import Database
from datasources.models import (
    Article,
    ArticleAttribute,
    ArticleDesignation,
    ArticleListing,
    ArticleSortKey,
    ArticleSortLanguage,
    TaxCode,
)
from tests.factories import Factory

Keys = dict[tuple[str, str], tuple[str, Decimal | None]]


async def keys(db: Database) -> Keys:
    """(ArtNr, language) -> (designation key, tax rate key)."""
    stmt = select(ArticleSortKey.number, ArticleSortKey.language, ArticleSortKey.designation, ArticleSortKey.tax_rate)
    async with db.reader() as session:
        return {(row.number, row.language): (row.designation, row.tax_rate) for row in await session.execute(stmt)}


async def languages(db: Database) -> set[str]:
    async with db.reader() as session:
        return set(await session.scalars(select(ArticleSortLanguage.language)))


async def write(db: Database, *statements: object) -> None:
    async with db.writer() as session, session.begin():
        for statement in statements:
            await session.execute(statement)  # type: ignore[call-overload]


async def test_keys_follow_articles_designations_and_tax_codes(db: Database, factory: Factory) -> None:
    await factory.reference_data()
    assert await languages(db) == {"ger"}  # seeded by the migration
    hammer = await factory.article("A-1", designations={"ger": "Hammer"}, tax_code="R26")
    rate, standard = Decimal("2.6"), Decimal("8.1")
    assert await keys(db) == {("A-1", "ger"): ("Hammer", rate)}

    # A first French text: every article gets French keys, falling back to German where it has none.
    pliers = await factory.article("A-2", designations={"ger": "Zange", "fre": "Pince"})
    assert await languages(db) == {"ger", "fre"}
    assert await keys(db) == {
        ("A-1", "ger"): ("Hammer", rate),
        ("A-1", "fre"): ("Hammer", rate),
        ("A-2", "ger"): ("Zange", standard),
        ("A-2", "fre"): ("Pince", standard),
    }
    # New articles get keys in every listed language, before and after their designations arrive.
    await factory.article("A-3", designations={}, tax_code="B38")
    assert (await keys(db))[("A-3", "fre")] == ("", Decimal("3.8"))

    # A German text changes the keys of every language that falls back to it, and only those.
    await write(
        db,
        update(ArticleDesignation)
        .where(ArticleDesignation.article_id == pliers.id, ArticleDesignation.language == "ger")
        .values(text="Kombizange"),
        update(ArticleDesignation).where(ArticleDesignation.article_id == hammer.id).values(text="Schlosserhammer"),
    )
    current = await keys(db)
    assert current[("A-2", "ger")] == ("Kombizange", standard)
    assert current[("A-2", "fre")] == ("Pince", standard)
    assert current[("A-1", "fre")] == ("Schlosserhammer", rate)

    # Deleting the French text falls back to German; renumbering and a new tax code follow the article.
    await write(
        db,
        delete(ArticleDesignation).where(
            ArticleDesignation.article_id == pliers.id, ArticleDesignation.language == "fre"
        ),
        update(Article).where(Article.id == hammer.id).values(number="A-10", tax_code=None),
    )
    current = await keys(db)
    assert current[("A-2", "fre")] == ("Kombizange", standard)
    assert current[("A-10", "ger")] == ("Schlosserhammer", standard)
    assert ("A-1", "ger") not in current

    # A tax code's rate, and the standard rate of articles without a code.
    await write(
        db,
        update(TaxCode).where(TaxCode.code == "B38").values(rate=Decimal("3.5")),
        update(TaxCode).where(TaxCode.code == "N81").values(rate=Decimal("8.2")),
    )
    current = await keys(db)
    assert current[("A-3", "ger")] == ("", Decimal("3.5"))
    assert current[("A-10", "fre")] == ("Schlosserhammer", Decimal("8.2"))

    # Deleting an article deletes its keys (its designations go with it).
    await write(db, delete(Article).where(Article.id == pliers.id))
    assert {number for number, _ in await keys(db)} == {"A-10", "A-3"}


async def listed(db: Database) -> dict[str, tuple[bool, str | None, bool]]:
    """ArtNr -> (exposed in article_listing, its copy of ArtGruppe, exposed in every language's keys)."""
    async with db.reader() as session:
        keys = set(await session.execute(select(ArticleSortKey.article_id, ArticleSortKey.exposed)))
        rows = await session.execute(
            select(ArticleListing.article_id, ArticleListing.number, ArticleListing.exposed, ArticleListing.group)
        )
        return {
            row.number: (
                row.exposed,
                row.group,
                all(exposed == row.exposed for id_, exposed in keys if id_ == row.article_id),
            )
            for row in rows
        }


async def test_the_exposure_and_the_listed_columns_follow_attributes_and_articles(
    db: Database, factory: Factory
) -> None:
    shown = await factory.article("A-1", designations={"ger": "Hammer", "fre": "Marteau"}, group="WERKZEUG")
    hidden = await factory.article("A-2", exposed=False)
    assert await listed(db) == {"A-1": (True, "WERKZEUG", True), "A-2": (False, None, True)}

    exposing = ArticleAttribute.key == "RESTWEBSHOP"
    await write(
        db,
        delete(ArticleAttribute).where(ArticleAttribute.article_id == shown.id, exposing),
        insert(ArticleAttribute).values(article_id=hidden.id, key="OTHER", contents=""),
        update(Article).where(Article.id == hidden.id).values(group="GARTEN", number="A-3"),
    )
    assert await listed(db) == {"A-1": (False, "WERKZEUG", True), "A-3": (False, "GARTEN", True)}
    # An attribute renamed to RESTWEBSHOP exposes its article; one renamed away hides it.
    await write(db, update(ArticleAttribute).where(ArticleAttribute.key == "OTHER").values(key="RESTWEBSHOP"))
    assert await listed(db) == {"A-1": (False, "WERKZEUG", True), "A-3": (True, "GARTEN", True)}
    await write(db, update(ArticleAttribute).where(exposing).values(key="OTHER"))
    assert await listed(db) == {"A-1": (False, "WERKZEUG", True), "A-3": (False, "GARTEN", True)}
    # A new language's keys carry the exposure.
    await write(db, update(ArticleAttribute).where(ArticleAttribute.key == "OTHER").values(key="RESTWEBSHOP"))
    await factory.article("A-4", designations={"ita": "Martello"})
    assert await listed(db) == {
        "A-1": (False, "WERKZEUG", True),
        "A-3": (True, "GARTEN", True),
        "A-4": (True, None, True),
    }
    await write(db, delete(Article).where(Article.id == shown.id))
    assert set(await listed(db)) == {"A-3", "A-4"}
