"""Price bands a shopper reads at a glance: equal steps of 1, 2 or 5 times a power of ten (10-20-30, 50-100-150,
0.50-1.00-1.50), from a multiple of the step at or below the lowest price past the highest."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from itertools import pairwise

from datasources.errors import InvalidInput

TARGET_BANDS = 5  # the step is the smallest nice one that covers the prices in at most about twice this
MAX_BOUNDS = 100  # bounds a client may give: each is a comparison per article
_SMALLEST_STEP = Decimal("0.01")


def nice_step(span: Decimal) -> Decimal:
    """The smallest of 1, 2, 5 x 10^k (at least a hundredth) at or above span / TARGET_BANDS."""
    raw = span / TARGET_BANDS
    if raw <= _SMALLEST_STEP:
        return _SMALLEST_STEP
    power = Decimal(1).scaleb(raw.adjusted())  # 10^k <= raw < 10^(k+1)
    for factor in (1, 2, 5, 10):
        step = power * factor
        if step >= raw:
            return step
    raise AssertionError("unreachable: 10 x 10^k > raw")


def nice_bounds(lowest: Decimal, highest: Decimal) -> list[Decimal]:
    """Ascending bounds of nice bands holding every price from `lowest` to `highest`: the first at or below
    `lowest`, the last above `highest`."""
    # One price alone: bands of about its size (12.50 in 10-15), not a band a hundredth wide.
    step = nice_step(highest - lowest or abs(lowest) or Decimal(1))
    first = (lowest / step).to_integral_value(ROUND_FLOOR) * step
    last = ((highest / step).to_integral_value(ROUND_FLOOR) + 1) * step
    count = int(((last - first) / step).to_integral_value(ROUND_CEILING))
    return [first + step * index for index in range(count + 1)]


def checked_bounds(bounds: Sequence[Decimal]) -> list[Decimal]:
    """A client's bounds: strictly ascending, at least one, at most MAX_BOUNDS."""
    if not bounds or len(bounds) > MAX_BOUNDS:
        raise InvalidInput(f"bounds: 1 to {MAX_BOUNDS} prices", field="bounds", info={"limit": MAX_BOUNDS})
    if any(later <= earlier for earlier, later in pairwise(bounds)):
        raise InvalidInput("bounds must be strictly ascending", field="bounds")
    return list(bounds)
