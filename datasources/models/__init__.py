from datasources.models import article_search  # its indexes belong to the metadata
from datasources.models.article_change import ArticleChange, ArticleChangeLog, ArticleEventState
from datasources.models.article_order import ArticleListing, ArticleSortKey, ArticleSortLanguage
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
from datasources.models.company import CompanyAttribute, NumberSequence, OutboxEvent
from datasources.models.customers import Address, Customer, CustomerAddress, CustomerAttribute
from datasources.models.sales import (
    DocumentPayment,
    DocumentPosition,
    IdempotentRequest,
    PaymentCondition,
    SalesDocument,
)
from datasources.models.users import ApiUser
from datasources.models.webhooks import DeliveryStatus, WebhookDelivery, WebhookEndpoint

__all__ = [
    "Address",
    "ApiUser",
    "Article",
    "ArticleAttribute",
    "ArticleChange",
    "ArticleChangeLog",
    "ArticleDesignation",
    "ArticleEventState",
    "ArticleListing",
    "ArticleSortKey",
    "ArticleSortLanguage",
    "Base",
    "CompanyAttribute",
    "Currency",
    "Customer",
    "CustomerAddress",
    "CustomerAttribute",
    "Declaration",
    "DeliveryStatus",
    "DocumentPayment",
    "DocumentPosition",
    "IdempotentRequest",
    "Media",
    "NumberSequence",
    "OutboxEvent",
    "PackagingUnit",
    "PaymentCondition",
    "Price",
    "PriceList",
    "Reservation",
    "SalesDocument",
    "Stock",
    "TaxCode",
    "Warehouse",
    "WebhookDelivery",
    "WebhookEndpoint",
    "article_search",
]
