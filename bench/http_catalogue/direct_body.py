"""The body of the direct app (bench/http_catalogue/direct.py): the page's details read with one statement each (only
those the requested fields need), and the REST article structure built from the rows in the specification's
field order, as rest_compat/articles.py's shapes give it: Verpackungen only for an article with packaging
units (then its prices and stock hang under them), Preis left out where there is no tier, BisAnzahl left out
on a range's last tier."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from bench.http_catalogue.direct_db import Connection, Row, Values

Json = dict[str, Any]
ARTICLE = (
    *("ArtNr", "AnLager", "ArtBez", "ArtikelStatus", "Einheit", "Farbe", "WUSTSatz", "GeaendertAmUTC"),
    *("ArtGruppe", "ArtKlasse", "WaehrAbk", "BeschaffungsArt", "VerarbeitungsArt", "links", "attributes"),
    *("HatVPE", "Verpackungen", "Preis", "Bestand"),
)
SINGLE = (*ARTICLE, "ArtGewicht", "Deklaration")


def link(href: str, rel: str) -> dict[str, str]:
    return {"href": href, "type": "GET", "rel": rel}


# --- reading: the page's details, one statement each, only those the fields need ---------------------------


@dataclass
class Parts:
    values: type[Values]
    currency: str
    designations: dict[int, str] = field(default_factory=dict)
    attributes: dict[int, list[Json]] = field(default_factory=lambda: defaultdict(list))
    units: dict[int, list[Row]] = field(default_factory=dict)  # the visible ones of articles that have units
    tiers: dict[tuple[int, str | None], list[tuple[Row, Any]]] = field(default_factory=dict)  # (row, BisAnzahl)
    stock: dict[int, list[Row]] = field(default_factory=lambda: defaultdict(list))
    declarations: dict[int, list[Row]] = field(default_factory=lambda: defaultdict(list))


async def load(db: Connection, ids: list[int], wanted: Collection[str], currency: str, price_list: int | None) -> Parts:
    parts, fields = Parts(db.values, currency), set(wanted)
    if not ids:
        return parts
    if "ArtBez" in fields:  # in German, the default output language; no other is asked for
        parts.designations = {row[0]: row[1] for row in await db.fetch("designations", ids=ids)}
    if "attributes" in fields:
        for article_id, key, contents in await db.fetch("attributes", ids=ids):
            parts.attributes[article_id].append({"Contents": contents, "PHKey": key})
    # Whether an article has packaging units decides where its prices and stock go.
    if {"HatVPE", "Verpackungen", "Preis", "Bestand"} & fields:
        _units(parts, await db.fetch("packaging", ids=ids))
    if {"Verpackungen", "Preis"} & fields and price_list is not None:
        _tiers(parts, await db.fetch("prices", (currency, price_list), ids=ids))
    if {"Verpackungen", "Bestand"} & fields:
        for row in await db.fetch("stock", ids=ids):
            parts.stock[row[0]].append(row)
    if "Deklaration" in fields:
        for row in await db.fetch("declarations", ids=ids):
            parts.declarations[row[0]].append(row)
    return parts


def _units(parts: Parts, rows: list[Row]) -> None:
    """WEBSHOPVPE: the codes it lists (comma-separated, any case) are shown; empty or absent, all are."""
    for row in rows:
        allowed = {code.strip().upper() for code in (row[8] or "").split(",") if code.strip()}
        visible = parts.units.setdefault(row[0], [])  # an article with units has HatVPE J, even none visible
        if not allowed or row[1].upper() in allowed:
            visible.append(row)


def _tiers(parts: Parts, rows: list[Row]) -> None:
    """Tiers per article and unit by (range, from quantity); BisAnzahl is the next tier's AbAnzahl in the range."""
    grouped: dict[tuple[int, str | None], list[Row]] = defaultdict(list)
    for row in rows:
        grouped[(row[0], row[1])].append(row)
    for key, tiers in grouped.items():
        tiers.sort(key=lambda row: (row[2] or "", row[3]))
        parts.tiers[key] = [
            (row, tiers[i + 1][3] if i + 1 < len(tiers) and tiers[i + 1][2] == row[2] else None)
            for i, row in enumerate(tiers)
        ]


# --- writing: the REST body, in the specification's field order --------------------------------------------


# The fields that are one column of the article's row (or of the view): a selection of only these is built
# without the rest.
PLAIN: dict[str, Callable[[Row, Parts], Any]] = {
    "ArtNr": lambda row, parts: row[1],
    "AnLager": lambda row, parts: "J" if row[2] else "N",
    "ArtBez": lambda row, parts: parts.designations.get(row[0]),
    "ArtikelStatus": lambda row, parts: row[3],
    "Einheit": lambda row, parts: row[4],
    "Farbe": lambda row, parts: row[5],
    "WUSTSatz": lambda row, parts: parts.values.number(row[6]),
    "GeaendertAmUTC": lambda row, parts: parts.values.when(row[12]),
    "ArtGruppe": lambda row, parts: row[7],
    "ArtKlasse": lambda row, parts: row[8],
    "WaehrAbk": lambda row, parts: parts.currency,
    "BeschaffungsArt": lambda row, parts: row[9],
    "VerarbeitungsArt": lambda row, parts: row[10],
    "ArtGewicht": lambda row, parts: parts.values.number(row[11]),
}


def article(row: Row, parts: Parts, base: str, wanted: tuple[str, ...], single: bool) -> Json:
    if all(name in PLAIN for name in wanted):
        return {name: PLAIN[name](row, parts) for name in wanted}
    values, article_id, number = parts.values, row[0], row[1]
    quoted = quote(number, safe="")
    to_article = [link(f"{base}/www/artikel/{quoted}", "artikel")]
    entry: Json = {
        "ArtNr": number,
        "AnLager": "J" if row[2] else "N",
        "ArtBez": parts.designations.get(article_id),
        "ArtikelStatus": row[3],
        "Einheit": row[4],
        "Farbe": row[5],
        "WUSTSatz": values.number(row[6]),
        "GeaendertAmUTC": values.when(row[12]),
        "ArtGruppe": row[7],
        "ArtKlasse": row[8],
        "WaehrAbk": parts.currency,
        "BeschaffungsArt": row[9],
        "VerarbeitungsArt": row[10],
        "links": [*to_article, link(f"{base}/www/artikelmedia/{quoted}", "artikelmedia")],
        "attributes": parts.attributes.get(article_id, []),
    }
    units = parts.units.get(article_id)
    entry["HatVPE"] = "N" if units is None else "J"
    stock = parts.stock.get(article_id, [])
    if units is not None:  # prices and stock hang under the packaging units
        entry["Verpackungen"] = [_unit(unit, number, to_article, parts, stock) for unit in units]
    else:
        if tiers := parts.tiers.get((article_id, None)):
            entry["Preis"] = [_price(tier, upper, number, to_article, values) for tier, upper in tiers]
        entry["Bestand"] = [_stock(s, number, to_article, values) for s in stock if s[3] is None]
    if single:
        entry["ArtGewicht"] = values.number(row[11])
        entry["Deklaration"] = [_declaration(d, number, to_article) for d in parts.declarations.get(article_id, [])]
    if len(wanted) == len(SINGLE if single else ARTICLE):
        return entry
    return {name: entry[name] for name in wanted if name in entry}


def _unit(unit: Row, number: str, to_article: list[dict[str, str]], parts: Parts, stock: list[Row]) -> Json:
    values, code = parts.values, unit[1]
    entry: Json = {
        "VPEinheit": code,
        "VPEEANNr": unit[2],
        "VPBezeichnung": unit[3],
        "Faktor": values.number(unit[4]),
        "Gewicht": values.number(unit[5]),
        "VPEGewicht": values.number(unit[6]),
        "GewichtInhalt": values.number(unit[7]),
    }
    if tiers := parts.tiers.get((unit[0], code)):
        entry["Preis"] = [_price(tier, upper, number, to_article, values) for tier, upper in tiers]
    entry["Bestand"] = [_stock(s, number, to_article, values) for s in stock if s[3] == code]
    return entry


def _price(tier: Row, upper: Any, number: str, to_article: list[dict[str, str]], values: type[Values]) -> Json:
    entry: Json = {"ArtNr": number, "Bereich": tier[2], "AbAnzahl": values.number(tier[3])}
    if upper is not None:
        entry["BisAnzahl"] = values.number(upper)
    entry.update(
        PreisList=values.number(tier[4]),
        Preisart=tier[6],
        VPEinheit=tier[1],
        GeaendertAmUTC=values.when(tier[5]),
        links=to_article,
    )
    return entry


def _stock(row: Row, number: str, to_article: list[dict[str, str]], values: type[Values]) -> Json:
    return {
        "ArtNr": number,
        "LagerOrt": row[1],
        "StaoNr": row[2],
        "LagerBestand": values.quantity(row[5]),
        "VPEinheit": row[3],
        "Bereich": row[4],
        "links": to_article,
    }


def _declaration(row: Row, number: str, to_article: list[dict[str, str]]) -> Json:
    return {
        "Nr": row[1],
        "AdrSprache": row[2],
        "ArtNr": number,
        "Bezeichnung1": row[3],
        "Bezeichnung2": row[4],
        "KurzBezeichnung": row[5],
        "OrtLand": row[6],
        "links": to_article,
    }
