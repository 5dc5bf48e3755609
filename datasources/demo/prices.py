"""Tiered prices: which lists and currencies an article is priced in, per packaging unit."""

from __future__ import annotations

import random
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING

from datasources.demo.reference import DEFAULT_LIST, GROSS_LIST, RESELLER_LIST, ROUNDING_STEPS, PriceListRef
from datasources.demo.rows import Batch, Ids, Row, timestamp
from datasources.models import Price

if TYPE_CHECKING:
    from datasources.demo.catalogue import DemoArticle

# Which lists an article has prices in, with weights: some in none at all, some only for resellers.
_SCHEMES: tuple[tuple[tuple[PriceListRef, ...], int], ...] = (
    ((DEFAULT_LIST, RESELLER_LIST), 35),
    ((DEFAULT_LIST,), 25),
    ((DEFAULT_LIST, RESELLER_LIST, GROSS_LIST), 15),
    ((RESELLER_LIST,), 10),
    ((), 10),
    ((DEFAULT_LIST, GROSS_LIST), 5),
)
_TIERS: tuple[tuple[int, ...], ...] = ((1,), (1, 10), (1, 10, 50), (1, 5, 20), (1, 25, 100))
_TIER_DISCOUNT, _UNIT_DISCOUNT = 0.04, 0.03
_EUR_PER_CHF = 1.06
_STEP_CENTS = {code: int(step * 100) for code, step in ROUNDING_STEPS.items()}


# Computed in floats (deterministic everywhere) and rounded once to the currency's step: Decimal
# arithmetic here is a large share of the time it takes to generate the demo.
def add_prices(rng: random.Random, ids: Ids, batch: Batch, article: DemoArticle) -> None:
    lists = rng.choices([lists for lists, _ in _SCHEMES], weights=[weight for _, weight in _SCHEMES])[0]
    if not lists:
        return
    common = {
        "article_id": article.id,
        "price_range": "STANDARD" if rng.random() < 0.2 else None,
        "modified_at": timestamp(rng),
    }
    currencies = ("CHF", "EUR") if rng.random() < 0.85 else ("CHF",)
    unit_prices = list(_unit_prices(rng, article, rng.choice(_TIERS)))
    for price_list in lists:
        markup = _markup(rng, price_list, article.tax_rate)
        for currency in currencies if price_list is not GROSS_LIST else ("CHF",):
            for unit, unit_price, tiers in unit_prices:
                key = {"price_list_id": price_list.id, "currency": currency, "packaging_unit": unit}
                batch.extend(Price, _tiers(ids, common | key, unit_price * markup, tiers))


def _tiers(ids: Ids, common: Row, chf: float, tiers: tuple[int, ...]) -> list[Row]:
    return [
        common
        | {
            "id": ids.next(Price),
            "min_quantity": Decimal(quantity),
            "amount": _in_currency(chf * (1 - _TIER_DISCOUNT * index), common["currency"]),
        }
        for index, quantity in enumerate(tiers)
    ]


def _markup(rng: random.Random, price_list: PriceListRef, tax_rate: Decimal) -> float:
    if price_list is RESELLER_LIST:
        return rng.randint(78, 92) / 100
    if price_list is GROSS_LIST:
        return 1 + float(tax_rate) / 100
    return 1.0


def _unit_prices(
    rng: random.Random, article: DemoArticle, tiers: tuple[int, ...]
) -> Iterator[tuple[str | None, float, tuple[int, ...]]]:
    base = article.base_cents / 100
    if not article.units:
        yield None, base, tiers
        return
    yield article.units[0].code, base, tiers
    for index, unit in enumerate(article.units[1:], start=1):
        # Larger units have one price, cheaper per piece; a few of them have no price at all.
        if rng.random() < 0.85:
            yield unit.code, base * unit.factor * (1 - _UNIT_DISCOUNT * index), _TIERS[0]


def _in_currency(chf: float, currency: str) -> Decimal:
    """Rounded to the currency's step (CHF 0.05), at least one step, with two decimals."""
    step = _STEP_CENTS[currency]
    amount = chf * _EUR_PER_CHF if currency == "EUR" else chf
    return Decimal(max(round(amount * 100 / step), 1) * step).scaleb(-2)
