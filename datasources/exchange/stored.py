"""Articles as stored, read into records: a chunk of ArtNrs at a time, one statement per table.

The export writes these records; the import compares a file's records with them, so an article whose record
equals what is stored is not written. Lists are in a fixed order (the one the REST answers use, or their
keys'), so that two reads of the same data give equal records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources import phkeys
from datasources.exchange.record import EXPOSED, EXPOSED_CONTENTS
from datasources.models import (
    Article,
    ArticleAttribute,
    ArticleDesignation,
    Declaration,
    Media,
    PackagingUnit,
    Price,
    PriceList,
    Reservation,
    Stock,
    Warehouse,
)

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredArticle:
    id: int
    record: Record


async def stored_articles(conn: AsyncConnection, numbers: Sequence[str]) -> dict[str, StoredArticle]:
    """The records of the articles of `numbers` that exist, by ArtNr."""
    rows = (await conn.execute(select(*_ARTICLE_COLUMNS).where(Article.number.in_(numbers)))).all()
    if not rows:
        return {}
    by_id = {row.id: _article(row) for row in rows}
    ids = list(by_id)
    for reader in (_designations, _attributes, _packaging, _prices, _stock, _declarations, _media):
        await reader(conn, ids, by_id)
    return {record["ArtNr"]: StoredArticle(article_id, record) for article_id, record in by_id.items()}


_ARTICLE_COLUMNS = (
    Article.id,
    Article.number,
    Article.stock_managed,
    Article.status,
    Article.unit,
    Article.colour,
    Article.tax_code,
    Article.group,
    Article.article_class,
    Article.procurement_type,
    Article.processing_type,
    Article.weight,
    Article.modified_at,
)


def _article(row: Any) -> Record:
    return {
        "ArtNr": row.number,
        EXPOSED: False,  # until its attribute is read
        "AnLager": "J" if row.stock_managed else "N",
        "ArtikelStatus": row.status,
        "Einheit": row.unit,
        "Farbe": row.colour,
        "WUSTCode": row.tax_code,
        "ArtGruppe": row.group,
        "ArtKlasse": row.article_class,
        "BeschaffungsArt": row.procurement_type,
        "VerarbeitungsArt": row.processing_type,
        "ArtGewicht": row.weight,
        "GeaendertAmUTC": row.modified_at,
        "ArtBez": {},
        "attributes": {},
        "Verpackungen": [],
        "Preis": {},
        "Bestand": {},
        "Deklaration": [],
        "Media": [],
    }


async def _designations(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    stmt = (
        select(ArticleDesignation.article_id, ArticleDesignation.language, ArticleDesignation.text)
        .where(ArticleDesignation.article_id.in_(ids))
        .order_by(ArticleDesignation.article_id, ArticleDesignation.language)
    )
    for article_id, language, text in await conn.execute(stmt):
        records[article_id]["ArtBez"][language] = text


async def _attributes(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    stmt = (
        select(ArticleAttribute.article_id, ArticleAttribute.key, ArticleAttribute.contents)
        .where(ArticleAttribute.article_id.in_(ids))
        .order_by(ArticleAttribute.article_id, ArticleAttribute.key)
    )
    for article_id, key, contents in await conn.execute(stmt):
        record = records[article_id]
        if key == phkeys.EXPOSED:
            record[EXPOSED] = True
            if contents == EXPOSED_CONTENTS:  # what the import writes by itself: not said twice
                continue
        record["attributes"][key] = contents


async def _packaging(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    stmt = (
        select(PackagingUnit.__table__)
        .where(PackagingUnit.article_id.in_(ids))
        .order_by(PackagingUnit.article_id, PackagingUnit.factor, PackagingUnit.code)
    )
    for unit in await conn.execute(stmt):
        records[unit.article_id]["Verpackungen"].append(
            {
                "VPEinheit": unit.code,
                "VPEEANNr": unit.ean,
                "VPBezeichnung": unit.designation,
                "Faktor": unit.factor,
                "Gewicht": unit.weight_factor,
                "VPEGewicht": unit.weight,
                "GewichtInhalt": unit.content_weight,
            }
        )


async def _prices(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    stmt = (
        select(
            Price.article_id,
            PriceList.list_type,
            Price.currency,
            Price.packaging_unit,
            Price.price_range,
            Price.min_quantity,
            Price.amount,
            Price.modified_at,
        )
        .join(PriceList, PriceList.id == Price.price_list_id)
        .where(Price.article_id.in_(ids))
        .order_by(Price.article_id, PriceList.list_type, Price.currency, Price.id)
    )
    for article_id, list_type, currency, unit, price_range, min_quantity, amount, modified_at in await conn.execute(
        stmt
    ):
        tiers = records[article_id]["Preis"].setdefault(list_type, {}).setdefault(currency, [])
        tiers.append(
            {
                "VPEinheit": unit,
                "Bereich": price_range,
                "AbAnzahl": min_quantity,
                "PreisList": amount,
                "GeaendertAmUTC": modified_at,
            }
        )
    for record in records.values():
        for currencies in record["Preis"].values():
            for tiers in currencies.values():
                tiers.sort(key=tier_order)


def tier_order(tier: Record) -> tuple[Any, ...]:
    """Tiers by unit, range and quantity: the order the REST answers list them in (and a file's need not)."""
    return (tier["VPEinheit"] or "", tier["Bereich"] or "", tier["AbAnzahl"])


def stock_order(row: Record) -> tuple[Any, ...]:
    return (row["VPEinheit"] or "", row["Bereich"] or "")


async def _stock(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    reserved: dict[tuple[int, int, str | None], Any] = defaultdict(int)
    stmt = (
        select(
            Reservation.article_id,
            Reservation.warehouse_id,
            Reservation.packaging_unit,
            func.sum(Reservation.quantity),
        )
        .where(Reservation.article_id.in_(ids))
        .group_by(Reservation.article_id, Reservation.warehouse_id, Reservation.packaging_unit)
    )
    for article_id, warehouse_id, unit, quantity in await conn.execute(stmt):
        reserved[(article_id, warehouse_id, unit)] = quantity
    rows = select(Stock.__table__, Warehouse.name.label("warehouse"))
    rows = rows.join(Warehouse, Warehouse.id == Stock.warehouse_id)
    rows = rows.where(Stock.article_id.in_(ids)).order_by(Stock.article_id, Warehouse.name)
    for stock in await conn.execute(rows):
        by_warehouse = records[stock.article_id]["Bestand"].setdefault(stock.warehouse, [])
        key = (stock.article_id, stock.warehouse_id, stock.packaging_unit)
        by_warehouse.append(
            {
                "VPEinheit": stock.packaging_unit,
                "Bereich": stock.stock_range,
                "LagerBestand": stock.on_hand,
                "Reserviert": _decimal(reserved.get(key, 0)),
            }
        )
    for record in records.values():
        for stock_rows in record["Bestand"].values():
            stock_rows.sort(key=stock_order)


def _decimal(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


async def _declarations(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    stmt = select(Declaration.__table__).where(Declaration.article_id.in_(ids)).order_by(Declaration.id)
    for declaration in await conn.execute(stmt):
        records[declaration.article_id]["Deklaration"].append(
            {
                "Nr": declaration.id,
                "AdrSprache": declaration.language,
                "Bezeichnung1": declaration.designation1,
                "Bezeichnung2": declaration.designation2,
                "KurzBezeichnung": declaration.short_designation,
                "OrtLand": declaration.country,
            }
        )


async def _media(conn: AsyncConnection, ids: list[int], records: dict[int, Record]) -> None:
    stmt = select(
        Media.id,
        Media.article_id,
        Media.file_name,
        Media.image_format,
        Media.text_format,
        Media.text,
        Media.usage,
        Media.language,
        Media.country,
        Media.comment,
        Media.modified_at,
        Media.image,
    )
    for row in await conn.execute(stmt.where(Media.article_id.in_(ids)).order_by(Media.id)):
        records[row.article_id]["Media"].append(
            {
                "IDKey": row.id,
                "AMDDateiName": row.file_name,
                "AMDBildFormat": row.image_format,
                "AMDTextFormat": row.text_format,
                "AMDText": row.text,
                "AMDVerwendung": row.usage,
                "AdrSprache": row.language,
                "OrtLand": row.country,
                "Kommentar": row.comment,
                "Modified_UTC": row.modified_at,
                "Bild": row.image,
            }
        )
