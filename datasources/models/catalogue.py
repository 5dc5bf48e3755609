"""The catalogue side of the ERP: articles and everything hanging off them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy import Boolean, ForeignKey, Index, LargeBinary, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from datasources.clock import utcnow
from datasources.models.base import Base, Quantity


class Currency(Base):
    """WaehrAbk. Exactly one currency is the leading one (CHF in the demo)."""

    __tablename__ = "currency"
    code: Mapped[str] = mapped_column(String(3), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    is_leading: Mapped[bool] = mapped_column(Boolean, default=False)
    rounding_step: Mapped[Decimal] = mapped_column(default=Decimal("0.01"))
    __table_args__ = (
        Index(
            "uq_currency_leading",
            "is_leading",
            unique=True,
            sqlite_where=text("is_leading"),
            postgresql_where=text("is_leading"),
        ),
    )


class TaxCode(Base):
    """WUSTCode with its rate; the one marked standard is the fallback rate of articles without a code."""

    __tablename__ = "tax_code"
    code: Mapped[str] = mapped_column(String(6), primary_key=True)
    designation: Mapped[str] = mapped_column(String(60))
    rate: Mapped[Decimal] = mapped_column()
    tax_class: Mapped[str] = mapped_column(String(1), default="C")  # D German, C Swiss, X other form
    is_standard: Mapped[bool] = mapped_column(Boolean, default=False)
    # Lines of the tax form: turnover, sales tax, input tax (PosUSTUZiffer, PosUSTSZiffer, PosVSTSZiffer).
    turnover_line: Mapped[str | None] = mapped_column(String(6))
    sales_tax_line: Mapped[str | None] = mapped_column(String(6))
    input_tax_line: Mapped[str | None] = mapped_column(String(6))
    __table_args__ = (
        Index(
            "uq_tax_code_standard",
            "is_standard",
            unique=True,
            sqlite_where=text("is_standard"),
            postgresql_where=text("is_standard"),
        ),
    )


class PriceList(Base):
    """A price list; `list_type` is what customers refer to. One list is the configured default."""

    __tablename__ = "price_list"
    id: Mapped[int] = mapped_column(primary_key=True)
    list_type: Mapped[str] = mapped_column(String(12), unique=True)
    name: Mapped[str] = mapped_column(String(60))
    price_kind: Mapped[str] = mapped_column(String(1), default="N")  # Preisart: N net, B gross
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)
    __table_args__ = (
        Index(
            "uq_price_list_default",
            "is_default",
            unique=True,
            sqlite_where=text("is_default"),
            postgresql_where=text("is_default"),
        ),
    )


class Article(Base):
    __tablename__ = "article"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(15), unique=True)  # ArtNr
    stock_managed: Mapped[bool] = mapped_column(Boolean, default=True)  # AnLager
    status: Mapped[int] = mapped_column(default=1)  # ArtikelStatus
    unit: Mapped[str] = mapped_column(String(12), default="Stk")  # Einheit
    colour: Mapped[str | None] = mapped_column(String(12))  # Farbe
    tax_code: Mapped[str | None] = mapped_column(ForeignKey("tax_code.code"))
    group: Mapped[str | None] = mapped_column(String(15), index=True)  # ArtGruppe
    article_class: Mapped[str | None] = mapped_column(String(12), index=True)  # ArtKlasse
    procurement_type: Mapped[str | None] = mapped_column(String(1))  # BeschaffungsArt
    processing_type: Mapped[str] = mapped_column(String(1), default="N")  # VerarbeitungsArt
    weight: Mapped[Decimal | None] = mapped_column(Quantity)  # ArtGewicht, kg
    modified_at: Mapped[dt.datetime] = mapped_column(default=utcnow)  # GeaendertAmUTC


class ArticleDesignation(Base):
    """ArtBez per language (ISO 639-2/B)."""

    __tablename__ = "article_designation"
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), primary_key=True)
    language: Mapped[str] = mapped_column(String(3), primary_key=True)
    text: Mapped[str] = mapped_column(String(255))


class ArticleAttribute(Base):
    """PHKey/Contents pairs that configure output (RESTWEBSHOP, WEBSHOPVPE, VERWENDUNG, ...)."""

    __tablename__ = "article_attribute"
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(12), primary_key=True)
    contents: Mapped[str] = mapped_column(String(200), default="")
    __table_args__ = (Index("ix_article_attribute_key", "key", "article_id"),)


class PackagingUnit(Base):
    """VPE: a packaging unit of an article."""

    __tablename__ = "packaging_unit"
    id: Mapped[int] = mapped_column(primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(30))  # VPEinheit
    ean: Mapped[str | None] = mapped_column(String(30))  # VPEEANNr
    designation: Mapped[str | None] = mapped_column(String(255))  # VPBezeichnung
    factor: Mapped[Decimal] = mapped_column(Quantity, default=Decimal(1))  # Faktor
    weight_factor: Mapped[Decimal | None] = mapped_column(Quantity)  # Gewicht
    weight: Mapped[Decimal | None] = mapped_column(Quantity)  # VPEGewicht
    content_weight: Mapped[Decimal | None] = mapped_column(Quantity)  # GewichtInhalt
    __table_args__ = (UniqueConstraint("article_id", "code"),)


class Price(Base):
    """One tier of a price: valid from `min_quantity` (AbAnzahl) up to the next tier's."""

    __tablename__ = "price"
    id: Mapped[int] = mapped_column(primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"))
    price_list_id: Mapped[int] = mapped_column(ForeignKey("price_list.id"))
    currency: Mapped[str] = mapped_column(ForeignKey("currency.code"))
    packaging_unit: Mapped[str | None] = mapped_column(String(30))  # VPEinheit, NULL: base unit
    price_range: Mapped[str | None] = mapped_column(String(15))  # Bereich
    min_quantity: Mapped[Decimal] = mapped_column(Quantity, default=Decimal(1))  # AbAnzahl
    amount: Mapped[Decimal] = mapped_column()  # PreisList
    modified_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # The list price (list_price.py) is the first entry of (article, currency, list, no unit): read from the
    # index alone (migration 0015).
    __table_args__ = (Index("ix_price_amount", "article_id", "currency", "price_list_id", "packaging_unit", "amount"),)


class Warehouse(Base):
    """LagerOrt at a location (StaoNr); only released warehouses count towards web-shop stock."""

    __tablename__ = "warehouse"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    location_number: Mapped[int] = mapped_column()  # StaoNr
    released: Mapped[bool] = mapped_column(Boolean, default=True)


class Stock(Base):
    __tablename__ = "stock"
    id: Mapped[int] = mapped_column(primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"))
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("warehouse.id"))
    packaging_unit: Mapped[str | None] = mapped_column(String(30))
    stock_range: Mapped[str | None] = mapped_column(String(15))  # Bereich
    on_hand: Mapped[Decimal] = mapped_column(Quantity, default=Decimal(0))
    __table_args__ = (
        UniqueConstraint("article_id", "warehouse_id", "packaging_unit", "stock_range"),
        # An article's net stock (stock.py) read from the index alone (migration 0015).
        Index("ix_stock_quantity", "article_id", "warehouse_id", "packaging_unit", "on_hand"),
    )


class Reservation(Base):
    """Quantity promised to open orders; deducted from the stock of the same warehouse and unit."""

    __tablename__ = "reservation"
    id: Mapped[int] = mapped_column(primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"))
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("warehouse.id"))
    packaging_unit: Mapped[str | None] = mapped_column(String(30))
    quantity: Mapped[Decimal] = mapped_column(Quantity)
    # The reservations of a stock row (article, warehouse, unit) and their quantities, from the index alone
    # (migration 0015).
    __table_args__ = (Index("ix_reservation_quantity", "article_id", "warehouse_id", "packaging_unit", "quantity"),)


class Declaration(Base):
    """Deklaration: origin declaration of an article per language."""

    __tablename__ = "declaration"
    id: Mapped[int] = mapped_column(primary_key=True)  # Nr
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), index=True)
    language: Mapped[str] = mapped_column(String(3))
    designation1: Mapped[str | None] = mapped_column(String(255))
    designation2: Mapped[str | None] = mapped_column(String(255))
    short_designation: Mapped[str | None] = mapped_column(String(60))
    country: Mapped[str | None] = mapped_column(String(2))  # OrtLand


class Media(Base):
    """One media record (IDKey): an image and/or a text."""

    __tablename__ = "media"
    id: Mapped[int] = mapped_column(primary_key=True)  # IDKey
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), index=True)
    file_name: Mapped[str] = mapped_column(String(255))  # AMDDateiName
    image: Mapped[bytes | None] = mapped_column(LargeBinary)
    image_format: Mapped[str | None] = mapped_column(String(12))  # AMDBildFormat
    text: Mapped[str | None] = mapped_column(Text)  # AMDText
    text_format: Mapped[str | None] = mapped_column(String(12))  # AMDTextFormat
    usage: Mapped[str | None] = mapped_column(String(12))  # AMDVerwendung
    language: Mapped[str | None] = mapped_column(String(3))
    country: Mapped[str | None] = mapped_column(String(2))
    comment: Mapped[str | None] = mapped_column(String(255))
    modified_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
