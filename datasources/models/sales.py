"""Sales documents: offers (AuftStatus P) and orders, their positions and payments."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from datasources.clock import utcnow
from datasources.models.base import Base, Quantity


class PaymentCondition(Base):
    """KundBedTyp with its text per language (KundBedBez)."""

    __tablename__ = "payment_condition"
    condition_type: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(String(3), primary_key=True)
    text: Mapped[str] = mapped_column(String(255))


class SalesDocument(Base):
    """An offer (kind "offer", OffertNr) or an order (kind "order", AuftNr)."""

    __tablename__ = "sales_document"
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(5))
    number: Mapped[str] = mapped_column(String(10))  # AuftNr / OffertNr
    customer_number: Mapped[str | None] = mapped_column(ForeignKey("customer.number"), index=True)
    status: Mapped[str] = mapped_column(String(1))  # AuftStatus: N, O, A; P for offers
    description: Mapped[str | None] = mapped_column(String(80))  # AuftBez
    external_number: Mapped[str | None] = mapped_column(String(36))  # AuftBestellNr
    reference: Mapped[str | None] = mapped_column(String(60))  # AuftBestellRef
    ordered_at: Mapped[dt.datetime | None] = mapped_column()  # AuftBestellT
    delivery_at: Mapped[dt.datetime | None] = mapped_column()  # AuftLieferT
    currency: Mapped[str] = mapped_column(ForeignKey("currency.code"))  # WaehrAbk
    comment: Mapped[str | None] = mapped_column(String(255))  # AuftKomment
    cost_unit: Mapped[str | None] = mapped_column(String(6))  # KTNr
    tax_code: Mapped[str | None] = mapped_column(ForeignKey("tax_code.code"))  # WUSTCode of the document
    price_list_id: Mapped[int | None] = mapped_column(ForeignKey("price_list.id"))
    payment_condition: Mapped[int | None] = mapped_column()  # KundBedTyp
    delivery_costs: Mapped[Decimal | None] = mapped_column()  # AuftLiefKost
    location: Mapped[int | None] = mapped_column()  # StaoNr
    contact_address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id"))
    delivery_address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id"))
    billing_address_id: Mapped[int | None] = mapped_column(ForeignKey("address.id"))
    net_total: Mapped[Decimal] = mapped_column(default=Decimal(0))  # AuftNetto, to the cent
    tax_total: Mapped[Decimal] = mapped_column(default=Decimal(0))  # AuftWUST, to the cent
    # AuftBrutto: the amount payable, net + tax rounded to the currency's cash step (CHF 0.05)
    gross_total: Mapped[Decimal] = mapped_column(default=Decimal(0))
    # An offer converted into an order, and the order made from an offer.
    order_number: Mapped[str | None] = mapped_column(String(10))
    offer_number: Mapped[str | None] = mapped_column(String(10))
    # sha256 of the validated request that placed an order (datasources/sales/orders.py): the same
    # AuftBestellNr again is a repeat only with the same request. NULL for orders from offers and older ones.
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    created_by: Mapped[str] = mapped_column(String(64))
    captured_at: Mapped[dt.datetime] = mapped_column(default=utcnow)  # AuftErf
    __table_args__ = (
        UniqueConstraint("kind", "number"),
        Index("ix_sales_document_external", "customer_number", "external_number"),
    )


class DocumentPosition(Base):
    __tablename__ = "document_position"
    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("sales_document.id", ondelete="CASCADE"), index=True)
    position_number: Mapped[int] = mapped_column()  # PosNr
    display_number: Mapped[int | None] = mapped_column()  # VisPosNr
    article_number: Mapped[str] = mapped_column(String(15))  # ArtNr
    text: Mapped[str | None] = mapped_column(String(2048))  # PosBez
    quantity: Mapped[Decimal] = mapped_column(Quantity)  # PosAnzBest, base unit
    packaging_unit: Mapped[str | None] = mapped_column(String(30))  # VPEinheit
    packaging_quantity: Mapped[Decimal | None] = mapped_column(Quantity)  # VPEAnzBest
    packaging_unit_price: Mapped[Decimal | None] = mapped_column()  # VPEPreisEinzel
    unit_price: Mapped[Decimal] = mapped_column()  # PosPreisEinzel, net, per base unit
    price_basis: Mapped[Decimal] = mapped_column(Quantity, default=Decimal(1))  # PosPreisBasis
    price_given: Mapped[bool] = mapped_column(default=False)  # Preis came with the request
    discount_rate: Mapped[Decimal | None] = mapped_column()  # GRabSatz
    total: Mapped[Decimal] = mapped_column()  # PosPreisTotal, net after discount
    tax_code: Mapped[str] = mapped_column(ForeignKey("tax_code.code"))
    tax_rate: Mapped[Decimal] = mapped_column()  # WUSTSatz
    tax_amount: Mapped[Decimal] = mapped_column()  # PosPreisWUSTBetrag
    __table_args__ = (UniqueConstraint("document_id", "position_number"),)


class DocumentPayment(Base):
    """A Zahlung entry: Bezeichnung/Wert as sent, Key assigned."""

    __tablename__ = "document_payment"
    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("sales_document.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(12))
    designation: Mapped[str] = mapped_column(String(255))  # Bezeichnung
    value: Mapped[str | None] = mapped_column(String(200))  # Wert


class IdempotentRequest(Base):
    """The first outcome of a request with an Idempotency-Key, replayed for a repeat."""

    __tablename__ = "idempotent_request"
    user_name: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))  # sha256 of the request's input
    document_number: Mapped[str] = mapped_column(String(10))
    outcome: Mapped[str] = mapped_column(String(8))  # created or existing: what the first answer said
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
