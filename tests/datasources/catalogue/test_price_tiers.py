"""Choosing the price tiers: per article and unit the first list of the chain with rows wins, whole."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from datasources.catalogue.price_tiers import PriceRow, choose_tiers
from datasources.catalogue.records import PriceTier

WHEN = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
CUSTOMER, DEFAULT = 7, 1


def row(
    article: int, price_list: int, minimum: str, amount: str, unit: str | None = None, band: str | None = None
) -> PriceRow:
    return PriceRow(article, price_list, unit, band, Decimal(minimum), Decimal(amount), WHEN, "N")


def tier(minimum: str, upper: str | None, amount: str, unit: str | None = None, band: str | None = None) -> PriceTier:
    maximum = None if upper is None else Decimal(upper)
    return PriceTier(unit, band, Decimal(minimum), maximum, Decimal(amount), "N", WHEN)


def test_the_first_list_of_the_chain_wins_whatever_the_rows_order_and_lists_are_never_merged() -> None:
    rows = [
        row(1, DEFAULT, "1", "10"),
        row(1, DEFAULT, "10", "9"),
        row(1, CUSTOMER, "5", "8"),  # the customer's list, after the default's rows
        row(2, DEFAULT, "1", "20"),
        row(1, CUSTOMER, "1", "8.5"),
    ]
    assert choose_tiers(rows, [CUSTOMER, DEFAULT]) == {
        (1, None): [tier("1", "5", "8.5"), tier("5", None, "8")],
        (2, None): [tier("1", None, "20")],  # no customer prices: the default list's
    }


def test_tiers_run_to_the_next_tier_of_their_range_and_units_are_chosen_apart() -> None:
    rows = [
        row(1, DEFAULT, "20", "7", band="B"),
        row(1, DEFAULT, "1", "9", band="B"),
        row(1, DEFAULT, "1", "10"),
        row(1, CUSTOMER, "1", "50", unit="KART"),
    ]
    assert choose_tiers(rows, [CUSTOMER, DEFAULT]) == {
        (1, None): [tier("1", None, "10"), tier("1", "20", "9", band="B"), tier("20", None, "7", band="B")],
        (1, "KART"): [tier("1", None, "50", unit="KART")],
    }
