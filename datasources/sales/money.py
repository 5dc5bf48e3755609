"""Money arithmetic: Decimal throughout, half-up rounding as invoices do."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
UNIT_PRICE = Decimal("0.0001")  # unit prices keep four places; amounts two


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, ROUND_HALF_UP)


def unit_price(amount: Decimal) -> Decimal:
    return amount.quantize(UNIT_PRICE, ROUND_HALF_UP)


def to_step(amount: Decimal, step: Decimal) -> Decimal:
    """Rounds to the currency's step (CHF 0.05, EUR 0.01)."""
    return ((amount / step).quantize(Decimal(1), ROUND_HALF_UP) * step).quantize(CENT)
