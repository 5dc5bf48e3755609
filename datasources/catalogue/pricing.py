"""Price determination: per article and packaging unit, the first price list of the chain that has
prices in the currency wins. Lists are never merged. Tiers run from AbAnzahl up to the next tier's."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import bindparam, select

from datasources.catalogue.records import PriceTier
from datasources.catalogue.view import CatalogueView
from datasources.models import Price, PriceList
from datasources.reads import Query, Reads, values_in

PriceKey = tuple[int, str | None]  # (article id, packaging unit or None for the base unit)

_PRICES = Query(
    select(
        Price.article_id,
        Price.price_list_id,
        Price.packaging_unit,
        Price.price_range,
        Price.min_quantity,
        Price.amount,
        Price.modified_at,
        PriceList.price_kind,
    )
    .join(PriceList, PriceList.id == Price.price_list_id)
    .where(
        values_in(Price.article_id, "ids"),
        Price.currency == bindparam("currency"),
        values_in(Price.price_list_id, "price_lists"),
    )
)


class _PriceRow(NamedTuple):
    article_id: int
    price_list_id: int
    packaging_unit: str | None
    price_range: str | None
    min_quantity: Decimal
    amount: Decimal
    modified_at: dt.datetime
    price_kind: str


async def prices_by_article(
    reads: Reads, article_ids: Sequence[int], view: CatalogueView
) -> dict[PriceKey, list[PriceTier]]:
    if not view.price_list_ids:
        return {}
    rows = await reads.rows(_PRICES, ids=article_ids, currency=view.currency, price_lists=view.price_list_ids)
    return _choose_tiers(map(_PriceRow._make, rows), view.price_list_ids)


def _choose_tiers(rows: Iterable[_PriceRow], chain: Sequence[int]) -> dict[PriceKey, list[PriceTier]]:
    by_key: dict[PriceKey, dict[int, list[_PriceRow]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_key[(row.article_id, row.packaging_unit)][row.price_list_id].append(row)
    chosen: dict[PriceKey, list[PriceTier]] = {}
    for key, by_list in by_key.items():
        first = next(list_id for list_id in chain if list_id in by_list)
        chosen[key] = _tiers(by_list[first])
    return chosen


def _tiers(rows: list[_PriceRow]) -> list[PriceTier]:
    rows = sorted(rows, key=lambda r: (r.price_range or "", r.min_quantity))
    tiers = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else None
        same_range = following is not None and following.price_range == row.price_range
        upper: Decimal | None = following.min_quantity if same_range and following else None
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
