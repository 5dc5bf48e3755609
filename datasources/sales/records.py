"""Records of sales documents (offers and orders), as the schema receives and hands them out."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from datasources.customers.records import AddressRecord

OFFER, ORDER = "offer", "order"
OFFER_STATUS, NEW_ORDER_STATUS = "P", "N"


@dataclass(frozen=True, slots=True)
class Header:
    """Validated GrundDaten of a new document."""

    customer_number: str | None
    currency: str | None
    description: str | None = None
    external_number: str | None = None
    reference: str | None = None
    ordered_at: dt.datetime | None = None
    delivery_at: dt.datetime | None = None
    comment: str | None = None
    cost_unit: str | None = None
    payment_condition: int | None = None
    delivery_costs: Decimal | None = None
    location: int | None = None


@dataclass(frozen=True, slots=True)
class PositionInput:
    article_number: str
    quantity: Decimal  # in the base unit
    text: str | None = None
    price: Decimal | None = None  # net, per base unit; None: the ERP determines it
    packaging_unit: str | None = None
    discount_rate: Decimal | None = None
    display_number: int | None = None


@dataclass(frozen=True, slots=True)
class PositionChange:
    """A PATCH entry: without position_number an addition; with quantity 0 a deletion."""

    position_number: int | None
    quantity: Decimal
    article_number: str | None = None
    text: str | None = None
    discount_rate: Decimal | None = None


@dataclass(frozen=True, slots=True)
class PaymentInput:
    designation: str
    value: str | None


@dataclass(frozen=True, slots=True)
class PricedPosition:
    article_number: str
    text: str | None
    quantity: Decimal
    packaging_unit: str | None
    packaging_quantity: Decimal | None
    packaging_unit_price: Decimal | None
    unit_price: Decimal
    price_given: bool
    discount_rate: Decimal | None
    total: Decimal
    tax_code: str
    tax_rate: Decimal
    tax_amount: Decimal
    display_number: int | None = None


@dataclass(frozen=True, slots=True)
class PositionRecord:
    position_number: int
    display_number: int | None
    article_number: str
    text: str | None
    quantity: Decimal
    price_basis: Decimal
    unit_price: Decimal
    total: Decimal
    tax_amount: Decimal
    packaging_quantity: Decimal | None
    packaging_unit_price: Decimal | None
    packaging_unit: str | None
    tax_rate: Decimal
    discount_rate: Decimal | None
    tax_code: str


@dataclass(frozen=True, slots=True)
class PaymentRecord:
    key: str
    designation: str
    value: str | None


@dataclass(frozen=True, slots=True)
class TaxLine:
    """One rate of the tax recapitulation (MWSTRekapitulation)."""

    currency: str
    tax: Decimal  # PosWUST
    rate: Decimal  # PosWUSTSatz
    designation: str  # PosWUSTBez
    net: Decimal  # PosBetragNetto
    code: str  # PosWUSTCode
    tax_class: str  # PosWUSTKlasse
    turnover_line: str | None  # PosUSTUZiffer
    sales_tax_line: str | None  # PosUSTSZiffer
    input_tax_line: str | None  # PosVSTSZiffer


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    id: int
    kind: str
    number: str
    customer_number: str | None
    status: str
    description: str | None
    external_number: str | None
    reference: str | None
    ordered_at: dt.datetime | None
    delivery_at: dt.datetime | None
    currency: str
    comment: str | None
    cost_unit: str | None
    tax_code: str | None
    price_list_id: int | None
    payment_condition: int | None
    delivery_costs: Decimal | None
    location: int | None
    contact_address_id: int | None
    delivery_address_id: int | None
    billing_address_id: int | None
    net_total: Decimal
    tax_total: Decimal
    gross_total: Decimal
    order_number: str | None
    offer_number: str | None
    captured_at: dt.datetime


@dataclass(frozen=True, slots=True)
class DocumentContents:
    """A document as the transaction that wrote it sees it, read before its commit: everything a GraphQL
    client may select of it, so that a write's answer needs no database after the commit."""

    record: DocumentRecord
    positions: list[PositionRecord]
    payments: list[PaymentRecord]
    addresses: dict[int, AddressRecord]  # the document's contact, delivery and billing address by AdrNr
    tax_lines: list[TaxLine]
    payment_condition_text: str | None
