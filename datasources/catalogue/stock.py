"""Stock: on hand minus reservations, counted only in released warehouses. It may be negative."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import InstrumentedAttribute

from datasources.catalogue.records import StockRecord
from datasources.models import PackagingUnit, Reservation, Stock, Warehouse
from datasources.reads import Query, Reads, record_columns, values_in


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
    """True when some released warehouse holds a positive quantity after reservations. It selects a column of
    the stock index (not EXISTS (SELECT *), which SQLite reads as needing the table's rows)."""
    return (
        select(Stock.article_id)
        .where(Stock.article_id == article_id, Stock.warehouse_id == Warehouse.id, Warehouse.released)
        .where(_net_quantity() > 0)
        .exists()
    )


def stock_in_base_units(article_id: ColumnElement[int] | InstrumentedAttribute[int]) -> ColumnElement[Decimal]:
    """The article's stock after reservations in released warehouses, every unit's counted in base units
    (times its packaging unit's factor; a unit the article does not list counts as one)."""
    factor = (
        select(PackagingUnit.factor)
        .where(PackagingUnit.article_id == Stock.article_id, PackagingUnit.code == Stock.packaging_unit)
        .scalar_subquery()
    )
    total = func.sum(_net_quantity() * func.coalesce(factor, 1))
    stock = select(func.coalesce(total, 0)).join(Warehouse, Warehouse.id == Stock.warehouse_id)
    return stock.where(Stock.article_id == article_id, Warehouse.released).scalar_subquery()


_STOCK = Query(
    select(
        Stock.article_id,
        *record_columns(
            StockRecord,
            warehouse=Warehouse.name,
            location_number=Warehouse.location_number,
            packaging_unit=Stock.packaging_unit,
            stock_range=Stock.stock_range,
            quantity=_net_quantity(),
        ),
    )
    .join(Warehouse, Warehouse.id == Stock.warehouse_id)
    .where(values_in(Stock.article_id, "ids"), Warehouse.released)
    .order_by(Stock.article_id, Warehouse.location_number, Warehouse.name, Stock.packaging_unit),
    record=StockRecord,
    lead=1,
)


async def stock_by_article(reads: Reads, article_ids: Sequence[int]) -> dict[int, list[StockRecord]]:
    result: dict[int, list[StockRecord]] = defaultdict(list)
    for article_id, *record in await reads.rows(_STOCK, ids=article_ids):
        result[article_id].append(StockRecord(*record))
    return result
