"""POST /www/auftrag and GET /www/auftrag/{AuftNr}: the whole order, pricing end to end, refusals that
write nothing, the duplicate guard, Idempotency-Key, and the customer's order list.

Every amount below is worked out by hand in a comment: positions are rounded to cents (half up), unit
prices to four places, tax per position; AuftNetto (the positions' net totals) and AuftWUST (the
recapitulation's tax) are exact to the cent, and AuftBrutto, the amount payable, is AuftNetto + AuftWUST
rounded to the currency's step (CHF 0.05, EUR 0.01).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from datasources.database import Database
from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import error
from tests.sales_data import (
    ABROAD,
    BASE,
    CONTACT_FRE,
    CONTACT_GER,
    DELIVERY_FRE,
    NO_ADDRESSES,
    address_out,
    addresses,
    build_shop,
    call,
    new_customer,
    position,
    recap,
    row_counts,
)


@pytest.fixture
async def shop(factory: Factory) -> Catalogue:
    return await build_shop(factory)


def order(*positions: dict[str, Any], customer: str | None = "100002", **header: Any) -> dict[str, Any]:
    grund: dict[str, Any] = {"KundNr": customer} if customer is not None else {}
    return {"GrundDaten": {**grund, **header}, "Positionen": list(positions)}


async def place(client: httpx.AsyncClient, auth: dict[str, str], payload: Any, status: int = 201) -> str:
    created = await call(client, "POST", "/www/auftrag", auth, payload, status=status)
    assert set(created) == {"data"}
    number: str = created["data"]["AuftNr"]
    return number


async def read(client: httpx.AsyncClient, auth: dict[str, str], number: str) -> Any:
    return (await call(client, "GET", f"/www/auftrag/{number}", auth, status=200))["data"]


def totals_of(data: Any) -> tuple[float, float, float]:
    header = data["GrundDaten"]
    return header["AuftNetto"], header["AuftWUST"], header["AuftBrutto"]


# --- the whole order ----------------------------------------------------------------------------------


async def test_create_answers_201_and_the_order_reads_back_whole(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    customer = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)  # contact 1 (also billing), delivery 2
    assert customer == "100004"
    payload = {
        "GrundDaten": {
            "KundNr": customer,
            "AuftBez": "Webshop-Bestellung 1001",
            "AuftBestellNr": "WS-1001",
            "AuftBestellRef": "Référence Léa",
            "AuftBestellT": "2026-11-20T10:15:00",
            "AuftLieferT": "2026-11-27T08:00:00+01:00",
            "WaehrAbk": "CHF",
            "AuftKomment": "Bitte läuten",
            "KTNr": "KT1",
            "StaoNr": 1,
            "KundBedTyp": 1,
            "AuftLiefKost": 9.5,
        },
        "Zahlung": [{"Bezeichnung": "Dienstleister", "Wert": "Datatrans"}, {"Bezeichnung": "TransID", "Wert": "T-77"}],
        "Positionen": [
            {"ArtNr": "A-100", "Menge": 10, "VisPosNr": 10},
            {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR", "PosBez": "Schrauben 4x40", "VisPosNr": 20},
            {"ArtNr": "A-700", "Menge": 1, "VisPosNr": 30},
        ],
    }
    assert await call(client, "POST", "/www/auftrag", auth, payload, status=201) == {"data": {"AuftNr": "500001"}}

    contact, delivery = address_out(1, CONTACT_FRE), address_out(2, DELIVERY_FRE)
    assert await call(client, "GET", "/www/auftrag/500001", auth, status=200) == {
        "data": {
            "GrundDaten": {
                "AuftNr": "500001",
                "KundNr": "100004",
                "AuftBez": "Webshop-Bestellung 1001",
                "AuftBestellNr": "WS-1001",
                "AuftBestellRef": "Référence Léa",
                "AuftBestellTUTC": "2026-11-20T09:15:00Z",  # no zone: Zurich, CET = UTC+1
                "AuftLieferTUTC": "2026-11-27T07:00:00Z",
                "WaehrAbk": "CHF",
                "AuftKomment": "Bitte läuten",
                "KundBedTyp": 1,
                "AuftLiefKost": 9.5,
                "StaoNr": 1,
                "AuftStatus": "N",
                # net 110.00 + 44.00 + 100.00 = 254.00; tax 2.86 + 3.56 + 3.80 = 10.22;
                # payable 254.00 + 10.22 = 264.22 -> 264.20 (step 0.05)
                "AuftNetto": 254.0,
                "AuftWUST": 10.22,
                "AuftBrutto": 264.2,
            },
            "Adressen": addresses(contact, delivery, contact),
            "Positionen": [
                # 10 hammers: tier 10 = 11.00; 10 * 11.00 = 110.00; tax 110.00 * 2.6 % = 2.86. PosBez in French
                position(1, "A-100", "Marteau", 10.0, 11.0, 110.0, 2.86, "R26", display=10),
                # 24 screws in KAR (12): 2 KAR * 22.00 = 44.00; per piece 22.00 / 12 = 1.8333;
                # tax 44.00 * 8.1 % = 3.564 -> 3.56
                position(
                    2,
                    "A-200",
                    "Schrauben 4x40",
                    24.0,
                    1.8333,
                    44.0,
                    3.56,
                    "N81",
                    unit="KAR",
                    packaging_quantity=2.0,
                    packaging_price=22.0,
                    display=20,
                ),
                # 1 * 100.00; tax 100.00 * 3.8 % = 3.80
                position(3, "A-700", "Nuitée", 1.0, 100.0, 100.0, 3.8, "B38", display=30),
            ],
            # highest rate first: 8.1, 3.8, 2.6
            "MWSTRekapitulation": [recap("N81", 44.0, 3.56), recap("B38", 100.0, 3.8), recap("R26", 110.0, 2.86)],
            "Zahlung": [
                {"Bezeichnung": "Dienstleister", "Wert": "Datatrans", "Key": "Z1"},
                {"Bezeichnung": "TransID", "Wert": "T-77", "Key": "Z2"},
            ],
        }
    }


async def test_unknown_order_is_404(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    assert await call(client, "GET", "/www/auftrag/500001", auth, status=404) == error(
        "not_found", "no such order", AuftNr="500001"
    )


async def test_order_dates_are_stored_in_utc(client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]) -> None:
    cases = [
        ("2026-11-20T10:15:00", "2026-11-20T09:15:00Z"),  # no zone: Europe/Zurich, winter (UTC+1)
        ("2026-07-01T10:15:00", "2026-07-01T08:15:00Z"),  # no zone: Europe/Zurich, summer (UTC+2)
        ("2026-11-20T10:15:00Z", "2026-11-20T10:15:00Z"),
        ("2026-11-20T10:15:00+02:00", "2026-11-20T08:15:00Z"),
        ("2026-11-20", "2026-11-19T23:00:00Z"),  # a date alone: midnight in Zurich
        # Any year from 1 to 9999 whose UTC time stays in those years; always written with four digits.
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("0999-06-15T12:00:00+02:00", "0999-06-15T10:00:00Z"),
        ("9999-12-31T23:59:59", "9999-12-31T22:59:59Z"),
    ]
    for sent, stored in cases:
        number = await place(client, auth, order({"ArtNr": "A-100", "Menge": 1}, AuftBestellT=sent, AuftLieferT=sent))
        header = (await read(client, auth, number))["GrundDaten"]
        assert (header["AuftBestellTUTC"], header["AuftLieferTUTC"]) == (stored, stored), sent


# --- pricing ------------------------------------------------------------------------------------------


async def test_the_tier_follows_the_quantity(client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]) -> None:
    quantities = [{"ArtNr": "A-100", "Menge": menge} for menge in (9, 10, 49, 50)]
    number = await place(client, auth, order(*quantities))
    assert number == "500001"
    assert await read(client, auth, number) == {
        "GrundDaten": {
            "AuftNr": "500001",
            "KundNr": "100002",
            "AuftBez": None,
            "AuftBestellNr": None,
            "AuftBestellRef": None,
            "AuftBestellTUTC": None,
            "AuftLieferTUTC": None,
            "WaehrAbk": "CHF",  # the leading currency
            "AuftKomment": None,
            "KundBedTyp": None,
            "AuftLiefKost": None,
            "StaoNr": None,
            "AuftStatus": "N",
            # net 112.50 + 110.00 + 539.00 + 495.00 = 1256.50; tax 2.93 + 2.86 + 14.01 + 12.87 = 32.67
            # payable 1256.50 + 32.67 = 1289.17 -> 1289.15
            "AuftNetto": 1256.5,
            "AuftWUST": 32.67,
            "AuftBrutto": 1289.15,
        },
        "Adressen": NO_ADDRESSES,  # the customer has no addresses: three empty records
        "Positionen": [
            position(1, "A-100", "Hammer", 9.0, 12.5, 112.5, 2.93, "R26"),  # 9 * 12.50; 2.925 -> 2.93
            position(2, "A-100", "Hammer", 10.0, 11.0, 110.0, 2.86, "R26"),  # 10 * 11.00; 2.86
            position(3, "A-100", "Hammer", 49.0, 11.0, 539.0, 14.01, "R26"),  # 49 * 11.00; 14.014 -> 14.01
            position(4, "A-100", "Hammer", 50.0, 9.9, 495.0, 12.87, "R26"),  # 50 * 9.90; 12.87
        ],
        "MWSTRekapitulation": [recap("R26", 1256.5, 32.67)],
        "Zahlung": [],
    }


async def test_a_position_is_priced_from_the_ladder_without_a_price_range(
    client: httpx.AsyncClient, factory: Factory, shop: Catalogue, auth: dict[str, str]
) -> None:
    # Ranges (Bereich) are separate ladders. A-300 gets one without a range and two with one, A-310 a single
    # ranged ladder, A-320 two ranged ladders and none without.
    await factory.price(shop.pliers, "8.00")
    await factory.price(shop.pliers, "7.00", min_quantity="10")
    for price_range, amount in (("AKTION", "5.00"), ("A", "4.00")):
        await factory.price(shop.pliers, amount, price_range=price_range)
    stapler = await factory.article("A-310", designations={"ger": "Tacker"})
    await factory.price(stapler, "30.00", price_range="STANDARD")
    await factory.price(stapler, "25.00", price_range="STANDARD", min_quantity="5")
    level = await factory.article("A-320", designations={"ger": "Wasserwaage"})
    await factory.price(level, "40.00", price_range="B")
    await factory.price(level, "35.00", price_range="A")

    number = await place(
        client,
        auth,
        order(
            {"ArtNr": "A-300", "Menge": 9},
            {"ArtNr": "A-300", "Menge": 10},
            {"ArtNr": "A-310", "Menge": 1},
            {"ArtNr": "A-310", "Menge": 5},
        ),
    )
    positions = (await read(client, auth, number))["Positionen"]
    assert [(p["ArtNr"], p["PosPreisEinzel"]) for p in positions] == [
        ("A-300", 8.0),  # the ladder without a range, not AKTION's 5.00 nor A's 4.00
        ("A-300", 7.0),
        ("A-310", 30.0),  # its only ladder, whatever its range
        ("A-310", 25.0),
    ]
    refused = await call(client, "POST", "/www/auftrag", auth, order({"ArtNr": "A-320", "Menge": 1}), status=422)
    assert refused == error(
        "unprocessable",
        "article A-320 has prices per base unit in the price ranges (Bereich) A, B and none without a range: "
        "which one applies is not known",
        field="Positionen.0.ArtNr",
        position=1,
        ArtNr="A-320",
        Bereich=["A", "B"],
    )
    # Given a Preis, an order needs no ladder.
    await place(client, auth, order({"ArtNr": "A-320", "Menge": 1, "Preis": 36}))


async def test_packaging_units_are_priced_per_unit(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    number = await place(
        client,
        auth,
        order(
            {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"},
            {"ArtNr": "A-200", "Menge": 60, "VPEinheit": "kar"},
            {"ArtNr": "A-200", "Menge": 7},
            {"ArtNr": "A-200", "Menge": 36, "VPEinheit": "KAR", "Preis": 1.5},
        ),
    )
    data = await read(client, auth, number)
    assert data["Positionen"] == [
        # 24 / 12 = 2 KAR at 22.00 = 44.00; 22.00 / 12 = 1.8333; tax 3.564 -> 3.56
        position(1, "A-200", "Schrauben", 24.0, 1.8333, 44.0, 3.56, "N81", **kar(2.0, 22.0)),
        # 60 / 12 = 5 KAR: the tier from 5 KAR, 20.00; 100.00; 20.00 / 12 = 1.66666 -> 1.6667; tax 8.10
        position(2, "A-200", "Schrauben", 60.0, 1.6667, 100.0, 8.1, "N81", **kar(5.0, 20.0)),
        # no VPEinheit: the factor-1 unit STK at 2.00; 7 * 2.00 = 14.00; tax 1.134 -> 1.13
        position(3, "A-200", "Schrauben", 7.0, 2.0, 14.0, 1.13, "N81", unit="STK", **pieces(7.0, 2.0)),
        # Preis is net per piece: 1.50 * 12 = 18.00 per KAR; 3 KAR = 54.00; tax 4.374 -> 4.37
        position(4, "A-200", "Schrauben", 36.0, 1.5, 54.0, 4.37, "N81", **kar(3.0, 18.0)),
    ]
    # net 44.00 + 100.00 + 14.00 + 54.00 = 212.00; tax 3.56 + 8.10 + 1.13 + 4.37 = 17.16;
    # payable 229.16 -> 229.15
    assert totals_of(data) == (212.0, 17.16, 229.15)
    assert data["MWSTRekapitulation"] == [recap("N81", 212.0, 17.16)]


async def test_an_article_in_one_packaging_unit_is_counted_in_it(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    number = await place(
        client,
        auth,
        order({"ArtNr": "A-800", "Menge": 36}, {"ArtNr": "A-900", "Menge": 480, "VPEinheit": "PAL"}),
    )
    data = await read(client, auth, number)
    assert data["Positionen"] == [
        # no VPEinheit: KAR, the only unit A-800 offers; 36 / 12 = 3 KAR * 24.00 = 72.00; 24.00 / 12 = 2.00;
        # tax 5.832 -> 5.83
        position(1, "A-800", "Kabelbinder", 36.0, 2.0, 72.0, 5.83, "N81", **kar(3.0, 24.0)),
        # 1 PAL at 600.00; 600.00 / 480 = 1.25; tax 48.60
        position(2, "A-900", "Nägel", 480.0, 1.25, 600.0, 48.6, "N81", unit="PAL", **pieces(1.0, 600.0)),
    ]
    # net 672.00; tax 54.43; payable 726.43 -> 726.45
    assert totals_of(data) == (672.0, 54.43, 726.45)


def kar(count: float, price: float) -> dict[str, Any]:
    return {"unit": "KAR", "packaging_quantity": count, "packaging_price": price}


def pieces(count: float, price: float) -> dict[str, Any]:
    return {"packaging_quantity": count, "packaging_price": price}


async def test_a_given_price_and_the_discount(client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]) -> None:
    number = await place(
        client,
        auth,
        order(
            {"ArtNr": "A-100", "Menge": 3, "Preis": 7.35},
            {"ArtNr": "A-100", "Menge": 10, "GRabSatz": 10},
            {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR", "Preis": 1.75, "GRabSatz": 25},
            {"ArtNr": "A-300", "Menge": 2, "Preis": 4.2, "PosBez": "Zange, isoliert"},
        ),
    )
    data = await read(client, auth, number)
    assert data["Positionen"] == [
        # 3 * 7.35 = 22.05; tax 0.5733 -> 0.57
        position(1, "A-100", "Hammer", 3.0, 7.35, 22.05, 0.57, "R26"),
        # 10 * 11.00 * 0.90 = 99.00; tax 2.574 -> 2.57; the unit price is before the discount
        position(2, "A-100", "Hammer", 10.0, 11.0, 99.0, 2.57, "R26", discount=10.0),
        # 1.75 * 12 = 21.00 per KAR; 2 * 21.00 * 0.75 = 31.50; tax 2.5515 -> 2.55
        position(3, "A-200", "Schrauben", 24.0, 1.75, 31.5, 2.55, "N81", discount=25.0, **kar(2.0, 21.0)),
        # an article without any price is sold at the given one: 2 * 4.20 = 8.40; tax 0.6804 -> 0.68
        position(4, "A-300", "Zange, isoliert", 2.0, 4.2, 8.4, 0.68, "N81"),
    ]
    # net 22.05 + 99.00 + 31.50 + 8.40 = 160.95; tax 0.57 + 2.57 + 2.55 + 0.68 = 6.37; payable 167.32 -> 167.30
    assert totals_of(data) == (160.95, 6.37, 167.3)
    # N81: 31.50 + 8.40 = 39.90, 2.55 + 0.68 = 3.23; R26: 22.05 + 99.00 = 121.05, 0.57 + 2.57 = 3.14
    assert data["MWSTRekapitulation"] == [recap("N81", 39.9, 3.23), recap("R26", 121.05, 3.14)]


async def test_the_customer_price_list_is_never_mixed_with_the_default(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    number = await place(
        client,
        auth,
        order(
            {"ArtNr": "A-100", "Menge": 50},
            {"ArtNr": "A-100", "Menge": 1},
            {"ArtNr": "A-500", "Menge": 1},
            {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"},
            customer="100001",
        ),
    )
    data = await read(client, auth, number)
    assert data["Positionen"] == [
        # WV has one hammer price, 10.00: no STD tier (9.90 from 50) mixes in; 500.00, tax 13.00
        position(1, "A-100", "Marteau", 50.0, 10.0, 500.0, 13.0, "R26"),
        position(2, "A-100", "Marteau", 1.0, 10.0, 10.0, 0.26, "R26"),  # tax 0.26
        position(3, "A-500", "Foret", 1.0, 30.0, 30.0, 2.43, "N81"),  # WV 30.00; tax 2.43
        # WV has no screw price: the default list STD, 22.00 per KAR; 44.00, tax 3.56
        position(4, "A-200", "Vis", 24.0, 1.8333, 44.0, 3.56, "N81", **kar(2.0, 22.0)),
    ]
    # net 500 + 10 + 30 + 44 = 584.00; tax 13.00 + 0.26 + 2.43 + 3.56 = 19.25; payable 603.25 (nothing to round)
    assert totals_of(data) == (584.0, 19.25, 603.25)
    # N81: 30 + 44 = 74.00, 2.43 + 3.56 = 5.99; R26: 510.00, 13.26
    assert data["MWSTRekapitulation"] == [recap("N81", 74.0, 5.99), recap("R26", 510.0, 13.26)]


async def test_a_gross_price_list_is_split_into_net_and_tax(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    one = await read(client, auth, await place(client, auth, order({"ArtNr": "A-500", "Menge": 1}, customer="100003")))
    # BRUTTO 39.90 incl. 8.1 %: net 39.90 / 1.081 = 36.9103 -> 36.91; tax 39.90 - 36.91 = 2.99
    assert one["Positionen"] == [position(1, "A-500", "Bohrer", 1.0, 36.9103, 36.91, 2.99, "N81")]
    assert one["MWSTRekapitulation"] == [recap("N81", 36.91, 2.99)]
    # net 36.91, tax 2.99: payable 39.90, the gross price exactly
    assert totals_of(one) == (36.91, 2.99, 39.9)

    three = await read(
        client, auth, await place(client, auth, order({"ArtNr": "A-500", "Menge": 3}, customer="100003"))
    )
    # 3 * 39.90 = 119.70 gross; net 119.70 / 1.081 = 110.7308 -> 110.73; tax 119.70 - 110.73 = 8.97
    assert three["Positionen"] == [position(1, "A-500", "Bohrer", 3.0, 36.9103, 110.73, 8.97, "N81")]
    # 110.73 + 8.97 = 119.70
    assert totals_of(three) == (110.73, 8.97, 119.7)


async def test_an_eur_order_rounds_to_cents(client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]) -> None:
    number = await place(
        client,
        auth,
        order({"ArtNr": "A-100", "Menge": 3}, {"ArtNr": "A-200", "Menge": 7, "Preis": 0.37}, WaehrAbk="EUR"),
    )
    data = await read(client, auth, number)
    assert data["GrundDaten"]["WaehrAbk"] == "EUR"
    assert data["Positionen"] == [
        position(1, "A-100", "Hammer", 3.0, 13.0, 39.0, 1.01, "R26"),  # EUR 13.00 * 3 = 39.00; 1.014 -> 1.01
        # 7 * 0.37 = 2.59; tax 0.20979 -> 0.21
        position(2, "A-200", "Schrauben", 7.0, 0.37, 2.59, 0.21, "N81", unit="STK", **pieces(7.0, 0.37)),
    ]
    # net 39.00 + 2.59 = 41.59; tax 1.01 + 0.21 = 1.22; payable 42.81 (step 0.01: nothing to round)
    assert totals_of(data) == (41.59, 1.22, 42.81)
    assert data["MWSTRekapitulation"] == [recap("N81", 2.59, 0.21, "EUR"), recap("R26", 39.0, 1.01, "EUR")]


async def test_the_chf_amount_payable_is_rounded_to_five_rappen(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    number = await place(
        client, auth, order({"ArtNr": "A-100", "Menge": 1}, {"ArtNr": "A-300", "Menge": 1, "Preis": 1.07})
    )
    data = await read(client, auth, number)
    assert data["Positionen"] == [
        position(1, "A-100", "Hammer", 1.0, 12.5, 12.5, 0.33, "R26"),  # tax 0.325 -> 0.33
        position(2, "A-300", "Zange", 1.0, 1.07, 1.07, 0.09, "N81"),  # tax 0.08667 -> 0.09
    ]
    # the recapitulation keeps the cents: R26 12.50 / 0.33, N81 1.07 / 0.09
    assert data["MWSTRekapitulation"] == [recap("N81", 1.07, 0.09), recap("R26", 12.5, 0.33)]
    # net 12.50 + 1.07 = 13.57 and tax 0.33 + 0.09 = 0.42, as the positions and the recapitulation say;
    # payable 13.57 + 0.42 = 13.99 -> 14.00 (half a step of 0.05 or more rounds up)
    assert totals_of(data) == (13.57, 0.42, 14.0)


# --- addresses ----------------------------------------------------------------------------------------


async def test_address_overrides_apply_to_that_order_only(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    customer = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)  # AdrNr 1 (contact, billing), 2
    overrides = {"LiefAdr": ABROAD, "RechAdr": CONTACT_GER | {"OrtName": "zurich"}}
    first = await place(
        client, auth, order({"ArtNr": "A-100", "Menge": 1}, customer=customer) | {"Adressen": overrides}
    )
    # New records for the order (AdrNr 3 and 4); the billing place is checked and corrected like any address.
    assert (await read(client, auth, first))["Adressen"] == addresses(
        address_out(1, CONTACT_FRE), address_out(3, ABROAD), address_out(4, CONTACT_GER)
    )
    # The customer keeps its own addresses ...
    delivery = await call(client, "GET", "/www/adressen/2", auth, status=200)
    assert (delivery["data"]["AdrName"], delivery["data"]["OrtName"]) == ("Rochat", "Lausanne")
    kunde = (await call(client, "GET", f"/www/kunden/{customer}", auth, status=200))["data"]
    assert (kunde["KundKontakt"], kunde["KundLief"], kunde["KundRech"]) == (1, 2, 1)
    # ... and its next order has them again.
    second = await place(client, auth, order({"ArtNr": "A-100", "Menge": 1}, customer=customer))
    assert (await read(client, auth, second))["Adressen"] == addresses(
        address_out(1, CONTACT_FRE), address_out(2, DELIVERY_FRE), address_out(1, CONTACT_FRE)
    )


# --- refusals -----------------------------------------------------------------------------------------

HAMMER = {"ArtNr": "A-100", "Menge": 1}


def unprocessable(description: str, position: int, field: str) -> dict[str, Any]:
    return error("unprocessable", description, position=position, field=field)


def invalid(description: str, field: str) -> dict[str, Any]:
    return error("invalid_request", description, field=field)


def no_price(article: str, per: str = "base unit", currency: str = "CHF") -> str:
    return f"article {article} has no price per {per} in {currency} in the default price list STD"


def out_of_range(sent: str) -> str:
    return f"{sent!r} is out of range: in UTC it must fall within the years 1 to 9999"


REFUSALS: list[tuple[dict[str, Any], int, dict[str, Any]]] = [
    (
        order(HAMMER, customer="999999"),
        404,
        error("not_found", "customer '999999' does not exist", field="GrundDaten.KundNr"),
    ),
    (
        order(HAMMER, {"ArtNr": "A-999", "Menge": 1}),
        422,
        unprocessable("article 'A-999' does not exist or is not offered", 2, "Positionen.1.ArtNr"),
    ),
    (
        order({"ArtNr": "A-400", "Menge": 1}),
        422,
        unprocessable("article 'A-400' does not exist or is not offered", 1, "Positionen.0.ArtNr"),
    ),
    (
        order({"ArtNr": "A-200", "Menge": 480, "VPEinheit": "PAL"}),
        422,
        unprocessable("packaging unit 'PAL' is not offered for A-200", 1, "Positionen.0.VPEinheit"),
    ),
    (
        order({"ArtNr": "A-200", "Menge": 25, "VPEinheit": "KAR"}),
        422,
        unprocessable("the quantity must be a multiple of 12 (KAR)", 1, "Positionen.0.Menge"),
    ),
    (
        order({"ArtNr": "A-200", "Menge": 2.5}),
        422,
        unprocessable("the quantity must be a multiple of 1 (STK)", 1, "Positionen.0.Menge"),
    ),
    (order({"ArtNr": "A-300", "Menge": 1}), 422, unprocessable(no_price("A-300"), 1, "Positionen.0.ArtNr")),
    # the drill has WV and BRUTTO prices only; 100002 uses the default list STD
    (order({"ArtNr": "A-500", "Menge": 1}), 422, unprocessable(no_price("A-500"), 1, "Positionen.0.ArtNr")),
    # the dowel has a price per STK only, none per BTL
    (
        order({"ArtNr": "A-600", "Menge": 200, "VPEinheit": "BTL"}),
        422,
        unprocessable(no_price("A-600", "BTL"), 1, "Positionen.0.ArtNr"),
    ),
    # the screws have no EUR price per STK, the unit of factor 1 they are counted in without VPEinheit
    (
        order({"ArtNr": "A-200", "Menge": 7}, WaehrAbk="EUR"),
        422,
        unprocessable(no_price("A-200", "STK", "EUR"), 1, "Positionen.0.ArtNr"),
    ),
    # 100001 buys from WV, which has no pliers either
    (
        order({"ArtNr": "A-300", "Menge": 1}, customer="100001"),
        422,
        unprocessable(
            "article A-300 has no price per base unit in CHF neither in the customer's price list WV "
            "nor in the default price list STD",
            1,
            "Positionen.0.ArtNr",
        ),
    ),
    # A-800 is offered in KAR only: without VPEinheit it is counted in KAR, so whole cartons
    (
        order({"ArtNr": "A-800", "Menge": 30}),
        422,
        unprocessable(
            "the quantity must be a multiple of 12 (KAR), the only packaging unit A-800 is offered in",
            1,
            "Positionen.0.Menge",
        ),
    ),
    (
        order({"ArtNr": "A-800", "Menge": 12, "VPEinheit": "STK"}),
        422,
        unprocessable("packaging unit 'STK' is not offered for A-800", 1, "Positionen.0.VPEinheit"),
    ),
    # A-900 has two units and none of factor 1: the client must choose
    (
        order({"ArtNr": "A-900", "Menge": 480}),
        422,
        unprocessable(
            "a packaging unit (VPEinheit) is required: A-900 is offered in KAR (12), PAL (480)",
            1,
            "Positionen.0.VPEinheit",
        ),
    ),
    (order({"ArtNr": "A-100", "Menge": "zwei"}), 400, invalid("must be a number", "Positionen.0.Menge")),
    (order(HAMMER, AuftBez="x" * 81), 400, invalid("must have at most 80 characters", "GrundDaten.AuftBez")),
    (order(), 400, invalid("at least one position is required", "Positionen")),
    ({"GrundDaten": {"KundNr": "100002"}}, 400, invalid("at least one position is required", "Positionen")),
    ({"GrundDaten": {"KundNr": "100002"}, "Positionen": {}}, 400, invalid("must be a list", "Positionen")),
    (order({"Menge": 1}), 400, invalid("is required", "Positionen.0.ArtNr")),
    (order({"ArtNr": "A-100"}), 400, invalid("is required", "Positionen.0.Menge")),
    (order(HAMMER, customer=None), 400, invalid("is required", "GrundDaten.KundNr")),
    (
        order(HAMMER, AuftBestellT="20.11.2026"),
        400,
        invalid("'20.11.2026' is not an ISO 8601 date", "GrundDaten.AuftBestellT"),
    ),
    (
        order(HAMMER, AuftLieferT="2026-13-01"),
        400,
        invalid("'2026-13-01' is not an ISO 8601 date", "GrundDaten.AuftLieferT"),
    ),
    # In UTC these would be in the year 10000 and the year 0.
    (
        order(HAMMER, AuftBestellT="9999-12-31T23:59:59-14:00"),
        400,
        invalid(out_of_range("9999-12-31T23:59:59-14:00"), "GrundDaten.AuftBestellT"),
    ),
    (
        order(HAMMER, AuftLieferT="0001-01-01T00:00:00+14:00"),
        400,
        invalid(out_of_range("0001-01-01T00:00:00+14:00"), "GrundDaten.AuftLieferT"),
    ),
    (order(HAMMER, WaehrAbk="USD"), 400, invalid("USD is not a currency of the ERP", "GrundDaten.WaehrAbk")),
    (order(HAMMER) | {"Zahlung": [{"Wert": "1"}]}, 400, invalid("is required", "Zahlung.0.Bezeichnung")),
    # an address override and payments with a bad position: neither may be left behind
    (
        order(HAMMER, {"ArtNr": "A-999", "Menge": 1})
        | {"Adressen": {"LiefAdr": ABROAD}, "Zahlung": [{"Bezeichnung": "TransID", "Wert": "T-1"}]},
        422,
        unprocessable("article 'A-999' does not exist or is not offered", 2, "Positionen.1.ArtNr"),
    ),
]


async def test_refusals_write_nothing(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    empty = await row_counts(db)
    assert empty == {
        "sales_document": 0,
        "document_position": 0,
        "document_payment": 0,
        "address": 0,
        "idempotent_request": 0,
    }
    key = {"Idempotency-Key": "retry-1"}
    for payload, status, expected in REFUSALS:
        assert await call(client, "POST", "/www/auftrag", auth, payload, status=status, headers=key) == expected
        assert await row_counts(db) == empty, payload
    # Impossible amounts: 422 naming the field (their missing info.position is test_impossible_amounts_...).
    for name, value in (("Menge", 0), ("Menge", -2), ("GRabSatz", 101), ("GRabSatz", -1), ("Preis", -1)):
        payload = order(HAMMER, {**HAMMER, name: value})
        answer = await call(client, "POST", "/www/auftrag", auth, payload, status=422, headers=key)
        assert (answer["error"], answer["info"]["field"]) == ("unprocessable", f"Positionen.1.{name}")
        assert await row_counts(db) == empty, payload
    # Nothing was numbered or kept, not even the Idempotency-Key: the first good order is 500001.
    good = order(HAMMER) | {"Adressen": {"LiefAdr": ABROAD}, "Zahlung": [{"Bezeichnung": "TransID", "Wert": "T-1"}]}
    assert await call(client, "POST", "/www/auftrag", auth, good, status=201, headers=key) == {
        "data": {"AuftNr": "500001"}
    }
    assert await row_counts(db) == {
        "sales_document": 1,
        "document_position": 1,
        "document_payment": 1,
        "address": 1,
        "idempotent_request": 1,
    }


async def test_impossible_amounts_name_their_position(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    cases = [
        ("Menge", 0, "the quantity must be above 0"),
        ("Menge", -2, "the quantity must be above 0"),
        ("GRabSatz", 101, "the discount must be from 0 to 100 percent"),
        ("GRabSatz", -1, "the discount must be from 0 to 100 percent"),
        ("Preis", -1, "a price cannot be negative"),
    ]
    answers, expected = [], []
    for name, value, description in cases:
        response = await client.post("/www/auftrag", json=order(HAMMER, {**HAMMER, name: value}), headers=auth)
        answers.append((response.status_code, response.json()))
        expected.append((422, unprocessable(description, 2, f"Positionen.1.{name}")))
    assert answers == expected


async def test_an_address_override_error_names_the_rest_field(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    delivery = {name: value for name, value in DELIVERY_FRE.items() if name != "OrtPLZ"}
    payload = order(HAMMER) | {"Adressen": {"LiefAdr": delivery}}
    assert await call(client, "POST", "/www/auftrag", auth, payload, status=400) == invalid(
        "is required", "Adressen.LiefAdr.OrtPLZ"
    )


async def test_a_quantity_too_large_to_store_is_refused(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    # 2,000,000,000 * 9.90 = 19,800,000,000.00: eleven digits before the point, the columns hold ten
    response = await client.post("/www/auftrag", json=order({"ArtNr": "A-100", "Menge": 2e9}), headers=auth)
    assert response.status_code in (400, 422)
    assert response.json()["info"]["field"] == "Positionen.0.Menge"


# --- the same order twice -----------------------------------------------------------------------------


async def test_the_same_external_number_returns_the_existing_order(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    assert await place(client, auth, order(HAMMER, AuftBestellNr="WS-1")) == "500001"
    # The same request again (1.0 is 1): the existing order, 200.
    again = order({"ArtNr": "A-100", "Menge": 1.0}, AuftBestellNr="WS-1")
    assert await call(client, "POST", "/www/auftrag", auth, again, status=200) == {"data": {"AuftNr": "500001"}}
    # The same AuftBestellNr with other positions: a conflict naming the order, and nothing written.
    other = order({"ArtNr": "A-100", "Menge": 5}, AuftBestellNr="WS-1")
    conflict = error(
        "conflict",
        "the customer's order 500001 has AuftBestellNr 'WS-1' already; this request differs from the one "
        "that placed it",
        AuftNr="500001",
        field="GrundDaten.AuftBestellNr",
    )
    assert await call(client, "POST", "/www/auftrag", auth, other, status=409) == conflict
    # With an Idempotency-Key too: the key is not kept for the refused request.
    headers = {"Idempotency-Key": "ws-1-retry"}
    assert await call(client, "POST", "/www/auftrag", auth, other, status=409, headers=headers) == conflict
    assert (await row_counts(db))["idempotent_request"] == 0
    # Another customer's AuftBestellNr is its own.
    assert await place(client, auth, order(HAMMER, customer="100001", AuftBestellNr="WS-1")) == "500002"
    # Sent four times at once: one order.
    concurrent = order(HAMMER, AuftBestellNr="WS-2")
    responses = await asyncio.gather(*(client.post("/www/auftrag", json=concurrent, headers=auth) for _ in range(4)))
    assert sorted(r.status_code for r in responses) == [200, 200, 200, 201]
    assert {r.json()["data"]["AuftNr"] for r in responses} == {"500003"}
    assert (await row_counts(db))["sales_document"] == 3
    assert (await read(client, auth, "500001"))["Positionen"][0]["PosAnzBest"] == 1.0


async def test_an_idempotency_key_replays_the_first_answer(
    client: httpx.AsyncClient,
    shop: Catalogue,
    auth: dict[str, str],
    token_for: Callable[..., dict[str, str]],
    db: Database,
) -> None:
    key = {"Idempotency-Key": "order-7f3a"}
    first = order(HAMMER)
    for _ in range(2):
        created = await call(client, "POST", "/www/auftrag", auth, first, status=201, headers=key)
        assert created == {"data": {"AuftNr": "500001"}}
    other = order({"ArtNr": "A-100", "Menge": 2})
    assert await call(client, "POST", "/www/auftrag", auth, other, status=409, headers=key) == error(
        "conflict", "this Idempotency-Key was used for another request", AuftNr="500001", field="Idempotency-Key"
    )
    # Keys belong to the API user: another user's equal key is a new request.
    someone = token_for("shop", name="other-shop")
    assert await call(client, "POST", "/www/auftrag", someone, first, status=201, headers=key) == {
        "data": {"AuftNr": "500002"}
    }
    too_long = {"Idempotency-Key": "k" * 256}
    assert await call(client, "POST", "/www/auftrag", auth, first, status=400, headers=too_long) == invalid(
        "an Idempotency-Key has at most 255 characters", "Idempotency-Key"
    )
    counts = await row_counts(db)
    assert (counts["sales_document"], counts["idempotent_request"]) == (2, 2)


async def test_concurrent_requests_with_one_idempotency_key_place_one_order(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    headers = {**auth, "Idempotency-Key": "order-concurrent"}
    responses = await asyncio.gather(
        *(client.post("/www/auftrag", json=order(HAMMER), headers=headers) for _ in range(4))
    )
    assert [r.status_code for r in responses] == [201] * 4
    assert {r.json()["data"]["AuftNr"] for r in responses} == {"500001"}
    assert (await row_counts(db))["sales_document"] == 1


# --- the customer's orders ----------------------------------------------------------------------------

_AUFT_ERF = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


async def test_the_customer_lists_its_last_orders_newest_first(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    for customer in ("100002", "100002", "100001", "100002"):  # 500001, 500002, 500003 (100001), 500004
        await place(client, auth, order(HAMMER, customer=customer))
    after = dt.datetime.now(dt.UTC)

    async def listed(query: str) -> list[Any]:
        data = (await call(client, "GET", f"/www/kunden/100002{query}", auth, status=200))["data"]
        entries: list[Any] = data["Auftrag"]
        for entry in entries:
            assert _AUFT_ERF.fullmatch(entry["AuftErf"]), entry
            captured = dt.datetime.fromisoformat(entry["AuftErf"])
            assert before <= captured <= after
        return entries

    def entry(number: str, captured: str) -> dict[str, Any]:
        link = {"href": f"{BASE}/www/auftrag/{number}", "type": "GET", "rel": "auftrag"}
        return {"PlanStatus": "N", "AuftErf": captured, "AuftNr": number, "links": [link]}

    last_two = await listed("?order=2")
    assert last_two == [entry("500004", last_two[0]["AuftErf"]), entry("500002", last_two[1]["AuftErf"])]
    new = await listed("?order=10&status=n")
    assert [e["AuftNr"] for e in new] == ["500004", "500002", "500001"]
    assert new[2] == entry("500001", new[2]["AuftErf"])
    assert await listed("?order=10&status=O") == []
    assert await listed("") == []  # order defaults to 0


@pytest.mark.parametrize(
    "change",
    [
        {"Positionen": [{**HAMMER, "PosBez": "Ham\u0000mer"}]},  # a position's text: one row of an executemany
        {"Zahlung": [{"Bezeichnung": "TransID", "Wert": "T\u00001"}]},  # a payment's
        {"GrundDaten": {"KundNr": "100002", "AuftBez": "a\u0000b"}},  # the document's own
    ],
)
async def test_nul_in_any_text_of_an_order_is_400_and_writes_nothing(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database, change: dict[str, Any]
) -> None:
    # PostgreSQL cannot hold NUL in text: refused as invalid input on both databases, not a driver error (500).
    empty = await row_counts(db)
    response = await client.post("/www/auftrag", json=order(HAMMER) | change, headers=auth)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_request"
    assert await row_counts(db) == empty
