"""GraphQL types of the catalogue. Each description names the ERP field it stands for."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import strawberry
from strawberry.scalars import Base64

from datasources.catalogue import articles
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
from schema.context import Context
from schema.scalars import UtcDateTime


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


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
            max_quantity=_float(tier.max_quantity),
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

    @classmethod
    def of(cls, record: MediaFile) -> MediaContent:
        return cls(file_name=record.file_name, content_type=record.content_type, content=Base64(record.content))


@strawberry.type(description="A packaging unit (Verpackungen entry, VPE) with its own prices and stock.")
class PackagingUnit:
    code: str = strawberry.field(description="VPEinheit: id code.")
    ean: str | None = strawberry.field(description="VPEEANNr: EAN.")
    designation: str | None = strawberry.field(description="VPBezeichnung.")
    factor: float = strawberry.field(description="Faktor: quantity of base units.")
    weight_factor: float | None = strawberry.field(description="Gewicht: article to VPE weight factor.")
    weight: float | None = strawberry.field(description="VPEGewicht: weight of the VPE.")
    content_weight: float | None = strawberry.field(description="GewichtInhalt: weight of the content.")
    article: strawberry.Private[ArticleRecord]
    view: strawberry.Private[CatalogueView]

    @classmethod
    def of(cls, article: ArticleRecord, view: CatalogueView, record: PackagingUnitRecord) -> PackagingUnit:
        return cls(
            code=record.code,
            ean=record.ean,
            designation=record.designation,
            factor=float(record.factor),
            weight_factor=_float(record.weight_factor),
            weight=_float(record.weight),
            content_weight=_float(record.content_weight),
            article=article,
            view=view,
        )

    @strawberry.field(description="Preis: price tiers of this unit; null when it has no price.")
    async def prices(self, info: strawberry.Info[Context]) -> list[Price] | None:
        by_unit = await info.context.catalogue.prices.load((self.article.id, self.view))
        tiers = by_unit.get(self.code)
        return [Price.of(self.article.number, t) for t in tiers] if tiers else None

    @strawberry.field(description="Bestand: stock of this unit in released warehouses.")
    async def stock(self, info: strawberry.Info[Context]) -> list[StockEntry]:
        records = await info.context.catalogue.stock.load(self.article.id)
        return [StockEntry.of(self.article.number, r) for r in records if r.packaging_unit == self.code]


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
    record: strawberry.Private[ArticleRecord]
    view: strawberry.Private[CatalogueView]

    @classmethod
    def of(cls, record: ArticleRecord, view: CatalogueView) -> Article:
        return cls(
            number=record.number,
            stock_managed=record.stock_managed,
            status=record.status,
            unit=record.unit,
            colour=record.colour,
            tax_rate=_float(record.tax_rate),
            group=record.group,
            article_class=record.article_class,
            procurement_type=record.procurement_type,
            processing_type=record.processing_type,
            weight=_float(record.weight),
            modified_at=UtcDateTime(record.modified_at),
            currency=view.currency,
            record=record,
            view=view,
        )

    @strawberry.field(description="ArtBez: designation in the output language, else in German.")
    async def designation(self, info: strawberry.Info[Context]) -> str | None:
        return await info.context.catalogue.designation.load((self.record.id, self.view.language))

    @strawberry.field(description="attributes: the article's PHKey attributes.")
    async def attributes(self, info: strawberry.Info[Context]) -> list[Attribute]:
        return [Attribute.of(a) for a in await info.context.catalogue.attributes.load(self.record.id)]

    @strawberry.field(description="HatVPE: the article has packaging units (then prices and stock are theirs).")
    async def has_packaging_units(self, info: strawberry.Info[Context]) -> bool:
        return (await info.context.catalogue.packaging.load(self.record.id)).has_units

    @strawberry.field(
        description="Verpackungen: the packaging units WEBSHOPVPE lets through (all when it is empty); "
        "null when the article has none."
    )
    async def packaging_units(self, info: strawberry.Info[Context]) -> list[PackagingUnit] | None:
        packaging = await info.context.catalogue.packaging.load(self.record.id)
        if not packaging.has_units:
            return None
        return [PackagingUnit.of(self.record, self.view, unit) for unit in packaging.visible]

    @strawberry.field(
        description="Preis: price tiers of the base unit; null when there is none or the article has "
        "packaging units (their prices hang under packagingUnits)."
    )
    async def prices(self, info: strawberry.Info[Context]) -> list[Price] | None:
        loaders = info.context.catalogue
        # Both requested before either is awaited, so the units' prices of the whole page come in the same
        # batch (and without asyncio.gather's cost: the futures are awaited one after the other).
        packaging_of = loaders.packaging.load(self.record.id)
        prices_of = loaders.prices.load((self.record.id, self.view))
        packaging, by_unit = await packaging_of, await prices_of
        tiers = None if packaging.has_units else by_unit.get(None)
        return [Price.of(self.record.number, t) for t in tiers] if tiers else None

    @strawberry.field(
        description="Bestand: stock of the base unit in released warehouses; null when the article has "
        "packaging units (their stock hangs under packagingUnits)."
    )
    async def stock(self, info: strawberry.Info[Context]) -> list[StockEntry] | None:
        loaders = info.context.catalogue
        packaging_of, stock_of = loaders.packaging.load(self.record.id), loaders.stock.load(self.record.id)
        packaging, records = await packaging_of, await stock_of
        if packaging.has_units:
            return None
        return [StockEntry.of(self.record.number, r) for r in records if r.packaging_unit is None]

    @strawberry.field(description="Deklaration: origin declarations, in every language there is one.")
    async def declarations(self, info: strawberry.Info[Context]) -> list[Declaration]:
        records = await info.context.catalogue.declarations.load(self.record.id)
        return [Declaration.of(self.record.number, r) for r in records]

    @strawberry.field(description="ArtikelMedia: the article's media records.")
    async def media(self, info: strawberry.Info[Context]) -> list[Media]:
        return [Media.of(self.record, r) for r in await info.context.catalogue.media.load(self.record.id)]


@strawberry.type(description="A page of articles (ArtikelListe).")
class ArticlePage:
    items: list[Article] = strawberry.field(description="The articles of the page.")
    has_next_page: bool = strawberry.field(
        description="Whether articles follow this page (read with the page, without counting); false without a limit."
    )
    query: strawberry.Private[ArticleQuery]

    @strawberry.field(description="How many articles match, over all pages (counted only when asked for).")
    async def total_count(self, info: strawberry.Info[Context]) -> int:
        return await articles.count_articles(info.context.db.reads, self.query)
