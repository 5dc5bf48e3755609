"""What the offer and order tests share: the shop's catalogue, customers with addresses, request helpers,
expected output records built from hand-computed figures, and row counts for "nothing was half-written"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from sqlalchemy import func, select, update

from datasources.database import Database
from datasources.models import (
    Address,
    Customer,
    DocumentPayment,
    DocumentPosition,
    IdempotentRequest,
    SalesDocument,
)
from tests.catalogue_data import Catalogue, build_catalogue
from tests.factories import Factory, unit
from tests.http import body

BASE = "http://gateway.test"

# Input address records. Their places are already in the directory's spelling, so AdrCheck keeps them.
CONTACT_FRE = {
    "AdrSprache": "fre",
    "EmailAdress": "contact@bricolage.ch",
    "AdrAdresse1": "Rue du Marché 4",
    "AdrAnrede": 0,
    "AdrFirma": "Bricolage Léman Sàrl",
    "AdrTf1": "022 123 45 67",
    "OrtLand": "CH",
    "OrtName": "Genève",
    "OrtPLZ": "1201",
}
DELIVERY_FRE = {
    "AdrSprache": "fre",
    "AdrAdresse1": "Chemin des Vignes 2",
    "AdrAnrede": 2,
    "AdrVorname": "Léa",
    "AdrName": "Rochat",
    "OrtLand": "CH",
    "OrtName": "Lausanne",
    "OrtPLZ": "1003",
}
CONTACT_GER = {
    "AdrSprache": "ger",
    "AdrAdresse1": "Bahnhofstrasse 1",
    "AdrAnrede": 1,
    "AdrVorname": "Hans",
    "AdrName": "Muster",
    "OrtLand": "CH",
    "OrtName": "Zürich",
    "OrtPLZ": "8001",
}
CONTACT_ITA = {
    "AdrSprache": "ita",
    "AdrAdresse1": "Via Nassa 5",
    "AdrAnrede": 1,
    "AdrName": "Rossi",
    "OrtLand": "CH",
    "OrtName": "Lugano",
    "OrtPLZ": "6900",
}
# Every field of the record, abroad (no AdrCheck).
ABROAD = {
    "AdrSprache": "ger",
    "EmailAdress": "eva@schmid.de",
    "AdrAdresse1": "Invalidenstrasse 5",
    "AdrAdresse2": "Hinterhaus",
    "AdrAnrede": 2,
    "AdrFax": "030 789",
    "AdrFirma": "Schmid GmbH",
    "AdrFirma2": "Einkauf",
    "AdrVorname": "Eva",
    "AdrName": "Schmid",
    "AdrTelex": "0171 1234567",
    "AdrTf1": "030 123",
    "AdrTf2": "030 456",
    "OrtLand": "DE",
    "OrtName": "Berlin",
    "OrtPLZ": "10115",
}

_OUTPUT_FIELDS = (
    "AdrFirma",
    "AdrFirma2",
    "AdrVorname",
    "AdrName",
    "AdrAdresse1",
    "AdrAdresse2",
    "AdrTelex",
    "AdrTf1",
    "AdrTf2",
    "AdrFax",
    "OrtName",
    "OrtPLZ",
    "OrtLand",
    "EmailAdress",
)

# Tax codes of the catalogue: rate, PosWUSTBez, PosUSTSZiffer (PosUSTUZiffer 200 and PosVSTSZiffer 400 for all).
TAX_CODES = {
    "N81": (8.1, "Normalsatz", "303"),
    "R26": (2.6, "Reduzierter Satz", "313"),
    "B38": (3.8, "Beherbergung", "343"),
}

# The GrundDaten of an offer, in the order the specification lists them.
OFFER_HEADER_KEYS = [
    "StaoNr",
    "KundNr",
    "AuftKomment",
    "Template",
    "KundBedBez",
    "KundBedTyp",
    "AuftBestellTUTC",
    "AuftLieferTUTC",
    "AuftLiefKost",
    "AuftStatus",
    "AuftBestellRef",
    "WaehrAbk",
    "AuftWUST",
    "AuftBrutto",
    "AuftNetto",
    "AuftNr",
    "AuftBez",
    "AuftBestellNr",
]


async def build_shop(factory: Factory) -> Catalogue:
    """The known catalogue plus A-700, the one article taxed at 3.8 % (B38), 100.00 CHF in STD; A-800, offered
    in cartons of 12 only (WEBSHOPVPE hides its pieces), 24.00 per KAR; A-900, in cartons of 12 (18.00) and
    pallets of 480 (600.00), without a unit of factor 1."""
    catalogue = await build_catalogue(factory)
    lodging = await factory.article("A-700", designations={"ger": "Übernachtung", "fre": "Nuitée"}, tax_code="B38")
    await factory.price(lodging, "100.00")
    ties = await factory.article(
        "A-800",
        designations={"ger": "Kabelbinder"},
        attributes={"WEBSHOPVPE": "KAR"},
        units=[unit("STK", "1"), unit("KAR", "12")],
    )
    await factory.price(ties, "2.10", unit="STK")
    await factory.price(ties, "24.00", unit="KAR")
    nails = await factory.article("A-900", designations={"ger": "Nägel"}, units=[unit("KAR", "12"), unit("PAL", "480")])
    await factory.price(nails, "18.00", unit="KAR")
    await factory.price(nails, "600.00", unit="PAL")
    return catalogue


def address_out(number: int | None, record: Mapping[str, Any]) -> dict[str, Any]:
    """An address record as orders and offers output it; ISOLandA2 repeats OrtLand."""
    return {
        "AdrNr": number,
        **{name: record.get(name) for name in _OUTPUT_FIELDS},
        "ISOLandA2": record.get("OrtLand"),
    }


NO_ADDRESS = address_out(None, {})
NO_ADDRESSES = {"KontaktAdr": NO_ADDRESS, "LiefAdr": NO_ADDRESS, "RechAdr": NO_ADDRESS}


def addresses(contact: dict[str, Any], delivery: dict[str, Any], billing: dict[str, Any]) -> dict[str, Any]:
    return {"KontaktAdr": contact, "LiefAdr": delivery, "RechAdr": billing}


def position(
    number: int,
    article: str,
    text: str,
    quantity: float,
    unit_price: float,
    total: float,
    tax: float,
    code: str,
    *,
    unit: str | None = None,
    packaging_quantity: float | None = None,
    packaging_price: float | None = None,
    discount: float | None = None,
    display: int | None = None,
) -> dict[str, Any]:
    """A Positionen entry (all 15 fields); WUSTSatz follows from the tax code."""
    return {
        "PosNr": number,
        "VisPosNr": display,
        "ArtNr": article,
        "PosBez": text,
        "PosAnzBest": quantity,
        "PosPreisBasis": 1.0,
        "PosPreisEinzel": unit_price,
        "PosPreisTotal": total,
        "PosPreisWUSTBetrag": tax,
        "VPEAnzBest": packaging_quantity,
        "VPEPreisEinzel": packaging_price,
        "VPEinheit": unit,
        "WUSTSatz": TAX_CODES[code][0],
        "GRabSatz": discount,
        "GRabBez": None,
    }


def recap(code: str, net: float, tax: float, currency: str = "CHF") -> dict[str, Any]:
    """A MWSTRekapitulation line."""
    rate, designation, sales_tax_line = TAX_CODES[code]
    return {
        "Abschnitt": "UST-Rekap",
        "WaehrAbk": currency,
        "PosWUST": tax,
        "PosVSTSZiffer": "400",
        "PosWUSTSatz": rate,
        "PosWUSTBez": designation,
        "PosBetragNetto": net,
        "PosUSTSZiffer": sales_tax_line,
        "PosWUSTCode": code,
        "PosWUSTKlasse": "C",
        "PosUSTUZiffer": "200",
    }


async def call(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    auth: Mapping[str, str],
    payload: Any = None,
    *,
    status: int,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """Sends the request, checks the status and returns the decoded body (None when there is none)."""
    response = await client.request(method, url, json=payload, headers={**auth, **(headers or {})})
    assert response.status_code == status, (response.status_code, response.content)
    return body(response) if response.content else None


async def new_customer(
    client: httpx.AsyncClient,
    auth: Mapping[str, str],
    contact: Mapping[str, Any],
    delivery: Mapping[str, Any] | None = None,
    billing: Mapping[str, Any] | None = None,
) -> str:
    """A customer with addresses, made through POST /www/kunden; returns its DebiNr."""
    roles = {"KontaktAdr": contact, "LiefAdr": delivery, "RechAdr": billing}
    payload = {
        "GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "L"},
        "Adressen": {role: record for role, record in roles.items() if record is not None},
    }
    created = await call(client, "POST", "/www/kunden", auth, payload, status=201)
    number: str = created["data"]["DebiNr"]
    return number


async def set_customer(db: Database, number: str, **values: Any) -> None:
    """Sets customer columns the REST interface does not take (payment condition, tax code, KTNr)."""
    async with db.writer() as session, session.begin():
        await session.execute(update(Customer).where(Customer.number == number).values(**values))


async def row_counts(db: Database) -> dict[str, int]:
    """Rows of everything an offer or order writes."""
    counts = {}
    async with db.reader() as session:
        for model in (SalesDocument, DocumentPosition, DocumentPayment, Address, IdempotentRequest):
            counts[model.__tablename__] = await session.scalar(select(func.count()).select_from(model)) or 0
    return counts
