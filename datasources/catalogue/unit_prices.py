"""The articles' packaging units and their prices in the request's view, in one statement.

An article's prices hang under its packaging units when it has any (HatVPE), so whoever reads prices reads
the units too: two statements, two round trips, for every article or page. Here both are one UNION ALL, a
row per unit and a row per price, each with the other's columns NULL; the units then become what
`details.packaging` makes of them and the prices what `price_tiers.prices_by_article` chooses, by the same
functions (every rule of theirs holds: WEBSHOPVPE, the list chain, the ladder).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Label, Select, bindparam, cast, null, select, union_all

from datasources.catalogue import details, price_tiers
from datasources.catalogue.details import ArticlePackaging
from datasources.catalogue.price_tiers import PriceKey
from datasources.catalogue.records import PackagingUnitRecord, PriceTier
from datasources.catalogue.view import CatalogueView
from datasources.models import PackagingUnit, Price, PriceList
from datasources.reads import Query, Reads, values_in
from datasources.reads.records import check_record_columns

_UNIT_COLUMNS = details.PACKAGING_COLUMNS  # the unit's record, then its WEBSHOPVPE attribute
_PRICE_COLUMNS = price_tiers.PRICE_COLUMNS[1:]  # after the article id
_UNITS_END = 1 + len(_UNIT_COLUMNS)


def _nulls(columns: Sequence[Label[Any]]) -> list[Label[Any]]:
    # Typed: the first branch's columns give the union its types, which convert the rows (Decimal, UTC times).
    return [cast(null(), column.type).label(column.name) for column in columns]


def _statement() -> Select[Any]:
    units = select(PackagingUnit.article_id, *_UNIT_COLUMNS, *_nulls(_PRICE_COLUMNS)).where(
        values_in(PackagingUnit.article_id, "ids")
    )
    prices = (
        select(Price.article_id, *_nulls(_UNIT_COLUMNS), *_PRICE_COLUMNS)
        .join(PriceList, PriceList.id == Price.price_list_id)
        .where(
            values_in(Price.article_id, "ids"),
            Price.currency == bindparam("currency"),
            values_in(Price.price_list_id, "price_lists"),
        )
    )
    both = union_all(units, prices).subquery("unit_prices")
    # The units in their order (details.packaging keeps it); the prices' order is the ladder's to make.
    stmt = select(*both.c).order_by(both.c.article_id, both.c.factor, both.c.code)
    check_record_columns(stmt, PackagingUnitRecord, lead=1)
    # A price row is its article id and these columns (price_tiers.PriceRow), read by position too.
    prices_read = tuple(stmt.selected_columns.keys())[_UNITS_END:]
    if prices_read != price_tiers.PriceRow._fields[1:]:
        raise ValueError(f"a price row's columns {prices_read} must be PriceRow's fields after article_id")
    return stmt


_UNIT_PRICES = Query(_statement())


async def units_and_prices(
    reads: Reads, article_ids: Sequence[int], view: CatalogueView
) -> tuple[dict[int, ArticlePackaging], dict[PriceKey, list[PriceTier]]]:
    """Per article its packaging (details.packaging) and per article and unit its price tiers
    (price_tiers.prices_by_article), read together."""
    rows = await reads.rows(_UNIT_PRICES, ids=article_ids, currency=view.currency, price_lists=view.price_list_ids)
    units, prices = [], []
    for row in rows:
        if row[1] is not None:  # a unit's code: never NULL
            units.append(row[:_UNITS_END])
        else:
            prices.append(price_tiers.PriceRow(row[0], *row[_UNITS_END:]))
    chosen = price_tiers.choose_tiers(prices, view.price_list_ids) if view.price_list_ids else {}
    return details.packaging_of(units, article_ids), chosen
