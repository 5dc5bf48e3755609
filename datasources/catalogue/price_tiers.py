"""Price determination: per article and packaging unit, the first price list of the chain that has
prices in the currency wins. Lists are never merged. Tiers run from AbAnzahl up to the next tier's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import bindparam, select

from datasources.catalogue.records import PriceTier
from datasources.catalogue.view import CatalogueView
from datasources.models import Price, PriceList
from datasources.reads import Query, Reads, record_columns, values_in

PriceKey = tuple[int, str | None]  # (article id, packaging unit or None for the base unit)


class PriceRow(NamedTuple):
    article_id: int
    price_list_id: int
    packaging_unit: str | None
    price_range: str | None
    min_quantity: Decimal
    amount: Decimal
    modified_at: dt.datetime
    price_kind: str


# A price row's columns (over price joined with its price list), in PriceRow's order.
PRICE_COLUMNS = record_columns(
    PriceRow,
    article_id=Price.article_id,
    price_list_id=Price.price_list_id,
    packaging_unit=Price.packaging_unit,
    price_range=Price.price_range,
    min_quantity=Price.min_quantity,
    amount=Price.amount,
    modified_at=Price.modified_at,
    price_kind=PriceList.price_kind,
)

_PRICES = Query(
    select(*PRICE_COLUMNS)
    .join(PriceList, PriceList.id == Price.price_list_id)
    .where(
        values_in(Price.article_id, "ids"),
        Price.currency == bindparam("currency"),
        values_in(Price.price_list_id, "price_lists"),
    ),
    record=PriceRow,
)


async def prices_by_article(
    reads: Reads, article_ids: Sequence[int], view: CatalogueView
) -> dict[PriceKey, list[PriceTier]]:
    if not view.price_list_ids:
        return {}
    rows = await reads.rows(_PRICES, ids=article_ids, currency=view.currency, price_lists=view.price_list_ids)
    return choose_tiers(map(PriceRow._make, rows), view.price_list_ids)


def choose_tiers(rows: Iterable[PriceRow], chain: Sequence[int]) -> dict[PriceKey, list[PriceTier]]:
    """Per article and unit, the tiers of the first list of `chain` that has rows for it (one pass: a page
    has thousands of keys)."""
    rank = {list_id: position for position, list_id in enumerate(chain)}
    chosen: dict[PriceKey, tuple[int, list[PriceRow]]] = {}
    for row in rows:
        key = (row.article_id, row.packaging_unit)
        position = rank[row.price_list_id]
        current = chosen.get(key)
        if current is None or position < current[0]:
            chosen[key] = (position, [row])
        elif position == current[0]:
            current[1].append(row)
    return {key: _tiers(list_rows) for key, (_, list_rows) in chosen.items()}


def _tier_order(row: PriceRow) -> tuple[str, Decimal]:
    return (row.price_range or "", row.min_quantity)


def _tiers(rows: list[PriceRow]) -> list[PriceTier]:
    if len(rows) > 1:
        rows = sorted(rows, key=_tier_order)
    last = len(rows) - 1
    tiers = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index < last else None
        # BisAnzahl: the next tier's AbAnzahl within the same price range.
        upper = following.min_quantity if following is not None and following.price_range == row.price_range else None
        tiers.append(
            PriceTier(
                packaging_unit=row.packaging_unit,
                price_range=row.price_range,
                min_quantity=row.min_quantity,
                max_quantity=upper,
                amount=row.amount,
                price_kind=row.price_kind,
                modified_at=row.modified_at,
            )
        )
    return tiers
