"""Plain, immutable rows the catalogue queries hand to the schema.

Named tuples, not frozen dataclasses: a 1000-article page makes some 8,000 of them, and a frozen
dataclass's __init__ sets each field through object.__setattr__ (four times the cost)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import NamedTuple


class ArticleRecord(NamedTuple):
    id: int
    number: str
    stock_managed: bool
    status: int
    unit: str
    colour: str | None
    tax_rate: Decimal | None
    group: str | None
    article_class: str | None
    procurement_type: str | None
    processing_type: str
    weight: Decimal | None
    modified_at: dt.datetime
    # ArtBez in the output language (German where there is none in it) when the query read it with the
    # article (a page does), "" when the article has none at all; None when not read.
    designation: str | None = None
    # Where the article's changes stand (datasources/models/article_change.py), read with it: the versions of
    # the answers that hold it are made of it (datasources/catalogue/versions.py).
    change_position: int | None = None


class AttributeRecord(NamedTuple):
    key: str
    contents: str


class PackagingUnitRecord(NamedTuple):
    code: str
    ean: str | None
    designation: str | None
    factor: Decimal
    weight_factor: Decimal | None
    weight: Decimal | None
    content_weight: Decimal | None


class PriceTier(NamedTuple):
    packaging_unit: str | None
    price_range: str | None
    min_quantity: Decimal
    max_quantity: Decimal | None  # BisAnzahl: the next tier's AbAnzahl; None on the last tier
    amount: Decimal
    price_kind: str
    modified_at: dt.datetime


class StockRecord(NamedTuple):
    warehouse: str
    location_number: int
    packaging_unit: str | None
    stock_range: str | None
    quantity: Decimal  # on hand minus reservations; may be negative


class DeclarationRecord(NamedTuple):
    id: int
    language: str
    designation1: str | None
    designation2: str | None
    short_designation: str | None
    country: str | None


class MediaRecord(NamedTuple):
    id: int
    article_id: int
    file_name: str
    image_format: str | None
    text_format: str | None
    text: str | None
    usage: str | None
    language: str | None
    country: str | None
    comment: str | None
    modified_at: dt.datetime
    has_image: bool


class MediaFile(NamedTuple):
    file_name: str
    content_type: str
    content: bytes
    version: str  # changes with the record and its article (datasources/catalogue/versions.py)
