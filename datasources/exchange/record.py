"""The article record of `gateway export` and `gateway import`: one per article, keyed by the REST output
names, with what has several values nested (designations by language, prices by price list and currency,
stock by warehouse). Declared once; the JSON Schema and the import's checks are made from it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from datasources import phkeys
from datasources.exchange.kinds import (
    File,
    Flag,
    Integer,
    JsonSchema,
    ListOf,
    MapOf,
    Number,
    Object,
    Problem,
    Text,
    Timestamp,
)

LANGUAGE = Text(3, nullable=False, pattern="^[a-z]{3}$")
COUNTRY = Text(2, nullable=True, pattern="^[A-Z]{2}$")
QUANTITY = Number(minimum=Decimal(0))

# Not a REST field: whether the article exists for the web shop (the attribute RESTWEBSHOP).
EXPOSED = "WebShop"
# The contents of RESTWEBSHOP an import writes when the record's attributes do not name one.
EXPOSED_CONTENTS = "1"

PACKAGING_UNIT = Object(
    {
        "VPEinheit": Text(30, nullable=False),
        "VPEEANNr": Text(30),
        "VPBezeichnung": Text(255),
        "Faktor": Number(nullable=False, minimum=Decimal(0)),
        "Gewicht": Number(),
        "VPEGewicht": Number(),
        "GewichtInhalt": Number(),
    },
    required=("VPEinheit",),
)

PRICE_TIER = Object(
    {
        "VPEinheit": Text(30),
        "Bereich": Text(15),
        "AbAnzahl": Number(nullable=False, minimum=Decimal(0)),
        "PreisList": Number(nullable=False),
        "GeaendertAmUTC": Timestamp(),
    },
    required=("PreisList",),
)

STOCK = Object(
    {
        "VPEinheit": Text(30),
        "Bereich": Text(15),
        "LagerBestand": Number(nullable=False),  # on hand, before reservations
        "Reserviert": Number(nullable=False, minimum=Decimal(0)),  # what open orders hold of it
    },
    required=("LagerBestand",),
)

DECLARATION = Object(
    {
        "Nr": Integer(),
        "AdrSprache": LANGUAGE,
        "Bezeichnung1": Text(255),
        "Bezeichnung2": Text(255),
        "KurzBezeichnung": Text(60),
        "OrtLand": COUNTRY,
    },
    required=("AdrSprache",),
)

MEDIA = Object(
    {
        "IDKey": Integer(),
        "AMDDateiName": Text(255, nullable=False),
        "AMDBildFormat": Text(12),
        "AMDTextFormat": Text(12),
        "AMDText": Text(1_000_000),
        "AMDVerwendung": Text(12),
        "AdrSprache": Text(3, pattern="^[a-z]{3}$"),
        "OrtLand": COUNTRY,
        "Kommentar": Text(255),
        "Modified_UTC": Timestamp(),
        "Bild": File(),
    },
    required=("AMDDateiName",),
)

ARTICLE = Object(
    {
        "ArtNr": Text(15, nullable=False, pattern=r"^\S(.*\S)?$"),
        EXPOSED: Flag(),
        "AnLager": Text(1, nullable=False, choices=("J", "N")),
        "ArtikelStatus": Integer(),
        "Einheit": Text(12, nullable=False),
        "Farbe": Text(12),
        "WUSTCode": Text(6),
        "ArtGruppe": Text(15),
        "ArtKlasse": Text(12),
        "BeschaffungsArt": Text(1),
        "VerarbeitungsArt": Text(1, nullable=False),
        "ArtGewicht": Number(),
        "GeaendertAmUTC": Timestamp(),
        "ArtBez": MapOf(LANGUAGE, Text(255, nullable=False), "language"),
        "attributes": MapOf(Text(12, nullable=False), Text(200, nullable=False), "PHKey"),
        "Verpackungen": ListOf(PACKAGING_UNIT),
        "Preis": MapOf(
            Text(12, nullable=False),
            MapOf(Text(3, nullable=False, pattern="^[A-Z]{3}$"), ListOf(PRICE_TIER), "currency"),
            "price list",
        ),
        "Bestand": MapOf(Text(60, nullable=False), ListOf(STOCK), "warehouse"),
        "Deklaration": ListOf(DECLARATION),
        "Media": ListOf(MEDIA),
    },
    required=("ArtNr",),
    description="One article of the catalogue (gateway export / gateway import).",
)

# What a new article gets for a field its record leaves out (an existing one keeps what it has).
ARTICLE_DEFAULTS: dict[str, Any] = {
    EXPOSED: True,
    "AnLager": "J",
    "ArtikelStatus": 1,
    "Einheit": "Stk",
    "Farbe": None,
    "WUSTCode": None,
    "ArtGruppe": None,
    "ArtKlasse": None,
    "BeschaffungsArt": None,
    "VerarbeitungsArt": "N",
    "ArtGewicht": None,
    "ArtBez": {},
    "attributes": {},
    "Verpackungen": [],
    "Preis": {},
    "Bestand": {},
    "Deklaration": [],
    "Media": [],
}
PACKAGING_DEFAULTS: dict[str, Any] = {
    "VPEEANNr": None,
    "VPBezeichnung": None,
    "Faktor": Decimal(1),
    "Gewicht": None,
    "VPEGewicht": None,
    "GewichtInhalt": None,
}
TIER_DEFAULTS: dict[str, Any] = {"VPEinheit": None, "Bereich": None, "AbAnzahl": Decimal(1)}
STOCK_DEFAULTS: dict[str, Any] = {"VPEinheit": None, "Bereich": None, "Reserviert": Decimal(0)}
DECLARATION_DEFAULTS: dict[str, Any] = dict.fromkeys(("Bezeichnung1", "Bezeichnung2", "KurzBezeichnung", "OrtLand"))
MEDIA_DEFAULTS: dict[str, Any] = dict.fromkeys(
    ("AMDBildFormat", "AMDTextFormat", "AMDText", "AMDVerwendung", "AdrSprache", "OrtLand", "Kommentar", "Bild")
)

SCHEMA_ID = "https://erp-shop-gateway.invalid/schemas/article-record.json"


def json_schema() -> JsonSchema:
    """The JSON Schema (2020-12) of one record: what `gateway export --schema` prints."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **ARTICLE.schema()}


def check_record(value: Any) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The record in its Python form, or None with what is wrong with it (every problem, in field order)."""
    problems: list[Problem] = []
    record = ARTICLE.check(value, "", problems)
    if record is not None and not problems:
        problems.extend(_duplicates(record))
    return (None if problems else record), problems


def _duplicates(record: dict[str, Any]) -> list[Problem]:
    """What the tables' keys forbid twice in one article (a packaging unit's code, a stock row's key), and
    an exposure attribute on an article the record does not expose."""
    problems = []
    if record.get(EXPOSED) is False and phkeys.EXPOSED in record.get("attributes", {}):
        problems.append(
            Problem(f"attributes.{phkeys.EXPOSED}", f"no {phkeys.EXPOSED} attribute where {EXPOSED} is false")
        )
    codes = [unit["VPEinheit"] for unit in record.get("Verpackungen", [])]
    if len(set(codes)) != len(codes):
        problems.append(Problem("Verpackungen", "each VPEinheit once"))
    for warehouse, rows in record.get("Bestand", {}).items():
        keys = [(row.get("VPEinheit"), row.get("Bereich")) for row in rows]
        if len(set(keys)) != len(keys):
            problems.append(Problem(f"Bestand.{warehouse}", "each VPEinheit and Bereich once per warehouse"))
        # Reservations count per warehouse and unit: the rows of one unit (several Bereich) share them.
        reserved = {(row.get("VPEinheit"), row.get("Reserviert", Decimal(0))) for row in rows}
        if len({unit for unit, _ in reserved}) != len(reserved):
            problems.append(Problem(f"Bestand.{warehouse}", "one Reserviert for the rows of one VPEinheit"))
    for list_type, currencies in record.get("Preis", {}).items():
        for currency, tiers in currencies.items():
            tier_keys = [(t.get("VPEinheit"), t.get("Bereich"), t.get("AbAnzahl", Decimal(1))) for t in tiers]
            if len(set(tier_keys)) != len(tier_keys):
                problems.append(Problem(f"Preis.{list_type}.{currency}", "each VPEinheit, Bereich and AbAnzahl once"))
    for name, key in (("Deklaration", "Nr"), ("Media", "IDKey")):
        numbers = [item[key] for item in record.get(name, []) if item.get(key) is not None]
        if len(set(numbers)) != len(numbers):
            problems.append(Problem(name, f"each {key} once"))
    return problems
