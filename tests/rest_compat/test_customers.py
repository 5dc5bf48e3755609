"""POST /www/kunden and GET /www/kunden/{DebiNr}."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from tests.factories import Factory
from tests.http import body, error

BASE = "http://gateway.test"

CONTACT = {
    "AdrSprache": "fre",
    "EmailAdress": "contact@bricolage.ch",
    "AdrAdresse1": "Rue du Marché 4",
    "AdrAnrede": 0,
    "AdrFirma": "Bricolage Léman Sàrl",
    "OrtLand": "CH",
    "OrtName": "geneve",
    "OrtPLZ": "1201",
}
DELIVERY = {
    "AdrSprache": "fre",
    "AdrAdresse1": "Chemin des Vignes 2",
    "AdrAnrede": 2,
    "AdrVorname": "Léa",
    "AdrName": "Rochat",
    "OrtLand": "CH",
    "OrtName": "Lausanne",
    "OrtPLZ": "1003",
}
NEW_CUSTOMER = {
    "GrundDaten": {
        "WaehrAbk": "CHF",
        "FAKTZahlArt": "L",
        "AUFT_SPESEN": "5.00",
        "VBTyp": "POST",
        "TVTyp": "TV1",
        "Kommentar": "Commande par le web",
        "SteuerNummer": "CHE-123.456.789",
        "FirmenURL": "bricolage.ch",
        "KreditLimit": 5000,
        "ZahlungsMethode": "r,K",
    },
    "Adressen": {"KontaktAdr": CONTACT, "LiefAdr": DELIVERY},
}


@pytest.fixture
async def reference(factory: Factory) -> None:
    await factory.reference_data()


async def create(client: httpx.AsyncClient, auth: dict[str, str], payload: Any, status: int = 201) -> Any:
    response = await client.post("/www/kunden", json=payload, headers=auth)
    assert response.status_code == status, response.content
    return body(response)


async def test_create_answers_201_with_the_new_number(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    assert await create(client, auth, NEW_CUSTOMER) == {"data": {"DebiNr": "100001"}}
    assert await create(client, auth, NEW_CUSTOMER) == {"data": {"DebiNr": "100002"}}


async def test_the_customer_reads_back_as_the_output_structure(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    await create(client, auth, NEW_CUSTOMER)
    response = await client.get("/www/kunden/100001", headers=auth)
    assert response.status_code == 200
    # Contact 1 (also billing, by default), delivery 2; the place names are corrected (AdrCheck).
    assert body(response) == {
        "data": {
            "status": 1,
            "WaehrAbk": "CHF",
            "BrancheID": None,
            "AdrSprache": "fre",
            "KundLief": 2,
            "KundRech": 1,
            "KundKontakt": 1,
            "VBTyp": "POST",
            "ZahlungsMethode": "R,K",
            "KundBez": "Bricolage Léman Sàrl",
            "Kommentar": "Commande par le web",
            "attributes": [],
            "links": [
                {"href": f"{BASE}/www/kunden/100001", "type": "GET", "rel": "kunden"},
                {"href": f"{BASE}/www/adressen?debinr=100001", "type": "GET", "rel": "adressen"},
            ],
            "Auftrag": [],
        }
    }
    place = body(await client.get("/www/adressen/1", headers=auth))["data"]["OrtName"]
    assert place == "Genève"


async def test_minimal_body_blocked_customer_and_designation_from_the_name(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    minimal = {
        "GrundDaten": {"WaehrAbk": "EUR", "FAKTZahlArt": "B"},
        "Adressen": {"KontaktAdr": DELIVERY | {"AdrVorname": "Marie-Christine-Alexandra", "AdrSprache": "ita"}},
    }
    await create(client, auth, minimal)
    data = body(await client.get("/www/kunden/100001", headers=auth))["data"]
    # KreditLimit defaults to 0 (blocked): status 0. No ZahlungsMethode: the field is left out.
    assert (data["status"], data["WaehrAbk"], data["AdrSprache"]) == (0, "EUR", "ita")
    assert data["KundBez"] == "Marie-Christine-Alexandra"[:24]
    assert "ZahlungsMethode" not in data
    assert data["KundLief"] == data["KundRech"] == data["KundKontakt"] == 1


def without(path: str) -> dict[str, Any]:
    payload = copy.deepcopy(NEW_CUSTOMER)
    *parents, name = path.split(".")
    target: Any = payload
    for parent in parents:
        target = target[parent]
    del target[name]
    return payload


def changed(path: str, value: Any) -> dict[str, Any]:
    payload = copy.deepcopy(NEW_CUSTOMER)
    *parents, name = path.split(".")
    target: Any = payload
    for parent in parents:
        target = target[parent]
    target[name] = value
    return payload


@pytest.mark.parametrize(
    ("payload", "description", "field"),
    [
        (without("Adressen.KontaktAdr"), "the contact address is required", "Adressen.KontaktAdr"),
        (without("GrundDaten.WaehrAbk"), "is required", "GrundDaten.WaehrAbk"),
        (without("GrundDaten.FAKTZahlArt"), "is required", "GrundDaten.FAKTZahlArt"),
        (
            changed("GrundDaten.WaehrAbk", "XYZ"),
            "'XYZ' is not an ISO 4217 currency code",
            "GrundDaten.WaehrAbk",
        ),
        (changed("GrundDaten.WaehrAbk", "USD"), "USD is not a currency of the ERP", "GrundDaten.WaehrAbk"),
        (changed("GrundDaten.FAKTZahlArt", "LB"), "must have at most 1 characters", "GrundDaten.FAKTZahlArt"),
        (changed("GrundDaten.KreditLimit", "viel"), "must be a whole number", "GrundDaten.KreditLimit"),
        (
            changed("GrundDaten.ZahlungsMethode", "K,X"),
            "is a comma-separated list of K (credit card) and R (invoice)",
            "GrundDaten.ZahlungsMethode",
        ),
        (
            changed("GrundDaten.FirmenURL", "x" * 21),
            "must have at most 20 characters",
            "GrundDaten.FirmenURL",
        ),
        (
            changed("Adressen.KontaktAdr.OrtPLZ", "9901"),
            "'9901' is not a Swiss postal code",
            "Adressen.KontaktAdr.OrtPLZ",
        ),
        (
            changed("Adressen.LiefAdr.OrtLand", "ZZ"),
            "'ZZ' is not an ISO 3166 alpha-2 country code",
            "Adressen.LiefAdr.OrtLand",
        ),
        (
            changed("Adressen.LiefAdr.AdrSprache", "deu"),
            "'deu' is not an ISO 639-2/B language code (e.g. ger, fre, ita, eng)",
            "Adressen.LiefAdr.AdrSprache",
        ),
        (
            changed("Adressen.KontaktAdr.AdrFirma", "F" * 37),
            "must have at most 36 characters",
            "Adressen.KontaktAdr.AdrFirma",
        ),
        (changed("Adressen.KontaktAdr", "street"), "must be an object", "Adressen.KontaktAdr"),
        (changed("GrundDaten", []), "must be an object", "GrundDaten"),
    ],
)
async def test_refusals_name_the_rest_field(
    client: httpx.AsyncClient,
    reference: None,
    auth: dict[str, str],
    payload: Any,
    description: str,
    field: str,
) -> None:
    assert await create(client, auth, payload, status=400) == error("invalid_request", description, field=field)
    # Nothing was written, and no number was used up.
    assert await create(client, auth, NEW_CUSTOMER) == {"data": {"DebiNr": "100001"}}


@pytest.mark.parametrize(
    ("content", "headers", "status", "code"),
    [
        (
            b"GrundDaten=1",
            {"Content-Type": "application/x-www-form-urlencoded"},
            415,
            "unsupported_media_type",
        ),
        (b"{", {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b"[]", {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b"{}", {"Content-Type": "application/json; charset=utf-16"}, 415, "unsupported_media_type"),
    ],
)
async def test_bodies_that_are_not_a_json_object(
    client: httpx.AsyncClient,
    reference: None,
    auth: dict[str, str],
    content: bytes,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    response = await client.post("/www/kunden", content=content, headers=auth | headers)
    assert response.status_code == status
    assert body(response)["error"] == code


async def test_latin1_bodies_are_accepted_when_declared(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    import json

    content = json.dumps(NEW_CUSTOMER, ensure_ascii=False).encode("iso-8859-1")
    headers = auth | {"Content-Type": "application/json; charset=ISO-8859-1"}
    response = await client.post("/www/kunden", content=content, headers=headers)
    assert response.status_code == 201
    data = body(await client.get("/www/kunden/100001", headers=auth))["data"]
    assert data["KundBez"] == "Bricolage Léman Sàrl"


async def test_unknown_customer_is_404(client: httpx.AsyncClient, reference: None, auth: dict[str, str]) -> None:
    response = await client.get("/www/kunden/999999", headers=auth)
    assert response.status_code == 404
    assert body(response) == error("not_found", "no such customer", DebiNr="999999")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?status=X", error("invalid_request", "status must be O, N or A", field="status")),
        ("?order=-1", error("invalid_request", "order must be a whole number from 0 to 2147483647", field="order")),
        (
            "?order=3000000000",
            error("invalid_request", "order must be a whole number from 0 to 2147483647", field="order"),
        ),
        ("?order=all", error("invalid_request", "order must be a whole number, not 'all'", field="order")),
    ],
)
async def test_bad_order_parameters_are_400(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str], query: str, expected: dict[str, Any]
) -> None:
    await create(client, auth, NEW_CUSTOMER)
    response = await client.get(f"/www/kunden/100001{query}", headers=auth)
    assert response.status_code == 400
    assert body(response) == expected


async def test_order_list_is_present_with_valid_parameters(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    await create(client, auth, NEW_CUSTOMER)
    response = await client.get("/www/kunden/100001?order=5&status=o", headers=auth)
    assert body(response)["data"]["Auftrag"] == []


async def test_catalogue_scope_cannot_create_customers(
    client: httpx.AsyncClient, reference: None, token_for: Any
) -> None:
    response = await client.post("/www/kunden", json=NEW_CUSTOMER, headers=token_for("catalogue"))
    assert response.status_code == 403
    assert body(response) == error("insufficient_scope", "the shop scope is required")
