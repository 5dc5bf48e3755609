"""Demo customers: numbers from 100001, spread over languages, currencies and price lists."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TypeVar

from datasources.demo.addresses import add_addresses
from datasources.demo.reference import DEFAULT_LIST, GROSS_LIST, RESELLER_LIST
from datasources.demo.rows import BASE_TIME, Batch, Ids, Row
from datasources.models import Customer

FIRST_CUSTOMER_NUMBER = 100_001
_DESIGNATION_LENGTH = 24
_T = TypeVar("_T")

# Per language: family names and the trades or legal forms that follow them.
_NAMES = {
    "ger": (
        ("Keller", "Meier", "Brunner", "Zürcher", "Müller", "Schärer"),
        ("Bau AG", "Holzbau GmbH", "Gärtnerei", "Haustechnik AG", "Malerei GmbH"),
    ),
    "fre": (
        ("Dupont", "Favre", "Rochat", "Golay", "Béguin"),
        ("SA", "Menuiserie Sàrl", "Jardins Sàrl", "Électricité SA"),
    ),
    "ita": (
        ("Rossi", "Bernasconi", "Ferrari", "Galli", "Cattaneo"),
        ("SA", "Edilizia SA", "Giardini Sagl", "Ferramenta Sagl"),
    ),
    "eng": (("Smith", "Baker", "Miller", "Taylor"), ("Ltd", "Supplies Ltd", "Trading Co.")),
}
# Shuffled blocks rather than independent draws, so that even a few customers cover every case.
_LANGUAGES = ("ger",) * 10 + ("fre",) * 5 + ("ita",) * 3 + ("eng",) * 2
_CURRENCIES = ("CHF",) * 4 + ("EUR",)
_PRICE_LIST_TYPES = (DEFAULT_LIST.list_type,) * 4 + (RESELLER_LIST.list_type,) * 3 + (GROSS_LIST.list_type, None, None)


def add_customers(rng: random.Random, batch: Batch, count: int) -> list[Row]:
    """Adds the customers and their addresses; returns each customer's standard address ids, to be set
    once the addresses exist (customer and address refer to each other)."""
    languages, currencies = _shuffled_blocks(rng, _LANGUAGES), _shuffled_blocks(rng, _CURRENCIES)
    price_list_types = _shuffled_blocks(rng, _PRICE_LIST_TYPES)
    ids, standard = Ids(), []
    for offset in range(count):
        language, number = next(languages), str(FIRST_CUSTOMER_NUMBER + offset)
        designation = _designation(rng, language)
        batch.add(
            Customer,
            {
                "number": number,
                "designation": designation,
                "language": language,
                "currency": next(currencies),
                "price_list_type": next(price_list_types),
                "payment_type": rng.choice(("L", "B")),
                "credit_limit": rng.choice((0, 5000, 20000)),
                "payment_methods": rng.choice(("K", "R", "K,R", None)),
                "payment_condition": rng.choice((1, 2, 3, None)),
                "created_at": BASE_TIME,
            },
        )
        standard.append({"key": number, **add_addresses(rng, batch, ids, number, language, designation)})
    return standard


def _shuffled_blocks(rng: random.Random, block: tuple[_T, ...]) -> Iterator[_T]:
    while True:
        yield from rng.sample(block, len(block))


def _designation(rng: random.Random, language: str) -> str:
    families, forms = _NAMES[language]
    return f"{rng.choice(families)} {rng.choice(forms)}"[:_DESIGNATION_LENGTH]
