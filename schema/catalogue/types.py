"""GraphQL types of the catalogue. Each description names the ERP field it stands for."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP

import strawberry
from strawberry.scalars import Base64

from datasources.catalogue import articles, versions
from datasources.catalogue.articles import ArticleQuery
from datasources.catalogue.records import (
    ArticleRecord,
    AttributeRecord,
    DeclarationRecord,
    MediaFile,
    MediaRecord,
    PackagingUnitRecord,
    PriceTier,
    StockRecord,
)
from datasources.catalogue.view import CatalogueView
from datasources.errors import Unprocessable
from schema.batches import batch_field
from schema.context import Context
from schema.scalars import UtcDateTime, float_or_none

ARTICLE_VERSION = (
    "Changes when anything this article's answer holds changes (whoever writes it, the ERP too) or the view's "
    "customer or leading currency does: as articleVersion gives it with the same arguments. Opaque."
)
PAGE_VERSION = (
    "Changes when an article enters, leaves or changes within this page, or whether more follow, or the "
    "view's customer or leading currency changes; not when an article outside it changes: as articlesVersion "
    "gives it with the same arguments. Opaque."
)


@strawberry.type(description="An attribute (PHKey/Contents) configuring an article's output.")
class Attribute:
    key: str = strawberry.field(description="PHKey: the attribute's unique name.")
    contents: str = strawberry.field(description="Contents.")

    @classmethod
    def of(cls, record: AttributeRecord) -> Attribute:
        return cls(key=record.key, contents=record.contents)


@strawberry.type(description="One tier of a price (Preis entry).")
class Price:
    article_number: str = strawberry.field(description="ArtNr.")
    price_range: str | None = strawberry.field(description="Bereich: price range.")
    min_quantity: float = strawberry.field(description="AbAnzahl: valid from this quantity.")
    max_quantity: float | None = strawberry.field(
        description="BisAnzahl: valid below this quantity (the next tier's AbAnzahl); null on the last tier."
    )
    amount: float = strawberry.field(description="PreisList: list price in the requested currency.")
    price_kind: str = strawberry.field(description="Preisart: N net, B gross.")
    packaging_unit: str | None = strawberry.field(description="VPEinheit; null for the base unit.")
    modified_at: UtcDateTime = strawberry.field(description="GeaendertAmUTC.")

    @classmethod
    def of(cls, article_number: str, tier: PriceTier) -> Price:
        return cls(
            article_number=article_number,
            price_range=tier.price_range,
            min_quantity=float(tier.min_quantity),
            max_quantity=float_or_none(tier.max_quantity),
            amount=float(tier.amount),
            price_kind=tier.price_kind,
            packaging_unit=tier.packaging_unit,
            modified_at=UtcDateTime(tier.modified_at),
        )


@strawberry.type(description="Stock of one warehouse (Bestand entry), after reservations.")
class StockEntry:
    article_number: str = strawberry.field(description="ArtNr.")
    warehouse: str = strawberry.field(description="LagerOrt: warehouse name.")
    location_number: int = strawberry.field(description="StaoNr: location number.")
    quantity: int = strawberry.field(description="LagerBestand: on hand minus reservations; may be negative.")
    packaging_unit: str | None = strawberry.field(description="VPEinheit; null for the base unit.")
    stock_range: str | None = strawberry.field(description="Bereich: stock range.")

    @classmethod
    def of(cls, article_number: str, record: StockRecord) -> StockEntry:
        return cls(
            article_number=article_number,
            warehouse=record.warehouse,
            location_number=record.location_number,
            # LagerBestand is an int in the interface: fractional stock rounds to the nearest unit.
            quantity=int(record.quantity.to_integral_value(ROUND_HALF_UP)),
            packaging_unit=record.packaging_unit,
            stock_range=record.stock_range,
        )


@strawberry.type(description="An origin declaration of an article (Deklaration entry).")
class Declaration:
    number: int = strawberry.field(description="Nr: unique number.")
    language: str = strawberry.field(description="AdrSprache: ISO 639-2/B.")
    article_number: str = strawberry.field(description="ArtNr.")
    designation1: str | None = strawberry.field(description="Bezeichnung1.")
    designation2: str | None = strawberry.field(description="Bezeichnung2.")
    short_designation: str | None = strawberry.field(description="KurzBezeichnung.")
    country: str | None = strawberry.field(description="OrtLand: ISO 3166 alpha-2.")

    @classmethod
    def of(cls, article_number: str, record: DeclarationRecord) -> Declaration:
        return cls(
            number=record.id,
            language=record.language,
            article_number=article_number,
            designation1=record.designation1,
            designation2=record.designation2,
            short_designation=record.short_designation,
            country=record.country,
        )


@strawberry.type(description="A media record (IDKey): an image and/or a text of an article.")
class Media:
    id: int = strawberry.field(description="IDKey: unique key of the file.")
    image_format: str | None = strawberry.field(description="AMDBildFormat.")
    text_format: str | None = strawberry.field(description="AMDTextFormat.")
    usage: str | None = strawberry.field(
        description="AMDVerwendung: the record's own, else the article's VERWENDUNG attribute."
    )
    language: str | None = strawberry.field(description="AdrSprache: ISO 639-2/B.")
    country: str | None = strawberry.field(description="OrtLand: ISO 3166 alpha-2.")
    modified_at: UtcDateTime = strawberry.field(description="Modified_UTC.")
    article_group: str | None = strawberry.field(description="ArtGruppe.")
    article_number: str = strawberry.field(description="ArtNr.")
    file_name: str = strawberry.field(description="AMDDateiName.")
    text: str | None = strawberry.field(description="AMDText: the text content.")
    comment: str | None = strawberry.field(description="Kommentar.")
    has_image: bool = strawberry.field(description="Whether the record holds an image.")

    @classmethod
    def of(cls, article: ArticleRecord, record: MediaRecord) -> Media:
        return cls(
            id=record.id,
            image_format=record.image_format,
            text_format=record.text_format,
            usage=record.usage,
            language=record.language,
            country=record.country,
            modified_at=UtcDateTime(record.modified_at),
            article_group=article.group,
            article_number=article.number,
            file_name=record.file_name,
            text=record.text,
            comment=record.comment,
            has_image=record.has_image,
        )


@strawberry.type(description="The image or text of a media record (ArtikelMediaDaten).")
class MediaContent:
    file_name: str = strawberry.field(description="AMDDateiName.")
    content_type: str = strawberry.field(description="MIME type of the content.")
    content: Base64 = strawberry.field(description="The file's bytes.")
    version: str = strawberry.field(
        description="Changes when the media record or its article changes: as mediaContentVersion gives it."
    )

    @classmethod
    def of(cls, record: MediaFile) -> MediaContent:
        return cls(
            file_name=record.file_name,
            content_type=record.content_type,
            content=Base64(record.content),
            version=record.version,
        )


async def _unit_prices(units: Sequence[PackagingUnit], context: Context) -> list[list[Price] | None]:
    by_units = await context.catalogue.prices.load_many([(unit.article.id, unit.view) for unit in units])
    return [
        _price_list(unit.article.number, by_unit.get(unit.code)) for unit, by_unit in zip(units, by_units, strict=True)
    ]


async def _unit_stock(units: Sequence[PackagingUnit], context: Context) -> list[list[StockEntry] | Unprocessable]:
    stock = await context.catalogue.stock.load_many([unit.article.id for unit in units])
    return [_stock_list(unit.article.number, records, unit.code) for unit, records in zip(units, stock, strict=True)]


@strawberry.type(description="A packaging unit (Verpackungen entry, VPE) with its own prices and stock.")
class PackagingUnit:
    code: str = strawberry.field(description="VPEinheit: id code.")
    ean: str | None = strawberry.field(description="VPEEANNr: EAN.")
    designation: str | None = strawberry.field(description="VPBezeichnung.")
    factor: float = strawberry.field(description="Faktor: quantity of base units.")
    weight_factor: float | None = strawberry.field(description="Gewicht: article to VPE weight factor.")
    weight: float | None = strawberry.field(description="VPEGewicht: weight of the VPE.")
    content_weight: float | None = strawberry.field(description="GewichtInhalt: weight of the content.")
    prices: list[Price] | None = batch_field(
        _unit_prices, description="Preis: price tiers of this unit; null when it has no price."
    )
    stock: list[StockEntry] = batch_field(
        _unit_stock, description="Bestand: stock of this unit in released warehouses."
    )
    article: strawberry.Private[ArticleRecord]
    view: strawberry.Private[CatalogueView]

    @classmethod
    def of(cls, article: ArticleRecord, view: CatalogueView, record: PackagingUnitRecord) -> PackagingUnit:
        return cls(
            code=record.code,
            ean=record.ean,
            designation=record.designation,
            factor=float(record.factor),
            weight_factor=float_or_none(record.weight_factor),
            weight=float_or_none(record.weight),
            content_weight=float_or_none(record.content_weight),
            article=article,
            view=view,
        )


def _price_list(article_number: str, tiers: list[PriceTier] | None) -> list[Price] | None:
    return [Price.of(article_number, tier) for tier in tiers] if tiers else None


# LagerBestand is an integer of the interface (GraphQL's Int: 32 bits); the ERP's stock may exceed it.
_INT_RANGE = range(-(2**31), 2**31)


def _stock_list(article_number: str, records: list[StockRecord], unit: str | None) -> list[StockEntry] | Unprocessable:
    """The stock entries of the unit; an article whose stock the interface cannot hold is answered with the
    error that names the record, as that article's (or unit's) value: the page's other articles keep theirs."""
    entries = [StockEntry.of(article_number, r) for r in records if r.packaging_unit == unit]
    for entry in entries:
        if entry.quantity not in _INT_RANGE:
            return Unprocessable(
                f"the stock of article {article_number} in warehouse {entry.warehouse} is {entry.quantity}, "
                "beyond what LagerBestand (a 32-bit integer) holds",
                info={"ArtNr": article_number, "LagerOrt": entry.warehouse, "VPEinheit": unit},
            )
    return entries


# The article's batch fields: each asks its loaders for the whole level of articles at once.


async def _designations(articles: Sequence[Article], context: Context) -> list[str | None]:
    return await context.catalogue.designation.load_many([(a.record.id, a.view.language) for a in articles])


async def _attributes(articles: Sequence[Article], context: Context) -> list[list[Attribute]]:
    found = await context.catalogue.attributes.load_many([a.record.id for a in articles])
    return [[Attribute.of(record) for record in records] for records in found]


async def _has_packaging_units(articles: Sequence[Article], context: Context) -> list[bool]:
    return [p.has_units for p in await context.catalogue.packaging.load_many([a.record.id for a in articles])]


async def _packaging_units(articles: Sequence[Article], context: Context) -> list[list[PackagingUnit] | None]:
    found = await context.catalogue.packaging.load_many([a.record.id for a in articles])
    return [
        [PackagingUnit.of(a.record, a.view, unit) for unit in packaging.visible] if packaging.has_units else None
        for a, packaging in zip(articles, found, strict=True)
    ]


async def _prices(articles: Sequence[Article], context: Context) -> list[list[Price] | None]:
    loaders = context.catalogue
    # The prices first: their statement reads the packaging units too, and answers `packaging` with them
    # unless another field asked for it already (schema/catalogue/loaders.py).
    by_units = await loaders.prices.load_many([(a.record.id, a.view) for a in articles])
    packaging = await loaders.packaging.load_many([a.record.id for a in articles])
    return [
        None if p.has_units else _price_list(a.record.number, by_unit.get(None))
        for a, p, by_unit in zip(articles, packaging, by_units, strict=True)
    ]


async def _stock(articles: Sequence[Article], context: Context) -> list[list[StockEntry] | Unprocessable | None]:
    loaders = context.catalogue
    packaging_of = loaders.packaging.load_many([a.record.id for a in articles])
    stock_of = loaders.stock.load_many([a.record.id for a in articles])
    packaging, stock = await packaging_of, await stock_of
    return [
        None if p.has_units else _stock_list(a.record.number, records, None)
        for a, p, records in zip(articles, packaging, stock, strict=True)
    ]


async def _declarations(articles: Sequence[Article], context: Context) -> list[list[Declaration]]:
    found = await context.catalogue.declarations.load_many([a.record.id for a in articles])
    return [[Declaration.of(a.record.number, r) for r in records] for a, records in zip(articles, found, strict=True)]


async def _media(articles: Sequence[Article], context: Context) -> list[list[Media]]:
    found = await context.catalogue.media.load_many([a.record.id for a in articles])
    return [[Media.of(a.record, r) for r in records] for a, records in zip(articles, found, strict=True)]


@strawberry.type(description="An exposed article (Artikel): one with the RESTWEBSHOP attribute.")
class Article:
    number: str = strawberry.field(description="ArtNr: article number.")
    stock_managed: bool = strawberry.field(description="AnLager: stock-managed (J/N).")
    status: int = strawberry.field(description="ArtikelStatus: 1 active.")
    unit: str = strawberry.field(description="Einheit.")
    colour: str | None = strawberry.field(description="Farbe: colour marker #rrggbb.")
    tax_rate: float | None = strawberry.field(description="WUSTSatz: the article's rate, else the standard rate.")
    group: str | None = strawberry.field(description="ArtGruppe.")
    article_class: str | None = strawberry.field(description="ArtKlasse.")
    procurement_type: str | None = strawberry.field(description="BeschaffungsArt.")
    processing_type: str = strawberry.field(description="VerarbeitungsArt: C batch-managed, N not.")
    weight: float | None = strawberry.field(description="ArtGewicht: weight in kg.")
    modified_at: UtcDateTime = strawberry.field(description="GeaendertAmUTC: last modification.")
    currency: str = strawberry.field(description="WaehrAbk: currency of the prices (ISO 4217).")
    designation: str | None = batch_field(
        _designations, description="ArtBez: designation in the output language, else in German."
    )
    attributes: list[Attribute] = batch_field(_attributes, description="attributes: the article's PHKey attributes.")
    has_packaging_units: bool = batch_field(
        _has_packaging_units,
        description="HatVPE: the article has packaging units (then prices and stock are theirs).",
    )
    packaging_units: list[PackagingUnit] | None = batch_field(
        _packaging_units,
        description="Verpackungen: the packaging units WEBSHOPVPE lets through (all when it is empty); "
        "null when the article has none.",
    )
    prices: list[Price] | None = batch_field(
        _prices,
        description="Preis: price tiers of the base unit; null when there is none or the article has "
        "packaging units (their prices hang under packagingUnits).",
    )
    stock: list[StockEntry] | None = batch_field(
        _stock,
        description="Bestand: stock of the base unit in released warehouses; null when the article has "
        "packaging units (their stock hangs under packagingUnits).",
    )
    declarations: list[Declaration] = batch_field(
        _declarations, description="Deklaration: origin declarations, in every language there is one."
    )
    media: list[Media] = batch_field(_media, description="ArtikelMedia: the article's media records.")
    record: strawberry.Private[ArticleRecord]
    view: strawberry.Private[CatalogueView]

    @strawberry.field(description=ARTICLE_VERSION)
    def version(self) -> str:
        return versions.records_version(self.view, (self.record,))

    @classmethod
    def of(cls, record: ArticleRecord, view: CatalogueView) -> Article:
        return cls(
            number=record.number,
            stock_managed=record.stock_managed,
            status=record.status,
            unit=record.unit,
            colour=record.colour,
            tax_rate=float_or_none(record.tax_rate),
            group=record.group,
            article_class=record.article_class,
            procurement_type=record.procurement_type,
            processing_type=record.processing_type,
            weight=float_or_none(record.weight),
            modified_at=UtcDateTime(record.modified_at),
            currency=view.currency,
            record=record,
            view=view,
        )


@strawberry.type(description="A page of articles (ArtikelListe).")
class ArticlePage:
    items: list[Article] = strawberry.field(description="The articles of the page.")
    has_next_page: bool = strawberry.field(
        description="Whether articles follow this page (read with the page, without counting); false without a limit."
    )
    query: strawberry.Private[ArticleQuery]
    view: strawberry.Private[CatalogueView]

    @strawberry.field(description=PAGE_VERSION)
    def version(self) -> str:
        return versions.records_version(self.view, (item.record for item in self.items), self.has_next_page)

    @strawberry.field(description="How many articles match, over all pages (counted only when asked for).")
    async def total_count(self, info: strawberry.Info[Context]) -> int:
        return await articles.count_articles(info.context.db.reads, self.query)
