"""One demo article with everything hanging off it: designations, attributes and packaging units here;
prices, stock, declarations and media in their own modules."""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal

from datasources import phkeys
from datasources.demo.declarations import add_declarations
from datasources.demo.media import add_media
from datasources.demo.prices import add_prices
from datasources.demo.reference import ACCOMMODATION_TAX, REDUCED_TAX, STANDARD_TAX, TAX_RATES
from datasources.demo.rows import Batch, Ids, Row, timestamp
from datasources.demo.stock import add_stock
from datasources.demo.vocabulary import (
    ARTICLE_CLASSES,
    COLOUR_MARKERS,
    LANGUAGES,
    PACKAGING_OPTIONS,
    PRODUCTS,
    VARIANTS,
    UnitOption,
)
from datasources.models import Article, ArticleAttribute, ArticleDesignation, PackagingUnit

MEDIA_EVERY = 25  # articles 1, 26, 51, ... have media records
_STANDARD_RATE = TAX_RATES[STANDARD_TAX]


@dataclass(frozen=True, slots=True)
class DemoArticle:
    """What the generators of the rows hanging off an article need to know about it."""

    id: int
    number: str
    designations: dict[str, str]  # every language, whether stored or not
    tax_rate: Decimal
    base_cents: int  # net price per base unit, in CHF cents
    units: tuple[UnitOption, ...]  # packaging units; empty: price and stock on the article itself
    stock_managed: bool
    colour: str
    has_media: bool


def article_number(article_id: int) -> str:
    return f"A-{article_id:06d}"


def add_article(rng: random.Random, ids: Ids, batch: Batch, article_id: int) -> None:
    article, row = _draw_article(rng, article_id)
    batch.add(Article, row)
    batch.extend(ArticleDesignation, _designations(rng, article))
    batch.extend(ArticleAttribute, _attributes(rng, article))
    batch.extend(PackagingUnit, _packaging_units(rng, ids, article, row["weight"]))
    add_prices(rng, ids, batch, article)
    add_stock(rng, ids, batch, article)
    add_declarations(rng, ids, batch, article)
    if article.has_media:
        add_media(rng, ids, batch, article)


def _draw_article(rng: random.Random, article_id: int) -> tuple[DemoArticle, Row]:
    product = rng.choice(PRODUCTS)
    variant = rng.choice(VARIANTS)
    size = rng.choice(product.sizes)
    designations = {
        language: " ".join(part for part in (product.name[i], variant[i] if variant else "", size) if part)
        for i, language in enumerate(LANGUAGES)
    }
    tax_code = rng.choices((STANDARD_TAX, REDUCED_TAX, ACCOMMODATION_TAX, None), weights=(70, 15, 3, 12))[0]
    colour = rng.choice(COLOUR_MARKERS)
    stock_managed = rng.random() < 0.9
    article = DemoArticle(
        id=article_id,
        number=article_number(article_id),
        designations=designations,
        tax_rate=_STANDARD_RATE if tax_code is None else TAX_RATES[tax_code],
        base_cents=_base_cents(rng),
        units=_draw_units(rng, product.unit),
        stock_managed=stock_managed,
        colour=colour,
        has_media=(article_id - 1) % MEDIA_EVERY == 0,
    )
    row = {
        "id": article_id,
        "number": article.number,
        "stock_managed": stock_managed,
        "status": rng.choices((1, 0, 2), weights=(92, 4, 4))[0],
        "unit": product.unit,
        "colour": colour if rng.random() < 0.3 else None,
        "tax_code": tax_code,
        "group": product.group,
        "article_class": rng.choice(ARTICLE_CLASSES) if rng.random() < 0.7 else None,
        "procurement_type": rng.choices(("K", "E", None), weights=(70, 25, 5))[0],
        "processing_type": "C" if rng.random() < 0.1 else "N",
        "weight": _weight(rng, product.unit),
        "modified_at": timestamp(rng),
    }
    return article, row


def _base_cents(rng: random.Random) -> int:
    # Mostly cheap consumables, a few items in the hundreds of francs.
    return 10 + min(round(rng.lognormvariate(2.5, 1.2) * 100), 500_00)


def _draw_units(rng: random.Random, unit: str) -> tuple[UnitOption, ...]:
    if rng.random() >= 0.4:
        return ()
    base, *larger = PACKAGING_OPTIONS[unit]
    return (base, *sorted(rng.sample(larger, rng.randint(1, len(larger))), key=lambda u: u.factor))


def _weight(rng: random.Random, unit: str) -> Decimal | None:
    if unit == "kg":
        return Decimal(1)
    if rng.random() < 0.3:
        return None
    return Decimal(rng.randint(20, 15_000)) / 1000


def _designations(rng: random.Random, article: DemoArticle) -> list[Row]:
    # Some articles are only described in German, the fallback language.
    languages = LANGUAGES if rng.random() < 0.8 else LANGUAGES[:1]
    return [
        {"article_id": article.id, "language": language, "text": article.designations[language]}
        for language in languages
    ]


def _attributes(rng: random.Random, article: DemoArticle) -> list[Row]:
    contents: dict[str, str] = {}
    if rng.random() < 0.9:
        contents[phkeys.EXPOSED] = "1"
    if article.units:
        allowed = _allowed_units(rng, article.units)
        if allowed is not None:
            contents[phkeys.PACKAGING_UNITS] = allowed
    # Half the articles with media name a default usage, so records without one show the fallback.
    if (article.has_media and (article.id // MEDIA_EVERY) % 2 == 0) or rng.random() < 0.05:
        contents[phkeys.USAGE] = "WEB"
    if rng.random() < 0.2:
        contents["HERSTELLER"] = rng.choice(("Demo AG", "Muster & Co.", "Atelier Genève"))
    return [{"article_id": article.id, "key": key, "contents": value} for key, value in contents.items()]


def _allowed_units(rng: random.Random, units: tuple[UnitOption, ...]) -> str | None:
    """WEBSHOPVPE: a proper subset of the codes restricts; empty lets all through; None: no attribute."""
    draw = rng.random()
    if draw < 0.35:
        kept = rng.sample(units, rng.randint(1, len(units) - 1))
        return ",".join(unit.code for unit in units if unit in kept)
    return "" if draw < 0.55 else None


def _packaging_units(rng: random.Random, ids: Ids, article: DemoArticle, weight: Decimal | None) -> list[Row]:
    return [
        {
            "id": ids.next(PackagingUnit),
            "article_id": article.id,
            "code": unit.code,
            "ean": _ean13(rng),
            "designation": unit.designation if rng.random() < 0.8 else None,
            "factor": Decimal(unit.factor),
            "weight_factor": None if weight is None else Decimal(unit.factor),
            "weight": None if weight is None else weight * unit.factor + Decimal("0.25"),
            "content_weight": None if weight is None else weight * unit.factor,
        }
        for unit in article.units
    ]


def _ean13(rng: random.Random) -> str:
    digits = f"76{rng.randrange(10**10):010d}"
    checksum = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return digits + str(-checksum % 10)
