"""GET /www/artikel and /www/artikel/{ArtNr}: envelopes, links, pruning, sorting, languages, errors."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import body, error, statement_count

BASE = "http://gateway.test"
MODIFIED = "2026-03-01T08:30:00Z"


def to_article(number: str) -> list[dict[str, str]]:
    return [{"href": f"{BASE}/www/artikel/{number}", "type": "GET", "rel": "artikel"}]


def price(number: str, amount: float, low: float, high: float | None = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"ArtNr": number, "Bereich": None, "AbAnzahl": low}
    if high is not None:
        entry["BisAnzahl"] = high
    entry |= {"PreisList": amount, "Preisart": "N", "VPEinheit": None, "GeaendertAmUTC": MODIFIED}
    return entry | extra | {"links": to_article(number)}


def stock(number: str, warehouse: str, location: int, quantity: int, unit: str | None = None) -> dict[str, Any]:
    return {
        "ArtNr": number,
        "LagerOrt": warehouse,
        "StaoNr": location,
        "LagerBestand": quantity,
        "VPEinheit": unit,
        "Bereich": None,
        "links": to_article(number),
    }


HAMMER = {
    "ArtNr": "A-100",
    "AnLager": "J",
    "ArtBez": "Hammer",
    "ArtikelStatus": 1,
    "Einheit": "Stk",
    "Farbe": "#1f77b4",
    "WUSTSatz": 2.6,
    "GeaendertAmUTC": MODIFIED,
    "ArtGruppe": "WERKZEUG",
    "ArtKlasse": "HAND",
    "WaehrAbk": "CHF",
    "BeschaffungsArt": "E",
    "VerarbeitungsArt": "N",
    "links": [
        {"href": f"{BASE}/www/artikel/A-100", "type": "GET", "rel": "artikel"},
        {"href": f"{BASE}/www/artikelmedia/A-100", "type": "GET", "rel": "artikelmedia"},
    ],
    "attributes": [{"Contents": "1", "PHKey": "RESTWEBSHOP"}, {"Contents": "WEB", "PHKey": "VERWENDUNG"}],
    "HatVPE": "N",
    "Preis": [
        price("A-100", 12.5, 1.0, 10.0),
        price("A-100", 11.0, 10.0, 50.0),
        price("A-100", 9.9, 50.0),
    ],
    # Hauptlager 10 - 3 reserved; Filiale 2 - 5 reserved; the unreleased Sperrlager does not count.
    "Bestand": [stock("A-100", "Hauptlager", 1, 7), stock("A-100", "Filiale", 2, -3)],
}

HAMMER_DECLARATIONS = [
    {
        "Nr": 1,
        "AdrSprache": "ger",
        "ArtNr": "A-100",
        "Bezeichnung1": "Ursprung Schweiz",
        "Bezeichnung2": None,
        "KurzBezeichnung": "CH",
        "OrtLand": "CH",
        "links": to_article("A-100"),
    },
    {
        "Nr": 2,
        "AdrSprache": "fre",
        "ArtNr": "A-100",
        "Bezeichnung1": "Origine Suisse",
        "Bezeichnung2": None,
        "KurzBezeichnung": None,
        "OrtLand": "CH",
        "links": to_article("A-100"),
    },
]


async def get(client: httpx.AsyncClient, url: str, auth: dict[str, str], status: int = 200) -> Any:
    response = await client.get(url, headers=auth)
    assert response.status_code == status, response.content
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-request-id"]
    return body(response)


async def test_single_article_is_the_full_output_structure(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    data = await get(client, "/www/artikel/A-100", auth)
    assert data == {"data": HAMMER | {"ArtGewicht": None, "Deklaration": HAMMER_DECLARATIONS}}


async def test_list_envelope_default_sort_and_no_declarations(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    data = await get(client, "/www/artikel", auth)
    assert set(data) == {"data", "links"}
    # +ArtBez in German: Bohrer, Dübel, Hammer, Schrauben, Zange. A-400 is not exposed.
    assert [a["ArtNr"] for a in data["data"]] == ["A-500", "A-600", "A-100", "A-200", "A-300"]
    assert data["data"][2] == HAMMER
    assert data["links"] == [{"href": f"{BASE}/www/artikel?offset=0", "type": "GET", "rel": "start"}]


async def test_packaging_units_carry_price_and_stock_and_webshopvpe_restricts_them(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    data = (await get(client, "/www/artikel/A-200?fields=HatVPE,Verpackungen,Preis,Bestand", auth))["data"]
    # WEBSHOPVPE "KAR, stk" hides PAL; price and stock hang under the units, not on the article.
    assert data == {
        "HatVPE": "J",
        "Verpackungen": [
            {
                "VPEinheit": "STK",
                "VPEEANNr": "7610000000017",
                "VPBezeichnung": None,
                "Faktor": 1.0,
                "Gewicht": None,
                "VPEGewicht": None,
                "GewichtInhalt": None,
                "Preis": [price("A-200", 2.0, 1.0, VPEinheit="STK")],
                "Bestand": [stock("A-200", "Hauptlager", 1, 50, "STK")],
            },
            {
                "VPEinheit": "KAR",
                "VPEEANNr": "7610000000024",
                "VPBezeichnung": "Karton",
                "Faktor": 12.0,
                "Gewicht": None,
                "VPEGewicht": 1.2,
                "GewichtInhalt": None,
                "Preis": [
                    price("A-200", 22.0, 1.0, 5.0, VPEinheit="KAR"),
                    price("A-200", 20.0, 5.0, VPEinheit="KAR"),
                ],
                "Bestand": [stock("A-200", "Hauptlager", 1, 3, "KAR")],
            },
        ],
    }


async def test_empty_webshopvpe_outputs_every_unit_and_a_unit_without_price_has_no_preis(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    data = (await get(client, "/www/artikel/A-600?fields=Verpackungen.VPEinheit,Verpackungen.Preis", auth))["data"]
    assert data == {
        "Verpackungen": [
            {"VPEinheit": "STK", "Preis": [price("A-600", 0.1, 1.0, VPEinheit="STK")]},
            {"VPEinheit": "BTL"},
        ]
    }


async def test_article_without_any_price_has_no_preis_field(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    data = (await get(client, "/www/artikel/A-300", auth))["data"]
    assert "Preis" not in data
    assert data["HatVPE"] == "N"
    assert data["Bestand"] == []
    assert "Verpackungen" not in data


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # No customer: the default list STD has no price for the drill.
        ("", None),
        # 100001 buys from the WV list, which has one.
        ("?debinr=100001", [price("A-500", 30.0, 1.0)]),
        # 100002 has no list type: the default.
        ("?debinr=100002", None),
        # 100003's BRUTTO list holds gross prices.
        ("?debinr=100003", [price("A-500", 39.9, 1.0, Preisart="B")]),
    ],
)
async def test_price_list_of_the_customer_falls_back_to_the_default(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, expected: Any
) -> None:
    data = (await get(client, f"/www/artikel/A-500{query}", auth))["data"]
    assert data.get("Preis") == expected


async def test_price_lists_are_never_merged(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    # WV has a single tier for the hammer; STD's tiers at 10 and 50 must not be mixed in.
    data = (await get(client, "/www/artikel/A-100?debinr=100001&fields=Preis", auth))["data"]
    assert data == {"Preis": [price("A-100", 10.0, 1.0)]}


async def test_currency_selects_prices_and_is_reported(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    eur = (await get(client, "/www/artikel/A-100?waehrabk=eur&fields=WaehrAbk,Preis", auth))["data"]
    assert eur == {"WaehrAbk": "EUR", "Preis": [price("A-100", 13.0, 1.0)]}
    # A real ISO currency without prices: the field is absent, not an error.
    usd = (await get(client, "/www/artikel/A-100?waehrabk=USD&fields=WaehrAbk,Preis", auth))["data"]
    assert usd == {"WaehrAbk": "USD"}


@pytest.mark.parametrize(
    ("query", "designations"),
    [
        ("", ["Bohrer", "Dübel", "Hammer", "Schrauben", "Zange"]),
        ("&adrsprache=fre", ["Cheville", "Foret", "Marteau", "Vis", "Zange"]),
        ("&adrsprache=eng", ["Bohrer", "Claw hammer", "Dübel", "Schrauben", "Zange"]),
        # The customer's language (French) has priority over the one asked for.
        ("&adrsprache=ita&debinr=100001", ["Cheville", "Foret", "Marteau", "Vis", "Zange"]),
        ("&debinr=100003", ["Bohrer", "Dübel", "Martello", "Schrauben", "Zange"]),
    ],
)
async def test_output_language_with_german_fallback(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], query: str, designations: list[str]
) -> None:
    data = await get(client, f"/www/artikel?fields=ArtBez{query}", auth)
    assert [a["ArtBez"] for a in data["data"]] == designations
    # A single article has the designation it has in the page: read with it, or after a customer's language.
    numbers = [a["ArtNr"] for a in (await get(client, f"/www/artikel?fields=ArtNr{query}", auth))["data"]]
    alone = [(await get(client, f"/www/artikel/{n}?fields=ArtBez{query}", auth))["data"]["ArtBez"] for n in numbers]
    assert alone == designations


@pytest.mark.parametrize("language", ["ger", "fre"])
async def test_an_article_without_designations_has_none_in_a_page_and_alone(
    client: httpx.AsyncClient, catalogue: Catalogue, factory: Factory, auth: dict[str, str], language: str
) -> None:
    # A page reads ArtBez with its rows (the sort keys keep "" for an article without any text): still null.
    await factory.article("A-000", designations={})
    page = await get(client, f"/www/artikel?fields=ArtNr,ArtBez&adrsprache={language}&sorts=%2BArtNr", auth)
    assert page["data"][0] == {"ArtNr": "A-000", "ArtBez": None}
    alone = await get(client, f"/www/artikel/A-000?fields=ArtBez&adrsprache={language}", auth)
    assert alone == {"data": {"ArtBez": None}}


@pytest.mark.parametrize(
    ("sorts", "numbers"),
    [
        ("-ArtNr", ["A-600", "A-500", "A-300", "A-200", "A-100"]),
        ("%2BArtNr", ["A-100", "A-200", "A-300", "A-500", "A-600"]),
        # An unencoded + arrives as a space; it still means ascending.
        ("+ArtGruppe,-ArtNr", ["A-600", "A-200", "A-500", "A-300", "A-100"]),
        ("-ArtBez", ["A-300", "A-200", "A-100", "A-600", "A-500"]),
        ("-WUSTSatz,ArtNr", ["A-200", "A-300", "A-500", "A-600", "A-100"]),
    ],
)
async def test_sorts(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], sorts: str, numbers: list[str]
) -> None:
    data = await get(client, f"/www/artikel?fields=ArtNr&sorts={sorts}", auth)
    assert [a["ArtNr"] for a in data["data"]] == numbers


async def test_pages_link_to_next_prev_and_start_with_the_other_parameters(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    data = await get(client, "/www/artikel?limit=2&offset=1&fields=ArtNr&waehrabk=EUR", auth)
    assert [a["ArtNr"] for a in data["data"]] == ["A-600", "A-100"]

    def at(offset: int) -> str:
        return f"{BASE}/www/artikel?limit=2&fields=ArtNr&waehrabk=EUR&offset={offset}"

    assert data["links"] == [
        {"href": at(3), "type": "GET", "rel": "next"},
        {"href": at(0), "type": "GET", "rel": "prev"},
        {"href": at(0), "type": "GET", "rel": "start"},
    ]
    last = await get(client, "/www/artikel?limit=2&offset=4&fields=ArtNr", auth)
    assert [a["ArtNr"] for a in last["data"]] == ["A-300"]
    assert [link["rel"] for link in last["links"]] == ["prev", "start"]
    beyond = await get(client, "/www/artikel?limit=2&offset=10&fields=ArtNr", auth)
    assert beyond["data"] == []


async def test_parameter_names_in_any_case_and_the_last_of_a_repeated_one_count(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    # As PHP's $_GET reads a query string: names in any case, the last of a repeated one wins.
    data = await get(client, "/www/artikel?Limit=5&FIELDS=ArtNr&limit=2&OFFSET=1", auth)
    assert [a["ArtNr"] for a in data["data"]] == ["A-600", "A-100"]
    following = [link["href"] for link in data["links"] if link["rel"] == "next"]
    assert following == [f"{BASE}/www/artikel?Limit=5&FIELDS=ArtNr&limit=2&offset=3"]
    next_page = await get(client, following[0].removeprefix(BASE), auth)
    assert [a["ArtNr"] for a in next_page["data"]] == ["A-200", "A-300"]


async def test_fields_prune_the_output_and_what_is_loaded(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    full = await client.get("/www/artikel", headers=auth)
    pruned = await client.get("/www/artikel?fields=ArtNr,ArtBez", headers=auth)
    assert [set(a) for a in body(pruned)["data"]] == [{"ArtNr", "ArtBez"}] * 5
    # The whole list's version (its ETag, read before any of its parts), the view (leading currency and price
    # lists), the page with its designations (one row more tells whether a next page exists: nothing is
    # counted): no price, stock or unit query.
    assert statement_count(pruned) == 3
    assert statement_count(full) == 7
    links_only = body(await client.get("/www/artikel/A-300?fields=links", headers=auth))
    assert links_only == {
        "data": {
            "links": [
                {"href": f"{BASE}/www/artikel/A-300", "type": "GET", "rel": "artikel"},
                {"href": f"{BASE}/www/artikelmedia/A-300", "type": "GET", "rel": "artikelmedia"},
            ]
        }
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "/www/artikel?fields=ArtNr,Nope",
            error("invalid_request", "unknown field 'Nope'", field="fields", value="Nope"),
        ),
        (
            "/www/artikel?fields=Deklaration",
            error("invalid_request", "unknown field 'Deklaration'", field="fields", value="Deklaration"),
        ),
        (
            "/www/artikel?fields=ArtNr.Sub",
            error("invalid_request", "unknown field 'ArtNr.Sub'", field="fields", value="ArtNr.Sub"),
        ),
        (
            "/www/artikel?sorts=-Preis",
            error("invalid_request", "cannot sort by 'Preis'", field="sorts", value="-Preis"),
        ),
        (
            "/www/artikel?limit=ten",
            error("invalid_request", "limit must be a whole number, not 'ten'", field="limit"),
        ),
        (
            "/www/artikel?offset=-1",
            error("invalid_request", "offset must be a whole number from 0 to 2147483647", field="offset"),
        ),
        (
            "/www/artikel?limit=3000000000",
            error("invalid_request", "limit must be a whole number from 0 to 2147483647", field="limit"),
        ),
        (
            "/www/artikel?offset=" + "9" * 5000,
            error("invalid_request", f"offset must be a whole number, not '{'9' * 37}...'", field="offset"),
        ),
        (
            "/www/artikel?limit=%EF%BC%91",  # a full-width digit one: int() would take it
            error("invalid_request", "limit must be a whole number, not '\uff11'", field="limit"),
        ),
        (
            "/www/artikel?waehrabk=XYZ",
            error("invalid_request", "'XYZ' is not an ISO 4217 currency code", field="waehrabk"),
        ),
        (
            "/www/artikel/A-100?adrsprache=deu",
            error(
                "invalid_request",
                "'deu' is not an ISO 639-2/B language code (e.g. ger, fre, ita, eng)",
                field="adrsprache",
            ),
        ),
    ],
)
async def test_bad_parameters_are_400(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], url: str, expected: dict[str, Any]
) -> None:
    assert await get(client, url, auth, status=400) == expected


async def test_unknown_customer_is_404(client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]) -> None:
    data = await get(client, "/www/artikel?debinr=999999", auth, status=404)
    assert data == error("not_found", "customer '999999' does not exist", field="debinr")


@pytest.mark.parametrize("number", ["A-400", "NOPE", "A-100%20"])
async def test_unknown_and_unexposed_articles_are_404(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], number: str
) -> None:
    data = await get(client, f"/www/artikel/{number}", auth, status=404)
    assert data["error"] == "not_found"
    assert data["success"] is False


async def test_text_beyond_ascii_is_escaped_and_decodes_alike_as_utf8_and_latin1(
    client: httpx.AsyncClient, factory: Any, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    text = "Säge € 10 Ωmega 😀 ŁÓDŹ"
    await factory.article("A-900", designations={"ger": text})
    response = await client.get("/www/artikel/A-900?fields=ArtBez", headers=auth)
    assert response.content == (
        b'{"data":{"ArtBez":"S\\u00e4ge \\u20ac 10 \\u03a9mega \\ud83d\\ude00 \\u0141\\u00d3D\\u0179"}}'
    )
    assert body(response) == {"data": {"ArtBez": text}}
    assert json.loads(response.content.decode("utf-8")) == {"data": {"ArtBez": text}}


@pytest.mark.parametrize(
    "url",
    [
        "/www/artikel/A%00B",
        "/www/artikelmedia/A%00B",
        "/www/artikel?debinr=1%000",
        "/www/artikel?waehrabk=CHF&debinr=%00",
    ],
)
async def test_nul_characters_are_refused_before_the_database(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], url: str
) -> None:
    # PostgreSQL cannot hold NUL in text; both databases answer the same clear 400.
    data = await get(client, url, auth, status=400)
    assert data == error("invalid_request", "text cannot contain NUL characters")


async def test_fractional_stock_rounds_to_the_nearest_whole_unit(
    client: httpx.AsyncClient, factory: Any, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    article = await factory.article("A-901", designations={"ger": "Kabel"}, unit="m")
    warehouse = await factory.warehouse("Kabellager", 5)
    await factory.stock(article, warehouse, "12.5")
    other = await factory.warehouse("Rollenlager", 6)
    await factory.stock(article, other, "1.25", reserved=["3.75"])
    data = (await get(client, "/www/artikel/A-901?fields=Bestand.LagerBestand", auth))["data"]
    assert data == {"Bestand": [{"LagerBestand": 13}, {"LagerBestand": -3}]}
