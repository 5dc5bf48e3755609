"""Customers (Debitoren): as much as the catalogue needs (language, price list type, currency)."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from datasources.models.base import Base


class Customer(Base):
    __tablename__ = "customer"
    number: Mapped[str] = mapped_column(String(8), primary_key=True)  # DebiNr / KundNr
    designation: Mapped[str] = mapped_column(String(24), default="")  # KundBez
    language: Mapped[str] = mapped_column(String(3), default="ger")  # AdrSprache
    currency: Mapped[str] = mapped_column(ForeignKey("currency.code"))  # WaehrAbk
    price_list_type: Mapped[str | None] = mapped_column(ForeignKey("price_list.list_type"))
