"""Input types of the customer mutations.

Fields the ERP requires are still optional here: the domain checks them, so that a missing one comes
back as a typed error naming the field, the same for GraphQL and REST clients.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import strawberry
from strawberry.types.unset import UNSET


def given(data: object) -> dict[str, Any]:
    """The fields a client sent (null included, as it clears a value); unsent ones are left out."""
    return {name: value for name, value in vars(data).items() if value is not UNSET}


def given_each(items: Sequence[object] | None) -> list[dict[str, Any]] | None:
    """`given` of every entry of an input list; None when the list was not sent (or sent as null)."""
    return None if items is UNSET or items is None else [given(item) for item in items]


@strawberry.input(description="An input address record.")
class AddressInput:
    language: str | None = strawberry.field(default=UNSET, description="AdrSprache, ISO 639-2/B. Required.")
    email: str | None = strawberry.field(default=UNSET, description="EmailAdress, up to 255 characters.")
    line1: str | None = strawberry.field(default=UNSET, description="AdrAdresse1, up to 60. Required.")
    line2: str | None = strawberry.field(default=UNSET, description="AdrAdresse2, up to 60.")
    salutation: int | None = strawberry.field(default=UNSET, description="AdrAnrede: 0, 1 or 2. Required.")
    fax: str | None = strawberry.field(default=UNSET, description="AdrFax, up to 28.")
    company: str | None = strawberry.field(default=UNSET, description="AdrFirma, up to 36; or lastName.")
    company2: str | None = strawberry.field(default=UNSET, description="AdrFirma2, up to 36.")
    first_name: str | None = strawberry.field(default=UNSET, description="AdrVorname, up to 36.")
    last_name: str | None = strawberry.field(default=UNSET, description="AdrName, up to 36; or company.")
    mobile: str | None = strawberry.field(default=UNSET, description="AdrTelex, up to 28.")
    phone1: str | None = strawberry.field(default=UNSET, description="AdrTf1, up to 28.")
    phone2: str | None = strawberry.field(default=UNSET, description="AdrTf2, up to 28.")
    country: str | None = strawberry.field(default=UNSET, description="OrtLand, ISO 3166 alpha-2. Required.")
    place: str | None = strawberry.field(default=UNSET, description="OrtName, up to 48. Required.")
    postal_code: str | None = strawberry.field(default=UNSET, description="OrtPLZ, up to 10. Required.")
    check: int | None = strawberry.field(
        default=UNSET,
        description="AdrCheck: 1 checks and corrects a Swiss place against its postal code; default 1 for CH, else 0.",
    )


@strawberry.input(description="A new customer: GrundDaten and standard addresses.")
class CustomerCreateInput:
    currency: str | None = strawberry.field(default=UNSET, description="WaehrAbk, ISO 4217. Required.")
    payment_type: str | None = strawberry.field(
        default=UNSET, description="FAKTZahlArt: L direct debit, B cash/credit card, ... Required."
    )
    language: str | None = strawberry.field(
        default=UNSET, description="AdrSprache; default the contact address's language."
    )
    expenses: str | None = strawberry.field(default=UNSET, description="AUFT_SPESEN, up to 32.")
    shipping_type: str | None = strawberry.field(default=UNSET, description="VBTyp, up to 12.")
    transport_insurance_type: str | None = strawberry.field(default=UNSET, description="TVTyp, up to 12.")
    comment: str | None = strawberry.field(default=UNSET, description="Kommentar, up to 255.")
    tax_number: str | None = strawberry.field(default=UNSET, description="SteuerNummer, up to 20.")
    company_url: str | None = strawberry.field(default=UNSET, description="FirmenURL, up to 20.")
    credit_limit: int | None = strawberry.field(default=UNSET, description="KreditLimit; 0 (default) = blocked.")
    payment_methods: str | None = strawberry.field(
        default=UNSET, description="ZahlungsMethode: comma-separated K (credit card), R (invoice)."
    )
    contact_address: AddressInput | None = strawberry.field(default=UNSET, description="KontaktAdr. Required.")
    delivery_address: AddressInput | None = strawberry.field(
        default=UNSET, description="LiefAdr; default the contact address."
    )
    billing_address: AddressInput | None = strawberry.field(
        default=UNSET, description="RechAdr; default the contact address."
    )

    def grund_daten(self) -> dict[str, Any]:
        return {k: v for k, v in given(self).items() if not k.endswith("_address")}

    def addresses(self) -> dict[str, dict[str, Any] | None]:
        return {
            name: given(value) if value is not None else None
            for name in ("contact_address", "delivery_address", "billing_address")
            if (value := getattr(self, name)) is not UNSET
        }
