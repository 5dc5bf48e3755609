"""GET, POST and PATCH /www/offerte and PUT /www/auftrag (an offer becomes an order).

Amounts are worked out by hand in the comments: positions to cents (half up), unit prices to four places,
tax per position; AuftNetto and AuftWUST exact to the cent, AuftBrutto (the amount payable) = AuftNetto +
AuftWUST rounded to the currency's step (CHF 0.05).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from datasources.database import Database
from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import body, error
from tests.sales_data import (
    ABROAD,
    CONTACT_FRE,
    CONTACT_GER,
    CONTACT_ITA,
    DELIVERY_FRE,
    NO_ADDRESSES,
    OFFER_HEADER_KEYS,
    address_out,
    addresses,
    build_shop,
    call,
    new_customer,
    position,
    recap,
    row_counts,
    set_customer,
)


@pytest.fixture
async def shop(factory: Factory) -> Catalogue:
    return await build_shop(factory)


HAMMER = {"ArtNr": "A-100", "Menge": 1}
SCREWS_KAR = {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR"}


def offer_body(*positions: dict[str, Any], **header: Any) -> dict[str, Any]:
    return {"GrundDaten": header, "Positionen": list(positions)}


async def create_offer(client: httpx.AsyncClient, auth: dict[str, str], payload: Any) -> Any:
    created = await call(client, "POST", "/www/offerte", auth, payload, status=201)
    assert (created["count"], created["success"]) == (1, True)
    return created["data"]


async def read_offer(client: httpx.AsyncClient, auth: dict[str, str], number: str) -> Any:
    answer = await call(client, "GET", f"/www/offerte?OffertNr={number}", auth, status=200)
    assert (answer["count"], answer["success"]) == (1, True)
    return answer["data"]


async def patch(client: httpx.AsyncClient, auth: dict[str, str], query: str, payload: Any, status: int = 200) -> Any:
    answer = await call(client, "PATCH", f"/www/offerte?{query}", auth, payload, status=status)
    if status == 200:
        assert (answer["count"], answer["success"]) == (1, True)
        return answer["data"]
    return answer


def totals_of(data: Any) -> tuple[float, float, float]:
    header = data["GrundDaten"]
    return header["AuftNetto"], header["AuftWUST"], header["AuftBrutto"]


def unprocessable(description: str, position: int, field: str) -> dict[str, Any]:
    return error("unprocessable", description, position=position, field=field)


def invalid(description: str, field: str) -> dict[str, Any]:
    return error("invalid_request", description, field=field)


def mismatch(*differs: str) -> dict[str, Any]:
    description = f"the template offer does not match the customer: {', '.join(differs)} differ"
    return error("conflict", description, differs=list(differs), field="GrundDaten.KundNr")


def belongs(offer: str, customer: str) -> dict[str, Any]:
    description = f"offer {offer} belongs to customer {customer}; only a template offer can be assigned"
    return error("conflict", description, KundNr=customer, field="GrundDaten.KundNr")


# 10 hammers: tier 10 = 11.00, 110.00, tax 110.00 * 2.6 % = 2.86
HAMMERS_10 = position(1, "A-100", "Hammer", 10.0, 11.0, 110.0, 2.86, "R26")
# 24 screws = 2 KAR * 22.00 = 44.00; 22.00 / 12 = 1.8333; tax 44.00 * 8.1 % = 3.564 -> 3.56
SCREWS_2_KAR = position(
    2, "A-200", "Schrauben", 24.0, 1.8333, 44.0, 3.56, "N81", unit="KAR", packaging_quantity=2.0, packaging_price=22.0
)


# --- POST and GET -------------------------------------------------------------------------------------


async def test_an_offer_without_customer_is_a_template(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    payload = offer_body(
        {"ArtNr": "A-100", "Menge": 10},
        SCREWS_KAR,
        AuftBez="Vorlage Werkstatt",
        AuftBestellNr="OF-1",
        AuftBestellRef="Katalog 2027",
        AuftBestellT="2026-11-20T10:15:00",
        AuftLieferT="2026-12-01T00:00:00Z",
        AuftKomment="Preise gültig bis Ende Jahr",
    )
    created = await call(client, "POST", "/www/offerte", auth, payload, status=201)
    expected = {
        "OffertNr": "300001",
        "GrundDaten": {
            "StaoNr": None,
            "KundNr": None,
            "AuftKomment": "Preise gültig bis Ende Jahr",
            "Template": True,
            "KundBedBez": None,
            "KundBedTyp": None,
            "AuftBestellTUTC": "2026-11-20T09:15:00Z",  # Zurich winter time, UTC+1
            "AuftLieferTUTC": "2026-12-01T00:00:00Z",
            "AuftLiefKost": None,
            "AuftStatus": "P",
            "AuftBestellRef": "Katalog 2027",
            "WaehrAbk": "CHF",
            # tax 2.86 + 3.56 = 6.42; net 110.00 + 44.00 = 154.00; payable 160.42 -> 160.40
            "AuftWUST": 6.42,
            "AuftBrutto": 160.4,
            "AuftNetto": 154.0,
            "AuftNr": None,
            "AuftBez": "Vorlage Werkstatt",
            "AuftBestellNr": "OF-1",
        },
        "Adressen": NO_ADDRESSES,
        "Positionen": [HAMMERS_10, SCREWS_2_KAR],  # a template speaks German
        "MWSTRekapitulation": [recap("N81", 44.0, 3.56), recap("R26", 110.0, 2.86)],
    }
    assert created == {"count": 1, "success": True, "data": expected}  # no Zahlung on creation
    assert list(created) == ["count", "success", "data"]
    assert list(created["data"]) == ["OffertNr", "GrundDaten", "Adressen", "Positionen", "MWSTRekapitulation"]
    assert list(created["data"]["GrundDaten"]) == OFFER_HEADER_KEYS

    # Read back: the same, plus an empty Zahlung.
    read = await call(client, "GET", "/www/offerte?OffertNr=300001", auth, status=200)
    assert read == {"count": 1, "success": True, "data": expected | {"Zahlung": []}}
    assert list(read["data"]["GrundDaten"]) == OFFER_HEADER_KEYS


async def test_an_offer_with_customer_has_its_addresses_and_prices(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    customer = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)  # 100004: AdrNr 1 (contact, billing), 2
    data = await create_offer(client, auth, offer_body(HAMMER, KundNr=customer))
    contact = address_out(1, CONTACT_FRE)
    assert data == {
        "OffertNr": "300001",
        "GrundDaten": {
            "StaoNr": None,
            "KundNr": "100004",
            "AuftKomment": None,
            "Template": False,
            "KundBedBez": None,  # the customer has no payment condition
            "KundBedTyp": None,
            "AuftBestellTUTC": None,
            "AuftLieferTUTC": None,
            "AuftLiefKost": None,
            "AuftStatus": "P",
            "AuftBestellRef": None,
            "WaehrAbk": "CHF",
            # 12.50, tax 0.325 -> 0.33; payable 12.83 -> 12.85
            "AuftWUST": 0.33,
            "AuftBrutto": 12.85,
            "AuftNetto": 12.5,
            "AuftNr": None,
            "AuftBez": None,
            "AuftBestellNr": None,
        },
        "Adressen": addresses(contact, address_out(2, DELIVERY_FRE), contact),
        "Positionen": [position(1, "A-100", "Marteau", 1.0, 12.5, 12.5, 0.33, "R26")],  # the customer's language
        "MWSTRekapitulation": [recap("R26", 12.5, 0.33)],
    }
    assert list(data["GrundDaten"]) == OFFER_HEADER_KEYS
    # The customer's price list prices the offer: WV 10.00 for 100001 (tax 0.26), not STD 12.50.
    reseller = await create_offer(client, auth, offer_body(HAMMER, KundNr="100001"))
    assert reseller["OffertNr"] == "300002"
    assert reseller["Positionen"] == [position(1, "A-100", "Marteau", 1.0, 10.0, 10.0, 0.26, "R26")]
    assert totals_of(reseller) == (10.0, 0.26, 10.25)  # payable 10.26 -> 10.25


async def test_the_payment_condition_text_is_in_the_contact_language(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    fre = await new_customer(client, auth, CONTACT_FRE)  # 100004
    ger = await new_customer(client, auth, CONTACT_GER)  # 100005
    ita = await new_customer(client, auth, CONTACT_ITA)  # 100006
    await set_customer(db, fre, payment_condition=1)
    await set_customer(db, ger, payment_condition=2)
    await set_customer(db, ita, payment_condition=1)

    def condition(data: Any) -> tuple[Any, Any]:
        return data["GrundDaten"]["KundBedTyp"], data["GrundDaten"]["KundBedBez"]

    assert condition(await create_offer(client, auth, offer_body(HAMMER, KundNr=fre))) == (1, "30 jours net")
    assert condition(await create_offer(client, auth, offer_body(HAMMER, KundNr=ger))) == (2, "10 Tage 2 % Skonto")
    # Condition 1 has no Italian text: the German one.
    assert condition(await create_offer(client, auth, offer_body(HAMMER, KundNr=ita))) == (1, "30 Tage netto")
    # A template gets the customer's condition when it is assigned.
    template = await create_offer(client, auth, offer_body(HAMMER))
    assert condition(template) == (None, None)
    assert condition(await patch(client, auth, f"OffertNr={template['OffertNr']}&KundNr={fre}", {})) == (
        1,
        "30 jours net",
    )
    assert condition(await read_offer(client, auth, "300001")) == (1, "30 jours net")


async def test_an_offer_with_a_payment_condition_is_answered(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    customer = await new_customer(client, auth, CONTACT_FRE)
    await set_customer(db, customer, payment_condition=1)
    data = await create_offer(client, auth, offer_body(HAMMER, KundNr=customer))
    assert (data["GrundDaten"]["KundBedTyp"], data["GrundDaten"]["KundBedBez"]) == (1, "30 jours net")


async def test_reading_an_unknown_or_unnamed_offer(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    assert await call(client, "GET", "/www/offerte?OffertNr=300001", auth, status=404) == error(
        "not_found", "no such offer", OffertNr="300001"
    )
    assert await call(client, "GET", "/www/offerte", auth, status=400) == invalid("OffertNr is required", "OffertNr")


async def test_refused_offers_write_nothing(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    empty = await row_counts(db)
    refusals = [
        (
            offer_body(HAMMER, KundNr="999999"),
            404,
            error("not_found", "customer '999999' does not exist", field="GrundDaten.KundNr"),
        ),
        (
            offer_body(HAMMER, {"ArtNr": "A-400", "Menge": 1}) | {"Adressen": {"KontaktAdr": ABROAD}},
            422,
            unprocessable("article 'A-400' does not exist or is not offered", 2, "Positionen.1.ArtNr"),
        ),
        (
            offer_body({"ArtNr": "A-200", "Menge": 13, "VPEinheit": "KAR"}),
            422,
            unprocessable("the quantity must be a multiple of 12 (KAR)", 1, "Positionen.0.Menge"),
        ),
        # a template is priced from the default list only
        (
            offer_body({"ArtNr": "A-500", "Menge": 1}),
            422,
            unprocessable(
                "article A-500 has no price per base unit in CHF in the default price list STD", 1, "Positionen.0.ArtNr"
            ),
        ),
        (offer_body(), 400, invalid("at least one position is required", "Positionen")),
        (
            offer_body(HAMMER, AuftBestellT="9999-12-31T23:59:59-14:00"),
            400,
            invalid(
                "'9999-12-31T23:59:59-14:00' is out of range: in UTC it must fall within the years 1 to 9999",
                "GrundDaten.AuftBestellT",
            ),
        ),
        (
            offer_body(HAMMER, AuftLieferT="0001-01-01T00:00:00+14:00"),
            400,
            invalid(
                "'0001-01-01T00:00:00+14:00' is out of range: in UTC it must fall within the years 1 to 9999",
                "GrundDaten.AuftLieferT",
            ),
        ),
        (offer_body(HAMMER, AuftBez="x" * 81), 400, invalid("must have at most 80 characters", "GrundDaten.AuftBez")),
    ]
    for payload, status, expected in refusals:
        assert await call(client, "POST", "/www/offerte", auth, payload, status=status) == expected
        assert await row_counts(db) == empty, payload
    assert (await create_offer(client, auth, offer_body(HAMMER)))["OffertNr"] == "300001"


# --- PATCH: positions, addresses ----------------------------------------------------------------------


async def test_patch_adds_deletes_and_updates_positions(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER, SCREWS_KAR, {"ArtNr": "A-600", "Menge": 100}))
    changes = [
        {"PosNr": 1, "Menge": 10},  # update: 1 -> 10 hammers, re-priced at the tier from 10
        {"PosNr": 3, "Menge": 0},  # delete the dowels
        {"ArtNr": "A-700", "Menge": 2, "GRabSatz": 5},  # add: PosNr 4, after the highest one
        {"PosNr": 2, "Menge": 60},  # update: 2 -> 5 KAR, the tier from 5 KAR
    ]
    data = await patch(client, auth, "OffertNr=300001", {"Positionen": changes})
    positions = [
        HAMMERS_10,
        # 5 KAR * 20.00 = 100.00; 20.00 / 12 = 1.6667; tax 8.10
        position(
            2,
            "A-200",
            "Schrauben",
            60.0,
            1.6667,
            100.0,
            8.1,
            "N81",
            unit="KAR",
            packaging_quantity=5.0,
            packaging_price=20.0,
        ),
        # 2 * 100.00 * 0.95 = 190.00; tax 190.00 * 3.8 % = 7.22
        position(4, "A-700", "Übernachtung", 2.0, 100.0, 190.0, 7.22, "B38", discount=5.0),
    ]
    assert data["Positionen"] == positions
    # net 110 + 100 + 190 = 400.00; tax 2.86 + 8.10 + 7.22 = 18.18; payable 418.18 -> 418.20
    assert totals_of(data) == (400.0, 18.18, 418.2)
    assert data["MWSTRekapitulation"] == [
        recap("N81", 100.0, 8.1),
        recap("B38", 190.0, 7.22),
        recap("R26", 110.0, 2.86),
    ]
    assert data["Zahlung"] == []
    assert data["GrundDaten"]["Template"] is True
    assert await read_offer(client, auth, "300001") == data

    more = await patch(client, auth, "OffertNr=300001", {"Positionen": [HAMMER | {"PosBez": "Ersatzhammer"}]})
    # PosNr 5 at 12.50, tax 0.33; net 400.00 + 12.50 = 412.50; tax 18.18 + 0.33 = 18.51; payable 431.01 -> 431.00
    assert more["Positionen"] == [*positions, position(5, "A-100", "Ersatzhammer", 1.0, 12.5, 12.5, 0.33, "R26")]
    assert totals_of(more) == (412.5, 18.51, 431.0)
    assert more["MWSTRekapitulation"][2] == recap("R26", 122.5, 3.19)  # 110 + 12.50; 2.86 + 0.33


@pytest.mark.parametrize(
    "changes",
    [
        [{"PosNr": 1, "Menge": 0}, {"PosNr": 1, "Menge": 5}],
        [{"PosNr": 1, "Menge": 5}, {"PosNr": 1, "Menge": 0}],
        [{"PosNr": 1, "Menge": 0}, {"PosNr": 1, "Menge": 0}],
    ],
)
async def test_a_deletion_wins_over_any_change_of_its_position(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], changes: list[dict[str, Any]]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER, {"ArtNr": "A-700", "Menge": 1}))

    data = await patch(client, auth, "OffertNr=300001", {"Positionen": changes})

    # 1 night at 100.00, tax 3.8 % = 3.80
    assert data["Positionen"] == [position(2, "A-700", "Übernachtung", 1.0, 100.0, 100.0, 3.8, "B38")]
    assert totals_of(data) == (100.0, 3.8, 103.8)


async def test_entries_for_one_position_apply_in_order(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER))
    changes = [{"PosNr": 1, "Menge": 5, "PosBez": "Ersatzhammer", "GRabSatz": 10}, {"PosNr": 1, "Menge": 7}]

    data = await patch(client, auth, "OffertNr=300001", {"Positionen": changes})

    # The second entry's quantity with the first one's text and discount: 7 * 12.50 * 0.9 = 78.75;
    # tax 78.75 * 2.6 % = 2.0475 -> 2.05
    assert data["Positionen"] == [position(1, "A-100", "Ersatzhammer", 7.0, 12.5, 78.75, 2.05, "R26", discount=10.0)]
    assert await read_offer(client, auth, "300001") == data


async def test_an_offer_is_priced_by_the_erp_whatever_preis_says(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    # The specification lists no Preis for offers: one sent is ignored like any unknown field.
    created = await create_offer(
        client, auth, offer_body({"ArtNr": "A-100", "Menge": 3, "Preis": 0.05, "GRabSatz": 10}, KundNr="100002")
    )
    # STD 12.50: 3 * 12.50 * 0.90 = 33.75; tax 0.8775 -> 0.88; payable 34.63 -> 34.65
    assert created["Positionen"] == [position(1, "A-100", "Hammer", 3.0, 12.5, 33.75, 0.88, "R26", discount=10.0)]
    assert totals_of(created) == (33.75, 0.88, 34.65)
    more = await patch(client, auth, "OffertNr=300001", {"Positionen": [{"PosNr": 1, "Menge": 50}]})
    # re-priced at the tier from 50, 9.90, still 10 %: 50 * 9.90 * 0.90 = 445.50; tax 11.583 -> 11.58;
    # payable 457.08 -> 457.10
    assert more["Positionen"] == [position(1, "A-100", "Hammer", 50.0, 9.9, 445.5, 11.58, "R26", discount=10.0)]
    assert totals_of(more) == (445.5, 11.58, 457.1)
    cheaper = await patch(client, auth, "OffertNr=300001", {"Positionen": [{"PosNr": 1, "Menge": 50, "GRabSatz": 20}]})
    # 50 * 9.90 * 0.80 = 396.00; tax 10.296 -> 10.30; payable 406.30
    assert cheaper["Positionen"] == [position(1, "A-100", "Hammer", 50.0, 9.9, 396.0, 10.3, "R26", discount=20.0)]
    assert totals_of(cheaper) == (396.0, 10.3, 406.3)
    # The order made from it has the ERP's prices too.
    await call(client, "PUT", "/www/auftrag", auth, convert("300001", "100002"), status=201)
    order = (await call(client, "GET", "/www/auftrag/500001", auth, status=200))["data"]
    assert (order["Positionen"], totals_of(order)) == (cheaper["Positionen"], (396.0, 10.3, 406.3))


async def test_patch_replaces_whole_addresses_of_the_offer_only(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    customer = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)  # AdrNr 1 (contact, billing), 2
    created = await create_offer(client, auth, offer_body(HAMMER, KundNr=customer))
    data = await patch(client, auth, "OffertNr=300001", {"Adressen": {"KontaktAdr": CONTACT_GER, "LiefAdr": ABROAD}})
    assert data["Adressen"] == addresses(
        address_out(3, CONTACT_GER), address_out(4, ABROAD), address_out(1, CONTACT_FRE)
    )
    assert {k: v for k, v in data.items() if k not in ("Adressen", "Zahlung")} == {
        k: v for k, v in created.items() if k != "Adressen"
    }
    again = await patch(client, auth, "OffertNr=300001", {"Adressen": {"RechAdr": DELIVERY_FRE}})
    assert again["Adressen"] == addresses(
        address_out(3, CONTACT_GER), address_out(4, ABROAD), address_out(5, DELIVERY_FRE)
    )
    # The customer's own records are untouched.
    kunde = (await call(client, "GET", f"/www/kunden/{customer}", auth, status=200))["data"]
    assert (kunde["KundKontakt"], kunde["KundLief"], kunde["KundRech"]) == (1, 2, 1)
    contact = (await call(client, "GET", "/www/adressen/1", auth, status=200))["data"]
    assert (contact["AdrFirma"], contact["OrtName"]) == ("Bricolage Léman Sàrl", "Genève")
    assert (await row_counts(db))["address"] == 5


async def test_refused_patches_change_nothing(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await create_offer(client, auth, offer_body(HAMMER, SCREWS_KAR))
    before, counts = await read_offer(client, auth, "300001"), await row_counts(db)
    no_position = unprocessable("offer 300001 has no position 9", 1, "Positionen.0.PosNr")
    refusals: list[tuple[str, Any, int, dict[str, Any]]] = [
        ("OffertNr=300001", {"Positionen": [{"PosNr": 9, "Menge": 10}]}, 422, no_position),
        (
            "OffertNr=300001",
            {"Positionen": [{"PosNr": 1, "Menge": 5}, {"ArtNr": "A-400", "Menge": 1}]},
            422,
            unprocessable("article 'A-400' does not exist or is not offered", 2, "Positionen.1.ArtNr"),
        ),
        (
            "OffertNr=300001",
            {"Positionen": [{"PosNr": 2, "Menge": 30}]},
            422,
            unprocessable("the quantity must be a multiple of 12 (KAR)", 1, "Positionen.0.Menge"),
        ),
        (
            "OffertNr=300001",
            {"Positionen": [{"Menge": 1}]},
            400,
            invalid("a new position needs an article", "Positionen.0.ArtNr"),
        ),
        (
            "OffertNr=300001",
            {"Positionen": [{"PosNr": "eins", "Menge": 1}]},
            400,
            invalid("must be a whole number", "Positionen.0.PosNr"),
        ),
        ("OffertNr=300001", {"Positionen": [{"PosNr": 1}]}, 400, invalid("is required", "Positionen.0.Menge")),
        # a position keeps its article
        (
            "OffertNr=300001",
            {"Positionen": [{"PosNr": 1, "Menge": 5}, {"PosNr": 2, "ArtNr": "A-100", "Menge": 36}]},
            422,
            unprocessable(
                "position 2 of offer 300001 is article A-200, not 'A-100': to change the article, "
                "delete the position (Menge 0) and add a new one",
                2,
                "Positionen.1.ArtNr",
            ),
        ),
        (
            "OffertNr=300001",
            {"Positionen": [{"PosNr": 1, "ArtNr": "A-200", "Menge": 0}]},
            422,
            unprocessable(
                "position 1 of offer 300001 is article A-100, not 'A-200'; nothing was changed", 1, "Positionen.0.ArtNr"
            ),
        ),
        # an assignment and a replaced address in the same refused request are rolled back too
        ("OffertNr=300001&KundNr=100002", {"Positionen": [{"PosNr": 9, "Menge": 1}]}, 422, no_position),
        (
            "OffertNr=300001",
            {"GrundDaten": {"KundNr": "100002"}, "Positionen": [{"PosNr": 9, "Menge": 1}]},
            422,
            no_position,
        ),
        (
            "OffertNr=300001",
            {"Adressen": {"KontaktAdr": ABROAD}, "Positionen": [{"PosNr": 9, "Menge": 1}]},
            422,
            no_position,
        ),
        (
            "OffertNr=300001&KundNr=100002",
            {"GrundDaten": {"KundNr": "100001"}},
            400,
            invalid("KundNr differs between the query and the body", "KundNr"),
        ),
        (
            "OffertNr=300001&KundNr=999999",
            {},
            404,
            error("not_found", "customer '999999' does not exist", field="GrundDaten.KundNr"),
        ),
        ("OffertNr=399999", {}, 404, error("not_found", "offer '399999' does not exist", field="OffertNr")),
        ("KundNr=100002", {}, 400, invalid("OffertNr is required", "OffertNr")),
    ]
    for query, payload, status, expected in refusals:
        assert await patch(client, auth, query, payload, status=status) == expected
        assert await read_offer(client, auth, "300001") == before, (query, payload)
        assert await row_counts(db) == counts, (query, payload)


async def test_patch_may_name_the_positions_own_article(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER, SCREWS_KAR))
    data = await patch(
        client,
        auth,
        "OffertNr=300001",
        {"Positionen": [{"PosNr": 1, "ArtNr": "A-100", "Menge": 10}, {"PosNr": 2, "ArtNr": "A-200", "Menge": 0}]},
    )
    assert data["Positionen"] == [HAMMERS_10]


# --- PATCH: a template offer gets its customer --------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "payload"),
    [
        ("&KundNr=100004", None),  # the specification's form: no body at all, not even a Content-Type
        ("&KundNr=100004", {}),
        ("", {"GrundDaten": {"KundNr": "100004"}}),
    ],
)
async def test_patch_assigns_a_template_offer_to_the_customer(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], query: str, payload: Any
) -> None:
    await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)  # 100004: AdrNr 1 (contact, billing), 2
    template = await create_offer(client, auth, offer_body({"ArtNr": "A-100", "Menge": 10}, SCREWS_KAR))
    data = await patch(client, auth, f"OffertNr=300001{query}", payload)
    contact = address_out(1, CONTACT_FRE)
    assert data == template | {
        "GrundDaten": template["GrundDaten"] | {"KundNr": "100004", "Template": False},
        "Adressen": addresses(contact, address_out(2, DELIVERY_FRE), contact),
        "Zahlung": [],
    }
    # positions and totals stay: 154.00 / 6.42 / 160.40
    assert totals_of(data) == (154.0, 6.42, 160.4)
    # Naming the same customer again changes nothing; another one is refused.
    assert await patch(client, auth, "OffertNr=300001&KundNr=100004", {}) == data
    assert await patch(client, auth, "OffertNr=300001&KundNr=100002", {}, status=409) == belongs("300001", "100004")
    assert await read_offer(client, auth, "300001") == data


@pytest.mark.parametrize("content_type", [None, "application/json", "text/plain"])
async def test_a_patch_with_an_empty_body_is_an_empty_change(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], content_type: str | None
) -> None:
    template = await create_offer(client, auth, offer_body(HAMMER))
    headers = auth if content_type is None else {**auth, "Content-Type": content_type}
    response = await client.patch("/www/offerte?OffertNr=300001&KundNr=100002", content=b"", headers=headers)
    assert response.status_code == 200
    assigned = template | {"GrundDaten": template["GrundDaten"] | {"KundNr": "100002", "Template": False}}
    assert body(response) == {"count": 1, "success": True, "data": assigned | {"Zahlung": []}}
    # Without KundNr either, nothing changes.
    unchanged = await client.patch("/www/offerte?OffertNr=300001", headers=auth)
    assert (unchanged.status_code, body(unchanged)["data"]) == (200, body(response)["data"])
    # A body that is there must still be a JSON object.
    for content, headers, status, code in (
        (b"KundNr=100002", {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        (b" ", {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b"[]", {}, 400, "invalid_request"),
    ):
        refused = await client.patch("/www/offerte?OffertNr=300001", content=content, headers={**auth, **headers})
        assert (refused.status_code, body(refused)["error"]) == (status, code), content


async def test_a_template_goes_only_to_a_matching_customer(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await create_offer(client, auth, offer_body(HAMMER))  # 300001: CHF, STD, no KTNr
    await create_offer(client, auth, offer_body(HAMMER, WaehrAbk="EUR"))  # 300002
    await create_offer(client, auth, offer_body(HAMMER, KTNr="K9"))  # 300003
    await create_offer(client, auth, offer_body(HAMMER, WaehrAbk="EUR", KTNr="K9"))  # 300004
    cases = [
        ("300001", "100001", mismatch("price list")),  # 100001 buys from WV
        ("300001", "100003", mismatch("price list")),  # 100003 from BRUTTO
        ("300002", "100002", mismatch("currency")),  # EUR template, CHF customer
        ("300003", "100002", mismatch("KTNr")),
        ("300004", "100001", mismatch("price list", "KTNr", "currency")),
    ]
    for offer, customer, expected in cases:
        assert await patch(client, auth, f"OffertNr={offer}&KundNr={customer}", {}, status=409) == expected
    await set_customer(db, "100002", tax_code="N81")
    assert await patch(client, auth, "OffertNr=300001&KundNr=100002", {}, status=409) == mismatch("WUSTCode")
    for offer in ("300001", "300002", "300003", "300004"):
        assert (await read_offer(client, auth, offer))["GrundDaten"]["Template"] is True


async def test_patch_adding_an_unpriced_article_names_a_patch_field(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER))
    answer = await patch(
        client, auth, "OffertNr=300001", {"Positionen": [{"PosNr": 1, "Menge": 2}, {"ArtNr": "A-300", "Menge": 1}]}, 422
    )
    assert answer["info"]["position"] == 2
    assert answer["info"]["field"] in {
        f"Positionen.1.{name}" for name in ("PosNr", "ArtNr", "PosBez", "Menge", "GRabSatz")
    }


async def test_patch_address_error_names_the_rest_field(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER))
    contact = {name: value for name, value in CONTACT_GER.items() if name != "OrtPLZ"}
    assert await patch(client, auth, "OffertNr=300001", {"Adressen": {"KontaktAdr": contact}}, 400) == invalid(
        "is required", "Adressen.KontaktAdr.OrtPLZ"
    )


async def test_patch_negative_quantity_names_its_position(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str]
) -> None:
    await create_offer(client, auth, offer_body(HAMMER))
    assert await patch(client, auth, "OffertNr=300001", {"Positionen": [{"PosNr": 1, "Menge": -1}]}, 422) == (
        unprocessable("the quantity must be above 0", 1, "Positionen.0.Menge")
    )


# --- PUT /www/auftrag: the offer becomes an order -----------------------------------------------------


def convert(offer: str, customer: str, payments: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"GrundDaten": {"OffertNr": offer, "KundNr": customer}}
    if payments is not None:
        payload["Zahlung"] = payments
    return payload


async def test_put_converts_a_template_offer_into_an_order(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    customer = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)  # AdrNr 1 (contact, billing), 2
    await create_offer(
        client,
        auth,
        offer_body(
            {"ArtNr": "A-100", "Menge": 10},
            SCREWS_KAR,
            AuftBez="Vorlage Werkstatt",
            AuftBestellNr="OF-1",
            AuftBestellRef="Katalog 2027",
            AuftBestellT="2026-11-20T10:15:00",
            AuftKomment="Preise gültig bis Ende Jahr",
        ),
    )
    payments = [{"Bezeichnung": "Dienstleister", "Wert": "Datatrans"}, {"Bezeichnung": "TransID", "Wert": "T-9"}]
    created = await call(client, "PUT", "/www/auftrag", auth, convert("300001", customer, payments), status=201)
    assert created == {"count": 1, "success": True, "data": {"AuftNr": "500001"}}

    contact = address_out(1, CONTACT_FRE)
    order = await call(client, "GET", "/www/auftrag/500001", auth, status=200)
    assert order == {
        "data": {
            "GrundDaten": {
                "AuftNr": "500001",
                "KundNr": "100004",
                "AuftBez": "Vorlage Werkstatt",
                "AuftBestellNr": "OF-1",
                "AuftBestellRef": "Katalog 2027",
                "AuftBestellTUTC": "2026-11-20T09:15:00Z",
                "AuftLieferTUTC": None,
                "WaehrAbk": "CHF",
                "AuftKomment": "Preise gültig bis Ende Jahr",
                "KundBedTyp": None,
                "AuftLiefKost": None,
                "StaoNr": None,
                "AuftStatus": "N",
                # the offer's: net 154.00, tax 6.42, payable 160.42 -> 160.40
                "AuftNetto": 154.0,
                "AuftWUST": 6.42,
                "AuftBrutto": 160.4,
            },
            "Adressen": addresses(contact, address_out(2, DELIVERY_FRE), contact),
            "Positionen": [HAMMERS_10, SCREWS_2_KAR],
            "MWSTRekapitulation": [recap("N81", 44.0, 3.56), recap("R26", 110.0, 2.86)],
            "Zahlung": [
                {"Bezeichnung": "Dienstleister", "Wert": "Datatrans", "Key": "Z1"},
                {"Bezeichnung": "TransID", "Wert": "T-9", "Key": "Z2"},
            ],
        }
    }
    offer = (await read_offer(client, auth, "300001"))["GrundDaten"]
    assert (offer["AuftNr"], offer["AuftStatus"], offer["KundNr"], offer["Template"]) == (
        "500001",
        "P",
        "100004",
        False,
    )

    # Once only; the converted offer cannot be changed either.
    assert await call(client, "PUT", "/www/auftrag", auth, convert("300001", customer), status=409) == error(
        "conflict", "offer 300001 was converted into order 500001 already", AuftNr="500001", field="GrundDaten.OffertNr"
    )
    assert await patch(client, auth, "OffertNr=300001", {"Positionen": [HAMMER]}, 409) == error(
        "conflict", "offer 300001 was converted into order 500001", AuftNr="500001"
    )
    listed = (await call(client, "GET", f"/www/kunden/{customer}?order=5", auth, status=200))["data"]["Auftrag"]
    assert [(entry["AuftNr"], entry["PlanStatus"]) for entry in listed] == [("500001", "N")]
    counts = await row_counts(db)
    assert (counts["sales_document"], counts["document_position"], counts["document_payment"]) == (2, 4, 2)


async def test_put_refusals_write_nothing(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await create_offer(client, auth, offer_body(HAMMER, KundNr="100001"))  # 300001, of 100001
    await create_offer(client, auth, offer_body(HAMMER, WaehrAbk="EUR"))  # 300002, a template
    offers = [await read_offer(client, auth, number) for number in ("300001", "300002")]
    counts = await row_counts(db)
    refusals = [
        (convert("300001", "100002"), 409, belongs("300001", "100001")),
        (
            convert("399999", "100001"),
            404,
            error("not_found", "offer '399999' does not exist", field="GrundDaten.OffertNr"),
        ),
        (
            convert("300001", "999999"),
            404,
            error("not_found", "customer '999999' does not exist", field="GrundDaten.KundNr"),
        ),
        (convert("300002", "100002"), 409, mismatch("currency")),
        (convert("300002", "100001"), 409, mismatch("price list", "currency")),
        ({"GrundDaten": {"OffertNr": 300001, "KundNr": "100001"}}, 400, invalid("must be text", "GrundDaten.OffertNr")),
        # the payments are checked after the order row was written: it must be rolled back
        (convert("300001", "100001", [{"Wert": "T-1"}]), 400, invalid("is required", "Zahlung.0.Bezeichnung")),
    ]
    for payload, status, expected in refusals:
        assert await call(client, "PUT", "/www/auftrag", auth, payload, status=status) == expected
        assert await row_counts(db) == counts, payload
        assert [await read_offer(client, auth, number) for number in ("300001", "300002")] == offers, payload
    created = await call(client, "PUT", "/www/auftrag", auth, convert("300001", "100001"), status=201)
    assert created == {"count": 1, "success": True, "data": {"AuftNr": "500001"}}
    order = (await call(client, "GET", "/www/auftrag/500001", auth, status=200))["data"]
    # WV 10.00, tax 0.26, payable 10.26 -> 10.25; no Zahlung given
    assert (order["Positionen"], order["Zahlung"]) == (
        [position(1, "A-100", "Marteau", 1.0, 10.0, 10.0, 0.26, "R26")],
        [],
    )
    assert (order["GrundDaten"]["AuftNetto"], order["GrundDaten"]["AuftWUST"], order["GrundDaten"]["AuftBrutto"]) == (
        10.0,
        0.26,
        10.25,
    )


async def test_an_offer_without_positions_does_not_become_an_order(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database
) -> None:
    await create_offer(client, auth, offer_body(HAMMER, SCREWS_KAR))
    emptied = await patch(
        client, auth, "OffertNr=300001", {"Positionen": [{"PosNr": 1, "Menge": 0}, {"PosNr": 2, "Menge": 0}]}
    )
    assert (emptied["Positionen"], emptied["MWSTRekapitulation"], totals_of(emptied)) == ([], [], (0.0, 0.0, 0.0))
    counts = await row_counts(db)
    assert await call(client, "PUT", "/www/auftrag", auth, convert("300001", "100002"), status=422) == error(
        "unprocessable", "offer 300001 has no positions; an order needs at least one", field="GrundDaten.OffertNr"
    )
    assert await row_counts(db) == counts
    # Nothing changed: still a template (the assignment was rolled back), no order number used.
    assert await read_offer(client, auth, "300001") == emptied
    await patch(client, auth, "OffertNr=300001", {"Positionen": [HAMMER]})
    created = await call(client, "PUT", "/www/auftrag", auth, convert("300001", "100002"), status=201)
    assert created["data"] == {"AuftNr": "500001"}


async def test_put_without_a_required_field_is_400(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    answers = []
    for grund in ({"KundNr": "100002"}, {"OffertNr": "300001"}):
        response = await client.put("/www/auftrag", json={"GrundDaten": grund}, headers=auth)
        answers.append((response.status_code, response.json()["error"], response.json()["info"]))
    assert answers == [
        (400, "invalid_request", {"field": "GrundDaten.OffertNr"}),
        (400, "invalid_request", {"field": "GrundDaten.KundNr"}),
    ]
