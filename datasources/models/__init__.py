from datasources.models.base import Base
from datasources.models.catalogue import (
    Article,
    ArticleAttribute,
    ArticleDesignation,
    Currency,
    Declaration,
    Media,
    PackagingUnit,
    Price,
    PriceList,
    Reservation,
    Stock,
    TaxCode,
    Warehouse,
)
from datasources.models.customers import Customer
from datasources.models.users import ApiUser

__all__ = [
    "ApiUser",
    "Article",
    "ArticleAttribute",
    "ArticleDesignation",
    "Base",
    "Currency",
    "Customer",
    "Declaration",
    "Media",
    "PackagingUnit",
    "Price",
    "PriceList",
    "Reservation",
    "Stock",
    "TaxCode",
    "Warehouse",
]
