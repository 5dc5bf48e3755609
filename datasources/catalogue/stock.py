"""Stock: on hand minus reservations, counted only in released warehouses. It may be negative."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal

from sqlalchemy import ColumnElement, exists, func, select
from sqlalchemy.orm import InstrumentedAttribute

from datasources.catalogue.records import StockRecord
from datasources.models import Reservation, Stock, Warehouse
from datasources.reads import Query, Reads, values_in


def _net_quantity() -> ColumnElement[Decimal]:
    reserved = (
        select(func.coalesce(func.sum(Reservation.quantity), 0))
        .where(
            Reservation.article_id == Stock.article_id,
            Reservation.warehouse_id == Stock.warehouse_id,
            Reservation.packaging_unit.is_not_distinct_from(Stock.packaging_unit),
        )
        .scalar_subquery()
    )
    return Stock.on_hand - reserved


def has_available_stock(article_id: ColumnElement[int] | InstrumentedAttribute[int]) -> ColumnElement[bool]:
    """True when some released warehouse holds a positive quantity after reservations."""
    return exists().where(
        Stock.article_id == article_id,
        Stock.warehouse_id == Warehouse.id,
        Warehouse.released,
        _net_quantity() > 0,
    )


_STOCK = Query(
    select(
        Stock.article_id,
        Warehouse.name,
        Warehouse.location_number,
        Stock.packaging_unit,
        Stock.stock_range,
        _net_quantity().label("quantity"),
    )
    .join(Warehouse, Warehouse.id == Stock.warehouse_id)
    .where(values_in(Stock.article_id, "ids"), Warehouse.released)
    .order_by(Stock.article_id, Warehouse.location_number, Warehouse.name, Stock.packaging_unit)
)


async def stock_by_article(reads: Reads, article_ids: Sequence[int]) -> dict[int, list[StockRecord]]:
    result: dict[int, list[StockRecord]] = defaultdict(list)
    for article_id, *record in await reads.rows(_STOCK, ids=article_ids):
        result[article_id].append(StockRecord(*record))
    return result
