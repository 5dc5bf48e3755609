"""Stock per warehouse and packaging unit, and reservations that can drive it to zero or below."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import TYPE_CHECKING

from datasources.demo.reference import MAIN_WAREHOUSE, WAREHOUSES, WarehouseRef
from datasources.demo.rows import Batch, Ids
from datasources.models import Reservation, Stock

if TYPE_CHECKING:
    from datasources.demo.catalogue import DemoArticle

# Chance that an article is stocked in each warehouse besides the main one (the last is not released).
_PRESENCE = (0.5, 0.3, 0.35)


def add_stock(rng: random.Random, ids: Ids, batch: Batch, article: DemoArticle) -> None:
    if not article.stock_managed:
        return
    stock_range = "STANDARD" if rng.random() < 0.1 else None
    keys: list[str | None] = [unit.code for unit in article.units] or [None]
    for unit in keys:
        for warehouse in _warehouses(rng):
            on_hand = 0 if rng.random() < 0.15 else rng.randint(1, 400)
            batch.add(
                Stock,
                {
                    "id": ids.next(Stock),
                    "article_id": article.id,
                    "warehouse_id": warehouse.id,
                    "packaging_unit": unit,
                    "stock_range": stock_range,
                    "on_hand": Decimal(on_hand),
                },
            )
            for quantity in _reserved(rng, on_hand):
                batch.add(
                    Reservation,
                    {
                        "id": ids.next(Reservation),
                        "article_id": article.id,
                        "warehouse_id": warehouse.id,
                        "packaging_unit": unit,
                        "quantity": Decimal(quantity),
                    },
                )


def _warehouses(rng: random.Random) -> list[WarehouseRef]:
    others = [w for w, chance in zip(WAREHOUSES[1:], _PRESENCE, strict=True) if rng.random() < chance]
    return [MAIN_WAREHOUSE, *others]


def _reserved(rng: random.Random, on_hand: int) -> list[int]:
    """Reservations against one stock row: none, part of it, all of it, or more than there is."""
    if rng.random() >= 0.3:
        return []
    draw = rng.random()
    if draw < 0.4:
        total = on_hand + rng.randint(1, 30)
    elif draw < 0.6:
        total = on_hand or rng.randint(1, 10)
    else:
        total = rng.randint(1, max(1, on_hand // 2))
    # Some are split over two orders, so that reservations must be summed.
    if total >= 2 and rng.random() < 0.3:
        first = rng.randint(1, total - 1)
        return [first, total - first]
    return [total]
