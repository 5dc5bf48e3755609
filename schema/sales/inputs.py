"""Input types of the offer and order mutations. Like the customer inputs, the domain checks required
fields, so that a missing one is a typed error naming it."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types.unset import UNSET

from schema.customers.inputs import AddressInput, given, given_each
from schema.input_builder import builds_itself


@strawberry.input(description="A position of a new document.")
class PositionInput:
    article_number: str | None = strawberry.field(default=UNSET, description="ArtNr. Required.")
    quantity: float | None = strawberry.field(default=UNSET, description="Menge in the base unit. Required.")
    text: str | None = strawberry.field(default=UNSET, description="PosBez; default the article's designation.")
    price: float | None = strawberry.field(
        default=UNSET,
        description="Preis: net per base unit; default the price the ERP determines. Orders only: offers are "
        "priced by the ERP, and a price given for an offer's position is refused.",
    )
    packaging_unit: str | None = strawberry.field(default=UNSET, description="VPEinheit.")
    discount_rate: float | None = strawberry.field(default=UNSET, description="GRabSatz: 0 to 100 percent.")
    display_number: int | None = strawberry.field(default=UNSET, description="VisPosNr.")


@strawberry.input(description="A payment entry (Zahlung).")
class PaymentInput:
    designation: str | None = strawberry.field(default=UNSET, description="Bezeichnung. Required.")
    value: str | None = strawberry.field(default=UNSET, description="Wert.")


@builds_itself  # without Strawberry's conversion field by field (schema/input_builder.py)
@strawberry.input(description="GrundDaten, addresses, positions and payments of a new offer or order.")
class DocumentInput:
    customer_number: str | None = strawberry.field(
        default=UNSET, description="KundNr: required for orders; an offer without it is a template."
    )
    description: str | None = strawberry.field(default=UNSET, description="AuftBez.")
    external_number: str | None = strawberry.field(
        default=UNSET,
        description="AuftBestellNr: orderCreate with one the customer has used already returns that order "
        "(outcome EXISTING) when the request is the same as the one that placed it, and is a conflict otherwise.",
    )
    reference: str | None = strawberry.field(default=UNSET, description="AuftBestellRef.")
    ordered_at: str | None = strawberry.field(default=UNSET, description="AuftBestellT, ISO 8601.")
    delivery_at: str | None = strawberry.field(default=UNSET, description="AuftLieferT, ISO 8601.")
    currency: str | None = strawberry.field(default=UNSET, description="WaehrAbk; default the leading one.")
    comment: str | None = strawberry.field(default=UNSET, description="AuftKomment.")
    cost_unit: str | None = strawberry.field(default=UNSET, description="KTNr.")
    payment_condition: int | None = strawberry.field(default=UNSET, description="KundBedTyp.")
    delivery_costs: float | None = strawberry.field(default=UNSET, description="AuftLiefKost.")
    location: int | None = strawberry.field(default=UNSET, description="StaoNr.")
    contact_address: AddressInput | None = strawberry.field(default=UNSET, description="KontaktAdr override.")
    delivery_address: AddressInput | None = strawberry.field(default=UNSET, description="LiefAdr override.")
    billing_address: AddressInput | None = strawberry.field(default=UNSET, description="RechAdr override.")
    positions: list[PositionInput] | None = strawberry.field(default=UNSET, description="Positionen. Required.")
    payments: list[PaymentInput] | None = strawberry.field(default=UNSET, description="Zahlung.")

    def header(self) -> dict[str, Any]:
        nested = {"contact_address", "delivery_address", "billing_address", "positions", "payments"}
        return {k: v for k, v in given(self).items() if k not in nested}

    def addresses(self) -> dict[str, dict[str, Any] | None]:
        return addresses_of(self)

    def position_values(self) -> list[dict[str, Any]] | None:
        return given_each(self.positions)

    def payment_values(self) -> list[dict[str, Any]] | None:
        return given_each(self.payments)


def addresses_of(data: object) -> dict[str, dict[str, Any] | None]:
    return {
        role: given(value) if value is not None else None
        for role in ("contact_address", "delivery_address", "billing_address")
        if (value := getattr(data, role)) is not UNSET
    }


@strawberry.input(description="A change of an offer's positions (PATCH rules).")
class PositionChangeInput:
    position_number: int | None = strawberry.field(
        default=UNSET, description="PosNr: without it the entry is added; with quantity 0 it is deleted."
    )
    article_number: str | None = strawberry.field(default=UNSET, description="ArtNr of a new position.")
    text: str | None = strawberry.field(default=UNSET, description="PosBez.")
    quantity: float | None = strawberry.field(default=UNSET, description="Menge. Required.")
    discount_rate: float | None = strawberry.field(default=UNSET, description="GRabSatz.")


@strawberry.input(description="Changes of an offer: customer, positions, whole address records.")
class OfferUpdateInput:
    customer_number: str | None = strawberry.field(
        default=UNSET, description="KundNr: assigns a template offer to the customer."
    )
    positions: list[PositionChangeInput] | None = strawberry.field(default=UNSET)
    contact_address: AddressInput | None = strawberry.field(default=UNSET, description="KontaktAdr, replaced.")
    delivery_address: AddressInput | None = strawberry.field(default=UNSET, description="LiefAdr, replaced.")
    billing_address: AddressInput | None = strawberry.field(default=UNSET, description="RechAdr, replaced.")


@strawberry.input(description="Converting an offer into an order (PUT /www/auftrag).")
class OfferConvertInput:
    offer_number: str | None = strawberry.field(default=UNSET, description="OffertNr. Required.")
    customer_number: str | None = strawberry.field(default=UNSET, description="KundNr. Required.")
    payments: list[PaymentInput] | None = strawberry.field(default=UNSET, description="Zahlung.")
