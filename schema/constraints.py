"""How long a text of each GraphQL type's field may be: the length of the database column it is stored in
(which the domain's validation enforces on input). The REST layer's OpenAPI document states them."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from sqlalchemy import String

from datasources import iso, models
from datasources.models.base import Base

# GraphQL object and input types, and the table their fields are stored in.
_MODELS: dict[str, type[Base]] = {
    "Article": models.Article,
    "Attribute": models.ArticleAttribute,
    "Price": models.Price,
    "StockEntry": models.Stock,
    "PackagingUnit": models.PackagingUnit,
    "Declaration": models.Declaration,
    "Media": models.Media,
    "Address": models.Address,
    "AddressInput": models.Address,
    "Customer": models.Customer,
    "CustomerCreateInput": models.Customer,
    "SalesDocument": models.SalesDocument,
    "DocumentInput": models.SalesDocument,
    "OfferUpdateInput": models.SalesDocument,
    "OfferConvertInput": models.SalesDocument,
    "Position": models.DocumentPosition,
    "PositionInput": models.DocumentPosition,
    "PositionChangeInput": models.DocumentPosition,
    "Payment": models.DocumentPayment,
    "PaymentInput": models.DocumentPayment,
    "TaxSummaryLine": models.TaxCode,  # a line per tax code, computed from the positions
    "CustomerOrder": models.SalesDocument,
}
# Fields stored under another name or in another table.
_ELSEWHERE: dict[tuple[str, str], tuple[type[Base], str]] = {
    ("Article", "designation"): (models.ArticleDesignation, "text"),
    ("Article", "currency"): (models.Currency, "code"),  # the view's currency
    ("Price", "articleNumber"): (models.Article, "number"),
    ("Price", "priceKind"): (models.PriceList, "price_kind"),
    ("StockEntry", "articleNumber"): (models.Article, "number"),
    ("StockEntry", "warehouse"): (models.Warehouse, "name"),
    ("Declaration", "articleNumber"): (models.Article, "number"),
    ("Media", "articleNumber"): (models.Article, "number"),
    ("Media", "articleGroup"): (models.Article, "group"),
    ("SalesDocument", "paymentConditionText"): (models.PaymentCondition, "text"),
    ("OfferConvertInput", "offerNumber"): (models.SalesDocument, "number"),
    ("TaxSummaryLine", "currency"): (models.SalesDocument, "currency"),
}


def max_length(type_name: str, field_name: str) -> int | None:
    """The column length of a text field, or None (not text, unbounded, or not stored as such)."""
    return _lengths(type_name).get(field_name)


@cache
def _lengths(type_name: str) -> dict[str, int]:
    model = _MODELS.get(type_name)
    lengths = {}
    if model is not None:
        for column in model.__table__.columns:
            if isinstance(column.type, String) and column.type.length:
                lengths[_camel(column.key)] = column.type.length
    for (owner, field), (other, column_name) in _ELSEWHERE.items():
        if owner == type_name:
            column_type = other.__table__.columns[column_name].type
            if isinstance(column_type, String) and column_type.length:
                lengths[field] = column_type.length
    return lengths


def _camel(snake: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda match: match.group(1).upper(), snake)


def codes(kind: str) -> frozenset[str]:
    """The codes a field of this kind accepts (any case): `currency` ISO 4217, `language` ISO 639-2/B,
    `country` ISO 3166 alpha-2."""
    lists: dict[str, Callable[[], frozenset[str]]] = {
        "currency": iso.currency_codes,
        "language": iso.language_codes,
        "country": iso.country_codes,
    }
    return lists[kind]()
