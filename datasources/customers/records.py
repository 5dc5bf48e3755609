"""Plain records of customers and addresses, as the schema receives and hands them out."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import Enum

# Address fields that hold text, in the order of the specification's address record.
ADDRESS_TEXT_FIELDS = (
    "language",
    "email",
    "line1",
    "line2",
    "fax",
    "company",
    "company2",
    "first_name",
    "last_name",
    "mobile",
    "phone1",
    "phone2",
    "country",
    "place",
    "postal_code",
)


class Role(Enum):
    """The roles an address plays for a customer (the REST keys of GET /www/adressen?debinr=)."""

    CONTACT = "KundKontakt"
    DELIVERY = "KundLief"
    BILLING = "KundRech"


@dataclass(frozen=True, slots=True)
class AddressFields:
    language: str
    line1: str
    salutation: int
    country: str
    place: str
    postal_code: str
    email: str | None = None
    line2: str | None = None
    fax: str | None = None
    company: str | None = None
    company2: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    mobile: str | None = None
    phone1: str | None = None
    phone2: str | None = None


@dataclass(frozen=True, slots=True)
class AddressRecord:
    id: int
    customer_number: str | None
    fields: AddressFields


@dataclass(frozen=True, slots=True)
class CustomerFields:
    """GrundDaten of a new customer, validated."""

    currency: str
    payment_type: str
    language: str | None = None
    expenses: str | None = None
    shipping_type: str | None = None
    transport_insurance_type: str | None = None
    comment: str | None = None
    tax_number: str | None = None
    company_url: str | None = None
    credit_limit: int = 0
    payment_methods: str | None = None


@dataclass(frozen=True, slots=True)
class CustomerRecord:
    number: str
    designation: str
    language: str
    currency: str
    industry: str | None
    shipping_type: str | None
    payment_methods: str | None
    comment: str | None
    credit_limit: int
    contact_address_id: int | None
    delivery_address_id: int | None
    billing_address_id: int | None
    created_at: dt.datetime | None


@dataclass(frozen=True, slots=True)
class CustomerContents:
    """A customer as the transaction that created it sees it, read before its commit: what the mutation
    answers with, so that its answer needs no database after the commit. A customer created in this
    transaction has no orders yet (they would reference it)."""

    record: CustomerRecord
    addresses: dict[Role, list[AddressRecord]]  # per role, the standard address first
    attributes: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class SearchMatch:
    """The one customer an address search identified."""

    customer_number: str
    contact_address_id: int | None
    delivery_address_id: int | None
    billing_address_id: int | None
