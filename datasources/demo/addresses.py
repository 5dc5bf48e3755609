"""Demo addresses: a contact address per customer, some with their own delivery or billing address."""

from __future__ import annotations

import random

from datasources.customers.records import Role
from datasources.demo.rows import Batch, Ids, Row
from datasources.models import Address, CustomerAddress

# Per language: street names and real (postal code, place) pairs, consistent with the Swiss directory.
_PLACES = {
    "ger": (
        ("Bahnhofstrasse", "Industriestrasse", "Dorfstrasse", "Seestrasse"),
        (("CH", "8001", "Zürich"), ("CH", "3011", "Bern"), ("CH", "4051", "Basel"), ("CH", "6003", "Luzern")),
    ),
    "fre": (
        ("Rue du Marché", "Avenue de la Gare", "Chemin des Vignes"),
        (("CH", "1201", "Genève"), ("CH", "1003", "Lausanne"), ("CH", "2000", "Neuchâtel")),
    ),
    "ita": (
        ("Via Nassa", "Piazza Grande", "Via Cantonale"),
        (("CH", "6900", "Lugano"), ("CH", "6600", "Locarno")),
    ),
    "eng": (("High Street", "Station Road"), (("GB", "SW1A 1AA", "London"), ("DE", "10115", "Berlin"))),
}
_FIRST_NAMES = ("Anna", "Luca", "Sophie", "Marco", "Léa", "Jürg", "Chiara", "Noah")
_LAST_NAMES = ("Müller", "Rochat", "Bernasconi", "Smith", "Zürcher", "Béguin", "Galli")


def add_addresses(
    rng: random.Random, batch: Batch, ids: Ids, number: str, language: str, company: str
) -> dict[str, int]:
    """The customer's addresses; returns its standard address ids by role."""
    contact = _address(rng, batch, ids, number, language, company)
    delivery = _address(rng, batch, ids, number, language, company) if rng.random() < 0.25 else contact
    billing = _address(rng, batch, ids, number, language, company) if rng.random() < 0.15 else contact
    standard = {Role.CONTACT: contact, Role.DELIVERY: delivery, Role.BILLING: billing}
    for role, address_id in standard.items():
        batch.add(CustomerAddress, {"customer_number": number, "role": role.value, "address_id": address_id})
    return {
        "contact_address_id": contact,
        "delivery_address_id": delivery,
        "billing_address_id": billing,
    }


def _address(rng: random.Random, batch: Batch, ids: Ids, number: str, language: str, company: str) -> int:
    streets, places = _PLACES[language]
    country, postal_code, place = rng.choice(places)
    person = rng.random() < 0.4
    row: Row = {
        "id": ids.next(Address),
        "customer_number": number,
        "language": language,
        "email": f"info{number}@example.ch",
        "line1": f"{rng.choice(streets)} {rng.randrange(1, 120)}",
        "line2": None,
        "salutation": rng.choice((1, 2)) if person else 0,
        "fax": None,
        "company": None if person else company,
        "company2": None,
        "first_name": rng.choice(_FIRST_NAMES) if person else None,
        "last_name": rng.choice(_LAST_NAMES) if person else None,
        "mobile": None,
        "phone1": f"+41 44 {rng.randrange(200, 999)} {rng.randrange(10, 99)} {rng.randrange(10, 99)}",
        "phone2": None,
        "country": country,
        "place": place,
        "postal_code": postal_code,
    }
    batch.add(Address, row)
    return int(row["id"])
