"""Writes a chunk of compared records: new articles inserted, changed parts of the others deleted and
inserted again, each table's rows in a few multi-row statements (datasources/bulk.py); unchanged articles are not
touched."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import Table, bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources import phkeys
from datasources.bulk import insert_rows
from datasources.exchange.comparison import MEDIA_STAMP, ROW, STAMP, Comparison
from datasources.exchange.kinds import Problem
from datasources.exchange.record import EXPOSED, EXPOSED_CONTENTS
from datasources.exchange.references import References
from datasources.models import (
    Article,
    ArticleAttribute,
    ArticleDesignation,
    Declaration,
    Media,
    PackagingUnit,
    Price,
    Reservation,
    Stock,
)

Row = dict[str, Any]


@dataclass(eq=False)
class Change:
    """One article to write: its id (None: new, until it is written) and the comparison with what is stored."""

    article_id: int | None
    comparison: Comparison
    is_new: bool = False

    def __post_init__(self) -> None:
        self.is_new = self.article_id is None


@dataclass
class Ids:
    """Ids handed out for new rows whose id a record does not give, past any the table or the import has."""

    last: dict[str, int] = field(default_factory=dict)

    async def take(self, conn: AsyncConnection, table: Table, count: int, given: Iterable[int] = ()) -> Iterator[int]:
        stored = await conn.scalar(select(func.coalesce(func.max(table.c.id), 0)))
        start = max(int(stored or 0), self.last.get(table.name, 0), *given) + 1
        self.last[table.name] = start + count - 1
        return iter(range(start, start + count))


async def numbering_conflicts(conn: AsyncConnection, changes: dict[str, Change]) -> dict[str, Problem]:
    """Records giving a declaration's Nr or a media record's IDKey another article has (not one of these)."""
    problems: dict[str, Problem] = {}
    for part, model, key in (("Deklaration", Declaration, "Nr"), ("Media", Media, "IDKey")):
        given: dict[int, str] = {}
        for number, change in changes.items():
            if part in change.comparison.changed:
                given.update((item[key], number) for item in change.comparison.record[part] if item[key] is not None)
        if not given:
            continue
        mine = {change.article_id for change in changes.values() if part in change.comparison.changed}
        owners = select(model.id, model.article_id).where(model.id.in_(list(given)))
        for item_id, owner in await conn.execute(owners):
            if owner not in mine:
                problems[given[item_id]] = Problem(part, f"a {key} no other article has ({item_id} is taken)")
    return problems


async def write_chunk(
    conn: AsyncConnection, changes: list[Change], references: References, ids: Ids, now: dt.datetime
) -> None:
    new = [change for change in changes if change.is_new]
    for change, article_id in zip(new, await ids.take(conn, Article.__table__, len(new)), strict=True):  # type: ignore[arg-type]
        change.article_id = article_id
    if new:
        await insert_rows(conn, Article, [_article_row(change) for change in new])
    updated = [_article_row(change) for change in changes if not change.is_new and ROW in change.comparison.changed]
    if updated:
        # Not the number (nor in the parameters, whose column names SQLAlchemy would SET too): the article was
        # found by it, and a SET of it fires the search index's trigger (an FTS5 row deleted and written again, a
        # flush of the index per article) and the sort keys' for nothing.
        rows = [{name: value for name, value in row.items() if name != "number"} for row in _rename_id(updated)]
        values: dict[str, Any] = {name: bindparam(name) for name in rows[0] if name != "b_id"}
        await conn.execute(update(Article).where(Article.id == bindparam("b_id")).values(values), rows)
    for part, writer in _PART_WRITERS.items():
        touched = [change for change in changes if part in change.comparison.changed]
        if touched:
            await writer(conn, touched, [change for change in touched if not change.is_new], references, ids, now)


def _rename_id(rows: list[Row]) -> list[Row]:
    # bindparam("id") would clash with the column of the SET clause.
    return [{"b_id" if name == "id" else name: value for name, value in row.items()} for row in rows]


def _article_row(change: Change) -> Row:
    record = change.comparison.record
    return {
        "id": change.article_id,
        "number": record["ArtNr"],
        "stock_managed": record["AnLager"] == "J",
        "status": record["ArtikelStatus"],
        "unit": record["Einheit"],
        "colour": record["Farbe"],
        "tax_code": record["WUSTCode"],
        "group": record["ArtGruppe"],
        "article_class": record["ArtKlasse"],
        "procurement_type": record["BeschaffungsArt"],
        "processing_type": record["VerarbeitungsArt"],
        "weight": record["ArtGewicht"],
        "modified_at": record[STAMP],
    }


async def _replace(conn: AsyncConnection, models: tuple[Any, ...], old: list[Change], rows: list[Row]) -> None:
    """The rows of `models` of the articles `old` deleted; `rows` inserted into the first model."""
    stale = [change.article_id for change in old]
    for model in models:
        if stale:
            await conn.execute(delete(model).where(model.article_id.in_(stale)))
    if rows:
        await insert_rows(conn, models[0], rows)


async def _attributes(conn: AsyncConnection, touched: list[Change], old: list[Change], *_: Any) -> None:
    rows = []
    for change in touched:
        record = change.comparison.record
        attributes = dict(record["attributes"])
        if record[EXPOSED]:
            attributes.setdefault(phkeys.EXPOSED, EXPOSED_CONTENTS)
        rows += [{"article_id": change.article_id, "key": key, "contents": value} for key, value in attributes.items()]
    await _replace(conn, (ArticleAttribute,), old, rows)


async def _designations(conn: AsyncConnection, touched: list[Change], old: list[Change], *_: Any) -> None:
    rows = [
        {"article_id": change.article_id, "language": language, "text": text}
        for change in touched
        for language, text in change.comparison.record["ArtBez"].items()
    ]
    await _replace(conn, (ArticleDesignation,), old, rows)


async def _packaging(conn: AsyncConnection, touched: list[Change], old: list[Change], *_: Any) -> None:
    rows = [
        {
            "article_id": change.article_id,
            "code": unit["VPEinheit"],
            "ean": unit["VPEEANNr"],
            "designation": unit["VPBezeichnung"],
            "factor": unit["Faktor"],
            "weight_factor": unit["Gewicht"],
            "weight": unit["VPEGewicht"],
            "content_weight": unit["GewichtInhalt"],
        }
        for change in touched
        for unit in change.comparison.record["Verpackungen"]
    ]
    await _replace(conn, (PackagingUnit,), old, rows)


async def _prices(
    conn: AsyncConnection, touched: list[Change], old: list[Change], references: References, _: Ids, now: dt.datetime
) -> None:
    rows = [
        {
            "article_id": change.article_id,
            "price_list_id": references.price_lists[list_type],
            "currency": currency,
            "packaging_unit": tier["VPEinheit"],
            "price_range": tier["Bereich"],
            "min_quantity": tier["AbAnzahl"],
            "amount": tier["PreisList"],
            "modified_at": tier[STAMP] or now,
        }
        for change in touched
        for list_type, currencies in change.comparison.record["Preis"].items()
        for currency, tiers in currencies.items()
        for tier in tiers
    ]
    await _replace(conn, (Price,), old, rows)


async def _stock(
    conn: AsyncConnection, touched: list[Change], old: list[Change], references: References, *_: Any
) -> None:
    rows, reservations = [], {}
    for change in touched:
        for warehouse, stock_rows in change.comparison.record["Bestand"].items():
            warehouse_id = references.warehouses[warehouse]
            for row in stock_rows:
                rows.append(
                    {
                        "article_id": change.article_id,
                        "warehouse_id": warehouse_id,
                        "packaging_unit": row["VPEinheit"],
                        "stock_range": row["Bereich"],
                        "on_hand": row["LagerBestand"],
                    }
                )
                if row["Reserviert"] > 0:
                    # Reservations count per warehouse and unit, whatever the range: one row holds them.
                    key = (change.article_id, warehouse_id, row["VPEinheit"])
                    reservations[key] = {
                        "article_id": key[0],
                        "warehouse_id": key[1],
                        "packaging_unit": key[2],
                        "quantity": Decimal(row["Reserviert"]),
                    }
    await _replace(conn, (Stock, Reservation), old, rows)
    if reservations:
        await insert_rows(conn, Reservation, list(reservations.values()))


async def _declarations(
    conn: AsyncConnection, touched: list[Change], old: list[Change], _: References, ids: Ids, now: dt.datetime
) -> None:
    items = [(change, item) for change in touched for item in change.comparison.record["Deklaration"]]
    numbers = await _numbers(conn, Declaration.__table__, [item["Nr"] for _, item in items], ids)  # type: ignore[arg-type]
    rows = [
        {
            "id": number,
            "article_id": change.article_id,
            "language": item["AdrSprache"],
            "designation1": item["Bezeichnung1"],
            "designation2": item["Bezeichnung2"],
            "short_designation": item["KurzBezeichnung"],
            "country": item["OrtLand"],
        }
        for (change, item), number in zip(items, numbers, strict=True)
    ]
    await _replace(conn, (Declaration,), old, rows)


async def _media(
    conn: AsyncConnection, touched: list[Change], old: list[Change], _: References, ids: Ids, now: dt.datetime
) -> None:
    items = [(change, item) for change in touched for item in change.comparison.record["Media"]]
    numbers = await _numbers(conn, Media.__table__, [item["IDKey"] for _, item in items], ids)  # type: ignore[arg-type]
    rows = [
        {
            "id": number,
            "article_id": change.article_id,
            "file_name": item["AMDDateiName"],
            "image": item["Bild"],
            "image_format": item["AMDBildFormat"],
            "text": item["AMDText"],
            "text_format": item["AMDTextFormat"],
            "usage": item["AMDVerwendung"],
            "language": item["AdrSprache"],
            "country": item["OrtLand"],
            "comment": item["Kommentar"],
            "modified_at": item[MEDIA_STAMP] or now,
        }
        for (change, item), number in zip(items, numbers, strict=True)
    ]
    await _replace(conn, (Media,), old, rows)


async def _numbers(conn: AsyncConnection, table: Table, given: list[int | None], ids: Ids) -> list[int]:
    """The ids the records give, and new ones where they give none."""
    missing = sum(number is None for number in given)
    fresh = (
        await ids.take(conn, table, missing, [number for number in given if number is not None])
        if missing
        else iter(())
    )
    return [number if number is not None else next(fresh) for number in given]


_PART_WRITERS: dict[str, Any] = {
    "attributes": _attributes,
    "ArtBez": _designations,
    "Verpackungen": _packaging,
    "Preis": _prices,
    "Bestand": _stock,
    "Deklaration": _declarations,
    "Media": _media,
}
