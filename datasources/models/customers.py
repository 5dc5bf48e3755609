"""Customers (Debitoren) and their addresses."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from datasources.clock import utcnow
from datasources.folding import fold
from datasources.models.base import Base


class Address(Base):
    """An address record (AdrNr)."""

    __tablename__ = "address"
    id: Mapped[int] = mapped_column(primary_key=True)  # AdrNr
    customer_number: Mapped[str | None] = mapped_column(ForeignKey("customer.number"), index=True)
    language: Mapped[str] = mapped_column(String(3))  # AdrSprache
    email: Mapped[str | None] = mapped_column(String(255))  # EmailAdress
    line1: Mapped[str] = mapped_column(String(60))  # AdrAdresse1
    line2: Mapped[str | None] = mapped_column(String(60))  # AdrAdresse2
    salutation: Mapped[int] = mapped_column(default=0)  # AdrAnrede: 0 company/general, 1 Mr, 2 Ms
    fax: Mapped[str | None] = mapped_column(String(28))  # AdrFax
    company: Mapped[str | None] = mapped_column(String(36))  # AdrFirma
    company2: Mapped[str | None] = mapped_column(String(36))  # AdrFirma2
    first_name: Mapped[str | None] = mapped_column(String(36))  # AdrVorname
    last_name: Mapped[str | None] = mapped_column(String(36))  # AdrName
    mobile: Mapped[str | None] = mapped_column(String(28))  # AdrTelex
    phone1: Mapped[str | None] = mapped_column(String(28))  # AdrTf1
    phone2: Mapped[str | None] = mapped_column(String(28))  # AdrTf2
    country: Mapped[str] = mapped_column(String(4))  # OrtLand
    place: Mapped[str] = mapped_column(String(48))  # OrtName
    postal_code: Mapped[str] = mapped_column(String(10))  # OrtPLZ
    modified_at: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)


# The address search (GET /www/adressensuche) compares fields folded (datasources/folding.py): on PostgreSQL an
# index on the folded value of each field a shop finds a customer by makes a search a lookup instead of reading
# every address; the other fields given are compared on the rows it finds. SQLite has none: its folding is the
# gateway's own function, and an index on it would fail every write by a connection without it (the ERP's).
SEARCH_INDEXED_FIELDS = ("email", "last_name", "company", "phone1", "postal_code")
SEARCH_INDEXES = tuple(
    Index(f"ix_address_folded_{name}", fold(getattr(Address, name))).ddl_if(dialect="postgresql")
    for name in SEARCH_INDEXED_FIELDS
)


class Customer(Base):
    __tablename__ = "customer"
    number: Mapped[str] = mapped_column(String(8), primary_key=True)  # DebiNr / KundNr
    designation: Mapped[str] = mapped_column(String(24), default="")  # KundBez
    language: Mapped[str] = mapped_column(String(3), default="ger")  # AdrSprache
    currency: Mapped[str] = mapped_column(ForeignKey("currency.code"))  # WaehrAbk
    price_list_type: Mapped[str | None] = mapped_column(ForeignKey("price_list.list_type"))
    payment_type: Mapped[str | None] = mapped_column(String(1))  # FAKTZahlArt
    expenses: Mapped[str | None] = mapped_column(String(32))  # AUFT_SPESEN
    shipping_type: Mapped[str | None] = mapped_column(String(12))  # VBTyp
    transport_insurance_type: Mapped[str | None] = mapped_column(String(12))  # TVTyp
    comment: Mapped[str | None] = mapped_column(String(255))  # Kommentar
    tax_number: Mapped[str | None] = mapped_column(String(20))  # SteuerNummer
    company_url: Mapped[str | None] = mapped_column(String(20))  # FirmenURL
    credit_limit: Mapped[int] = mapped_column(default=0, server_default="0")  # KreditLimit; 0 = blocked
    payment_methods: Mapped[str | None] = mapped_column(String(20))  # ZahlungsMethode: K, R
    industry: Mapped[str | None] = mapped_column(String(12))  # BrancheID
    tax_code: Mapped[str | None] = mapped_column(ForeignKey("tax_code.code"))  # WUSTCode: tax treatment
    cost_unit: Mapped[str | None] = mapped_column(String(6))  # KTNr
    payment_condition: Mapped[int | None] = mapped_column()  # KundBedTyp
    contact_address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id", use_alter=True))
    delivery_address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id", use_alter=True))
    billing_address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id", use_alter=True))
    created_at: Mapped[dt.datetime | None] = mapped_column(default=utcnow)  # unknown for older customers


class CustomerAddress(Base):
    """An address in one of a customer's roles (KundKontakt, KundLief, KundRech); a role may hold several."""

    __tablename__ = "customer_address"
    customer_number: Mapped[str] = mapped_column(ForeignKey("customer.number"), primary_key=True)
    role: Mapped[str] = mapped_column(String(12), primary_key=True)
    address_id: Mapped[int] = mapped_column(ForeignKey("address.id"), primary_key=True)
    __table_args__ = (Index("ix_customer_address_address", "address_id"),)


class CustomerAttribute(Base):
    __tablename__ = "customer_attribute"
    customer_number: Mapped[str] = mapped_column(ForeignKey("customer.number"), primary_key=True)
    key: Mapped[str] = mapped_column(String(12), primary_key=True)
    contents: Mapped[str] = mapped_column(String(200), default="")
