"""The direct build of a catalogue page for bench/catalogue/main.py: the data layer's batched queries, the
REST body as plain dicts, orjson. It skips GraphQL and the REST layer; the benchmark checks that its body
equals the REST route's, at every page size it times, before timing anything."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import orjson

from datasources.catalogue import articles, details, price_tiers, stock
from datasources.catalogue.articles import ArticleQuery
from datasources.catalogue.details import ArticlePackaging
from datasources.catalogue.records import (
    ArticleRecord,
    AttributeRecord,
    PackagingUnitRecord,
    PriceTier,
    StockRecord,
)
from datasources.catalogue.view import CatalogueView, resolve_view
from datasources.database import Database
from schema.scalars import float_or_none

BASE_URL = "http://bench"
PAGE_PATH = "/www/artikel"

Json = dict[str, Any]
Link = dict[str, str]


# --- (a) direct: the data layer's queries -> the REST body as dicts -> orjson ---------------------


@dataclass(frozen=True, slots=True)
class PageRows:
    view: CatalogueView
    has_more: bool
    records: list[ArticleRecord]
    designations: dict[int, str]
    attributes: dict[int, list[AttributeRecord]]
    packaging: dict[int, ArticlePackaging]
    prices: dict[price_tiers.PriceKey, list[PriceTier]]
    stock: dict[int, list[StockRecord]]


async def load_page(db: Database, limit: int, offset: int) -> PageRows:
    """The same statements the GraphQL resolvers issue, through the same reads."""
    reads = db.reads
    view = await resolve_view(reads)
    query = ArticleQuery(language=view.language, limit=limit, offset=offset)
    found = await articles.find_articles(reads, query)
    records = found.records
    ids = [record.id for record in records]
    return PageRows(
        view=view,
        has_more=found.has_more,
        records=records,
        designations=await details.designations(reads, ids, view.language),
        attributes=await details.attributes(reads, ids),
        packaging=await details.packaging(reads, ids),
        prices=await price_tiers.prices_by_article(reads, ids, view),
        stock=await stock.stock_by_article(reads, ids),
    )


def _utc(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _yes_no(value: bool) -> str:
    return "J" if value else "N"


def _link(href: str, rel: str) -> Link:
    return {"href": href, "type": "GET", "rel": rel}


def _to_article(href: str) -> list[Link]:
    return [_link(href, "artikel")]


def price_entry(number: str, href: str, tier: PriceTier) -> Json:
    entry: Json = {
        "ArtNr": number,
        "Bereich": tier.price_range,
        "AbAnzahl": float(tier.min_quantity),
    }
    if tier.max_quantity is not None:
        entry["BisAnzahl"] = float(tier.max_quantity)
    entry["PreisList"] = float(tier.amount)
    entry["Preisart"] = tier.price_kind
    entry["VPEinheit"] = tier.packaging_unit
    entry["GeaendertAmUTC"] = _utc(tier.modified_at)
    entry["links"] = _to_article(href)
    return entry


def stock_entry(number: str, href: str, record: StockRecord) -> Json:
    return {
        "ArtNr": number,
        "LagerOrt": record.warehouse,
        "StaoNr": record.location_number,
        "LagerBestand": int(record.quantity),
        "VPEinheit": record.packaging_unit,
        "Bereich": record.stock_range,
        "links": _to_article(href),
    }


def packaging_entry(
    number: str,
    href: str,
    unit: PackagingUnitRecord,
    tiers: list[PriceTier] | None,
    stocks: list[StockRecord],
) -> Json:
    entry: Json = {
        "VPEinheit": unit.code,
        "VPEEANNr": unit.ean,
        "VPBezeichnung": unit.designation,
        "Faktor": float(unit.factor),
        "Gewicht": float_or_none(unit.weight_factor),
        "VPEGewicht": float_or_none(unit.weight),
        "GewichtInhalt": float_or_none(unit.content_weight),
    }
    if tiers:
        entry["Preis"] = [price_entry(number, href, tier) for tier in tiers]
    entry["Bestand"] = [stock_entry(number, href, s) for s in stocks if s.packaging_unit == unit.code]
    return entry


def article_entry(record: ArticleRecord, rows: PageRows, base: str) -> Json:
    number = record.number
    quoted = quote(number, safe="")
    href = f"{base}/www/artikel/{quoted}"
    entry: Json = {
        "ArtNr": number,
        "AnLager": _yes_no(record.stock_managed),
        "ArtBez": rows.designations.get(record.id),
        "ArtikelStatus": record.status,
        "Einheit": record.unit,
        "Farbe": record.colour,
        "WUSTSatz": float_or_none(record.tax_rate),
        "GeaendertAmUTC": _utc(record.modified_at),
        "ArtGruppe": record.group,
        "ArtKlasse": record.article_class,
        "WaehrAbk": rows.view.currency,
        "BeschaffungsArt": record.procurement_type,
        "VerarbeitungsArt": record.processing_type,
        "links": [_link(href, "artikel"), _link(f"{base}/www/artikelmedia/{quoted}", "artikelmedia")],
        "attributes": [{"Contents": a.contents, "PHKey": a.key} for a in rows.attributes.get(record.id, ())],
    }
    packaging = rows.packaging[record.id]
    stocks = rows.stock.get(record.id, [])
    entry["HatVPE"] = _yes_no(packaging.has_units)
    if packaging.has_units:
        entry["Verpackungen"] = [
            packaging_entry(number, href, unit, rows.prices.get((record.id, unit.code)), stocks)
            for unit in packaging.visible
        ]
        return entry  # prices and stock hang under the packaging units
    tiers = rows.prices.get((record.id, None))
    if tiers:
        entry["Preis"] = [price_entry(number, href, tier) for tier in tiers]
    entry["Bestand"] = [stock_entry(number, href, s) for s in stocks if s.packaging_unit is None]
    return entry


def page_links(base: str, limit: int, offset: int, has_more: bool) -> list[Link]:
    def at(new_offset: int) -> str:
        return f"{base}{PAGE_PATH}?{urlencode([('limit', str(limit)), ('offset', str(new_offset))])}"

    links = []
    if has_more:
        links.append(_link(at(offset + limit), "next"))
    if offset > 0:
        links.append(_link(at(max(offset - limit, 0)), "prev"))
    links.append(_link(at(0), "start"))
    return links


def render(rows: PageRows, limit: int, offset: int) -> bytes:
    data = [article_entry(record, rows, BASE_URL) for record in rows.records]
    return orjson.dumps({"data": data, "links": page_links(BASE_URL, limit, offset, rows.has_more)})


@dataclass(frozen=True)
class DirectPage:
    """The direct build of the first page of `limit` articles."""

    db: Database
    limit: int

    async def body(self) -> bytes:
        return render(await load_page(self.db, self.limit, 0), self.limit, 0)
