"""/www/adressen/{AdrNr} (GET, PATCH), GET /www/adressen?debinr= and GET /www/adressensuche."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.factories import Factory
from tests.http import JSON_TYPE, body, error

BASE = "http://gateway.test"

OUTPUT_FIELDS = [
    "AdrSprache",
    "EmailAdress",
    "AdrAdresse1",
    "AdrAdresse2",
    "AdrAnrede",
    "AdrAnredeText",
    "AdrFax",
    "AdrFirma",
    "AdrFirma2",
    "AdrVorname",
    "AdrName",
    "AdrTelex",
    "AdrTf1",
    "AdrTf2",
    "OrtLand",
    "OrtName",
    "OrtPLZ",
]

ANNA = {
    "AdrSprache": "ger",
    "AdrAdresse1": "Bahnhofstrasse 1",
    "AdrAnrede": 2,
    "AdrVorname": "Anna",
    "AdrName": "Müller",
    "OrtLand": "CH",
    "OrtName": "Zürich",
    "OrtPLZ": "8001",
}
ANNA_OUT = {
    "AdrSprache": "ger",
    "EmailAdress": None,
    "AdrAdresse1": "Bahnhofstrasse 1",
    "AdrAdresse2": None,
    "AdrAnrede": 2,
    "AdrAnredeText": "Frau",
    "AdrFax": None,
    "AdrFirma": None,
    "AdrFirma2": None,
    "AdrVorname": "Anna",
    "AdrName": "Müller",
    "AdrTelex": None,
    "AdrTf1": None,
    "AdrTf2": None,
    "OrtLand": "CH",
    "OrtName": "Zürich",
    "OrtPLZ": "8001",
}
LAGER = {
    "AdrSprache": "fre",
    "AdrAdresse1": "Rue du Lac 5",
    "AdrAnrede": 0,
    "AdrFirma": "Dépôt Léman SA",
    "OrtLand": "CH",
    "OrtName": "Lausanne",
    "OrtPLZ": "1003",
}
LAGER_OUT = {
    "AdrSprache": "fre",
    "EmailAdress": None,
    "AdrAdresse1": "Rue du Lac 5",
    "AdrAdresse2": None,
    "AdrAnrede": 0,
    "AdrAnredeText": None,
    "AdrFax": None,
    "AdrFirma": "Dépôt Léman SA",
    "AdrFirma2": None,
    "AdrVorname": None,
    "AdrName": None,
    "AdrTelex": None,
    "AdrTf1": None,
    "AdrTf2": None,
    "OrtLand": "CH",
    "OrtName": "Lausanne",
    "OrtPLZ": "1003",
}


@pytest.fixture(autouse=True)
async def reference(factory: Factory) -> None:
    await factory.reference_data()


async def create_customer(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    contact: dict[str, Any],
    delivery: dict[str, Any] | None = None,
) -> str:
    addresses: dict[str, Any] = {"KontaktAdr": contact}
    if delivery is not None:
        addresses["LiefAdr"] = delivery
    payload = {"GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "B"}, "Adressen": addresses}
    response = await client.post("/www/kunden", json=payload, headers=auth)
    assert response.status_code == 201, response.content
    number: str = body(response)["data"]["DebiNr"]
    return number


async def address_ids(client: httpx.AsyncClient, auth: dict[str, str], number: str) -> dict[str, int]:
    """KundKontakt, KundLief and KundRech of a customer, read from GET /www/kunden/{DebiNr}."""
    response = await client.get(f"/www/kunden/{number}", headers=auth)
    assert response.status_code == 200, response.content
    data = body(response)["data"]
    return {role: data[role] for role in ("KundKontakt", "KundLief", "KundRech")}


async def contact_of(client: httpx.AsyncClient, auth: dict[str, str], contact: dict[str, Any]) -> int:
    """A new customer with this contact address; its AdrNr."""
    number = await create_customer(client, auth, contact)
    return (await address_ids(client, auth, number))["KundKontakt"]


async def read(client: httpx.AsyncClient, auth: dict[str, str], address: int) -> dict[str, Any]:
    response = await client.get(f"/www/adressen/{address}", headers=auth)
    assert response.status_code == 200, response.content
    data: dict[str, Any] = body(response)["data"]
    return data


async def patch(client: httpx.AsyncClient, auth: dict[str, str], address: int, changes: Any) -> httpx.Response:
    return await client.patch(f"/www/adressen/{address}", json=changes, headers=auth)


def links(address: int, rel: str = "adressen") -> list[dict[str, str]]:
    href = f"{BASE}/www/adressen/{address}"
    return [{"href": href, "type": "GET", "rel": rel}, {"href": href, "type": "PATCH", "rel": rel}]


def entry(address: int, record: dict[str, Any]) -> dict[str, Any]:
    return {"AdrNr": address, **record, "links": links(address)}


# GET /www/adressen/{AdrNr}


async def test_address_is_the_exact_output_record_in_order(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    full = {
        "AdrSprache": "ita",
        "EmailAdress": "info@ferramenta.ch",
        "AdrAdresse1": "Via Nassa 7",
        "AdrAdresse2": "Casella postale 12",
        "AdrAnrede": 1,
        "AdrFax": "+41 91 000 00 03",
        "AdrFirma": "Ferramenta Ticino SA",
        "AdrFirma2": "Reparto vendite",
        "AdrVorname": "Marco",
        "AdrName": "Rossi",
        "AdrTelex": "+41 79 000 00 01",
        "AdrTf1": "+41 91 000 00 02",
        "AdrTf2": "+41 91 000 00 00",
        "OrtLand": "CH",
        "OrtName": "Lugano",
        "OrtPLZ": "6900",
    }
    address = await contact_of(client, auth, full)

    response = await client.get(f"/www/adressen/{address}", headers=auth)

    assert response.status_code == 200
    data = body(response)["data"]
    assert list(data) == OUTPUT_FIELDS
    assert data == {**full, "AdrAnredeText": "Signor"}
    assert body(response) == {"data": data}


@pytest.mark.parametrize(
    ("language", "salutation", "text"),
    [
        ("ger", 1, "Herr"),
        ("ger", 2, "Frau"),
        ("fre", 1, "Monsieur"),
        ("fre", 2, "Madame"),
        ("ita", 1, "Signor"),
        ("ita", 2, "Signora"),
        ("eng", 1, "Mr"),
        ("eng", 2, "Ms"),
        ("ger", 0, None),
        ("fre", 0, None),
        ("spa", 1, "Herr"),
        ("spa", 2, "Frau"),
    ],
)
async def test_salutation_text_follows_language_and_salutation(
    client: httpx.AsyncClient, auth: dict[str, str], language: str, salutation: int, text: str | None
) -> None:
    address = await contact_of(client, auth, {**ANNA, "AdrSprache": language, "AdrAnrede": salutation})

    data = await read(client, auth, address)

    assert data == {**ANNA_OUT, "AdrSprache": language, "AdrAnrede": salutation, "AdrAnredeText": text}


async def test_unknown_address_is_404(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/www/adressen/987654", headers=auth)

    assert response.status_code == 404
    assert body(response) == error("not_found", "no such address", AdrNr=987654)


@pytest.mark.parametrize("raw", ["abc", "12a", "-1", "99999999999"])
async def test_address_number_must_be_a_whole_number(client: httpx.AsyncClient, auth: dict[str, str], raw: str) -> None:
    response = await client.get(f"/www/adressen/{raw}", headers=auth)

    assert response.status_code == 400
    assert body(response) == error("invalid_request", f"AdrNr must be a whole number, not {raw!r}", field="AdrNr")


# GET /www/adressen?debinr=


async def test_addresses_of_customer_by_role(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    number = await create_customer(client, auth, ANNA, LAGER)
    ids = await address_ids(client, auth, number)
    contact, delivery = ids["KundKontakt"], ids["KundLief"]
    assert ids["KundRech"] == contact != delivery

    response = await client.get(f"/www/adressen?debinr={number}", headers=auth)

    assert response.status_code == 200
    assert body(response) == {
        "count": 3,
        "success": True,
        "data": {
            "KundKontakt": [entry(contact, ANNA_OUT)],
            "KundLief": [entry(delivery, LAGER_OUT)],
            "KundRech": [entry(contact, ANNA_OUT)],
        },
    }
    first = body(response)["data"]["KundKontakt"][0]
    assert list(first) == ["AdrNr", *OUTPUT_FIELDS, "links"]


async def test_addresses_of_customer_without_delivery_address_share_the_contact(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    number = await create_customer(client, auth, ANNA)
    contact = (await address_ids(client, auth, number))["KundKontakt"]

    response = await client.get(f"/www/adressen?debinr={number}", headers=auth)

    assert response.status_code == 200
    same = [entry(contact, ANNA_OUT)]
    assert body(response) == {
        "count": 3,
        "success": True,
        "data": {"KundKontakt": same, "KundLief": same, "KundRech": same},
    }


@pytest.mark.parametrize("query", ["", "?debinr=", "?debinr=%20%20"])
async def test_addresses_of_customer_need_debinr(client: httpx.AsyncClient, auth: dict[str, str], query: str) -> None:
    response = await client.get(f"/www/adressen{query}", headers=auth)

    assert response.status_code == 400
    assert body(response) == error("invalid_request", "debinr is required", field="debinr")


async def test_addresses_of_unknown_customer_is_404(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/www/adressen?debinr=999999", headers=auth)

    assert response.status_code == 404
    data = body(response)
    assert (data["success"], data["error"], data["error_description"]) == (
        False,
        "not_found",
        "no such customer",
    )


async def test_addresses_of_unknown_customer_name_the_parameter(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.get("/www/adressen?debinr=999999", headers=auth)

    assert body(response)["info"].get("field") == "debinr"


# PATCH /www/adressen/{AdrNr}


async def test_patch_is_204_without_body(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, {"AdrTf1": "+41 44 000 00 00"})

    assert response.status_code == 204
    assert response.content == b""


async def test_patch_keeps_omitted_fields_and_changes_given_ones(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    address = await contact_of(client, auth, {**ANNA, "AdrAdresse2": "3. Stock", "EmailAdress": "a@b.ch"})

    response = await patch(client, auth, address, {"AdrVorname": "Anne", "AdrTf1": "044 000 00 00"})

    assert response.status_code == 204
    assert await read(client, auth, address) == {
        **ANNA_OUT,
        "AdrAdresse2": "3. Stock",
        "EmailAdress": "a@b.ch",
        "AdrVorname": "Anne",
        "AdrTf1": "044 000 00 00",
    }


async def test_patch_with_empty_object_changes_nothing(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, {})

    assert response.status_code == 204
    assert await read(client, auth, address) == ANNA_OUT


@pytest.mark.parametrize("headers", [{}, {"Content-Type": "application/json"}])
async def test_patch_without_a_body_changes_nothing(
    client: httpx.AsyncClient, auth: dict[str, str], headers: dict[str, str]
) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await client.patch(f"/www/adressen/{address}", content=b"", headers={**auth, **headers})

    assert (response.status_code, response.content) == (204, b"")
    assert await read(client, auth, address) == ANNA_OUT
    unknown = await client.patch("/www/adressen/999999", headers=auth)
    assert (unknown.status_code, body(unknown)["error"]) == (404, "not_found")


@pytest.mark.parametrize("empty", [None, ""])
@pytest.mark.parametrize("field", ["AdrAdresse2", "EmailAdress"])
async def test_patch_null_or_empty_clears_an_optional_field(
    client: httpx.AsyncClient, auth: dict[str, str], field: str, empty: str | None
) -> None:
    address = await contact_of(client, auth, {**ANNA, "AdrAdresse2": "Postfach", "EmailAdress": "a@b.ch"})

    response = await patch(client, auth, address, {field: empty})

    assert response.status_code == 204
    expected = {**ANNA_OUT, "AdrAdresse2": "Postfach", "EmailAdress": "a@b.ch", field: None}
    assert await read(client, auth, address) == expected


REQUIRED_TEXT = ["AdrAdresse1", "OrtName", "OrtPLZ", "OrtLand", "AdrSprache"]


@pytest.mark.parametrize(
    ("field", "empty"),
    # AdrAnrede is a number: "" for it is a type error (test_patch_validates_like_input).
    [*((name, None) for name in REQUIRED_TEXT), *((name, "") for name in REQUIRED_TEXT), ("AdrAnrede", None)],
)
async def test_patch_cannot_clear_a_required_field(
    client: httpx.AsyncClient, auth: dict[str, str], field: str, empty: str | None
) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, {field: empty})

    assert response.status_code == 400
    assert body(response) == error("invalid_request", "is required", field=field)
    assert await read(client, auth, address) == ANNA_OUT


@pytest.mark.parametrize(
    ("changes", "description", "field"),
    [
        ({"AdrFirma": "F" * 37}, "must have at most 36 characters", "AdrFirma"),
        ({"AdrAdresse1": "S" * 61}, "must have at most 60 characters", "AdrAdresse1"),
        ({"OrtLand": "XX"}, "'XX' is not an ISO 3166 alpha-2 country code", "OrtLand"),
        (
            {"AdrSprache": "deu"},
            "'deu' is not an ISO 639-2/B language code (e.g. ger, fre, ita, eng)",
            "AdrSprache",
        ),
        ({"AdrAnrede": 3}, "must be 0 (company or general), 1 (Mr) or 2 (Ms)", "AdrAnrede"),
        ({"AdrAnrede": "1"}, "must be a whole number", "AdrAnrede"),
        ({"AdrAnrede": ""}, "must be a whole number", "AdrAnrede"),
        ({"AdrName": 42}, "must be text", "AdrName"),
        ({"EmailAdress": "not-an-email"}, "is not a plausible e-mail address", "EmailAdress"),
        ({"AdrName": None}, "a company name or a last name is required", "AdrName"),
        ({"AdrName": ""}, "a company name or a last name is required", "AdrName"),
    ],
)
async def test_patch_validates_like_input(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    changes: dict[str, Any],
    description: str,
    field: str,
) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, changes)

    assert response.status_code == 400
    assert body(response) == error("invalid_request", description, field=field)
    assert await read(client, auth, address) == ANNA_OUT


async def test_patch_clears_last_name_when_a_company_is_given(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, {"AdrName": None, "AdrFirma": "Müller AG"})

    assert response.status_code == 204
    assert await read(client, auth, address) == {**ANNA_OUT, "AdrName": None, "AdrFirma": "Müller AG"}


async def test_patch_checks_and_corrects_a_changed_swiss_place(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, {"OrtPLZ": "3011", "OrtName": "berne"})

    assert response.status_code == 204
    assert await read(client, auth, address) == {**ANNA_OUT, "OrtPLZ": "3011", "OrtName": "Bern"}


async def test_patch_rejects_an_unknown_swiss_postal_code(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, {"OrtPLZ": "9901"})

    assert response.status_code == 400
    assert body(response) == error("invalid_request", "'9901' is not a Swiss postal code", field="OrtPLZ")
    assert await read(client, auth, address) == ANNA_OUT


async def test_patch_of_the_email_only_does_not_recheck_the_place(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    # Stored unchecked (AdrCheck 0): "Zurich" without its umlaut would be corrected by a check.
    address = await contact_of(client, auth, {**ANNA, "OrtName": "Zurich", "AdrCheck": 0})

    response = await patch(client, auth, address, {"EmailAdress": "anna@example.ch"})

    assert response.status_code == 204
    assert await read(client, auth, address) == {
        **ANNA_OUT,
        "OrtName": "Zurich",
        "EmailAdress": "anna@example.ch",
    }


async def test_patch_of_the_place_rechecks_it(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, {**ANNA, "OrtName": "Zurich", "AdrCheck": 0})

    response = await patch(client, auth, address, {"OrtName": "zurich"})

    assert response.status_code == 204
    assert (await read(client, auth, address))["OrtName"] == "Zürich"


async def test_patch_of_an_unknown_address_is_404(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await patch(client, auth, 987654, {"AdrTf1": "044 000 00 00"})

    assert response.status_code == 404
    assert body(response)["error"] == "not_found"


async def test_patch_of_an_unknown_address_names_adrnr(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await patch(client, auth, 987654, {"AdrTf1": "044 000 00 00"})

    assert body(response) == error("not_found", "address 987654 does not exist", field="AdrNr")


async def test_patch_needs_a_numeric_address(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.patch("/www/adressen/x1", json={}, headers=auth)

    assert response.status_code == 400
    assert body(response) == error("invalid_request", "AdrNr must be a whole number, not 'x1'", field="AdrNr")


async def test_patch_body_must_be_json(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await client.patch(
        f"/www/adressen/{address}",
        content=b"AdrName=Meier",
        headers={**auth, "Content-Type": "text/plain"},
    )

    assert response.status_code == 415
    assert body(response) == error("unsupported_media_type", "the body must be JSON (Content-Type: application/json)")


async def test_patch_rejects_malformed_json(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await client.patch(
        f"/www/adressen/{address}",
        content=b'{"AdrName": "Meier"',
        headers={**auth, "Content-Type": "application/json"},
    )

    assert response.status_code == 400
    data = body(response)
    description = data.pop("error_description")
    assert data == {"success": False, "error": "invalid_request", "info": {}}
    assert description.startswith("the body is not valid JSON: ")  # then the parser's own message
    assert await read(client, auth, address) == ANNA_OUT


async def test_patch_rejects_a_json_array(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)

    response = await patch(client, auth, address, [{"AdrName": "Meier"}])

    assert response.status_code == 400
    assert body(response) == error("invalid_request", "the body must be a JSON object")


async def test_patch_understands_an_iso_8859_1_body(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, {**ANNA, "AdrName": "Meier", "OrtName": "Bern", "OrtPLZ": "3011"})
    raw = json.dumps({"AdrName": "Müller", "OrtName": "Zürich", "OrtPLZ": "8001"}, ensure_ascii=False)

    response = await client.patch(
        f"/www/adressen/{address}",
        content=raw.encode("iso-8859-1"),
        headers={**auth, "Content-Type": "application/json; charset=iso-8859-1"},
    )

    assert response.status_code == 204
    assert await read(client, auth, address) == ANNA_OUT


async def test_patch_stores_any_text_exactly(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    address = await contact_of(client, auth, ANNA)
    changes = {
        "AdrFirma": "東京 Trading 株式会社",
        "AdrFirma2": "Ωmega Ελλάς",
        "AdrVorname": "Zoë François",
        "AdrName": "Łukasz Żółć",
        "AdrAdresse1": "ul. Piotrkowska 104",
        "AdrAdresse2": "Straße ½ – €",
        "OrtLand": "PL",
        "OrtName": "Łódź",
        "OrtPLZ": "90-001",
        "AdrTf2": "𝄞 +48 42 000",
    }

    response = await patch(client, auth, address, changes)

    assert response.status_code == 204
    read_back = await client.get(f"/www/adressen/{address}", headers=auth)
    assert read_back.headers["content-type"] == JSON_TYPE
    assert read_back.content.isascii()  # every character beyond ASCII is a JSON escape
    assert body(read_back)["data"] == {**ANNA_OUT, **changes}


# GET /www/adressensuche


async def test_search_identifies_one_customer(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    number = await create_customer(client, auth, ANNA, LAGER)
    await create_customer(client, auth, {**ANNA, "AdrName": "Meier"})
    ids = await address_ids(client, auth, number)

    response = await client.get("/www/adressensuche", params={"AdrName": "Müller"}, headers=auth)

    assert response.status_code == 200
    assert body(response) == {
        "data": {
            "KundLief": ids["KundLief"],
            "KundRech": ids["KundRech"],
            "KundKontakt": ids["KundKontakt"],
            "DebiNr": number,
            # The specification's relations, in its order: space-separated relation types (RFC 8288).
            "links": [
                *links(ids["KundRech"], "adressen KundRech"),
                *links(ids["KundKontakt"], "adressen KundKontakt"),
                *links(ids["KundLief"], "adressen KundLief"),
                {"href": f"{BASE}/www/kunden/{number}", "type": "GET", "rel": "kunden"},
            ],
        }
    }


async def test_search_finds_a_customer_by_its_delivery_address(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    number = await create_customer(client, auth, ANNA, LAGER)

    response = await client.get("/www/adressensuche", params={"AdrFirma": "dépôt léman sa"}, headers=auth)

    assert response.status_code == 200
    assert body(response)["data"]["DebiNr"] == number


async def test_search_counts_a_customer_matching_with_several_addresses_once(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    number = await create_customer(client, auth, ANNA, {**ANNA, "AdrAdresse1": "Seestrasse 9"})

    response = await client.get("/www/adressensuche", params={"AdrName": "Müller"}, headers=auth)

    assert response.status_code == 200
    assert body(response)["data"]["DebiNr"] == number


@pytest.mark.parametrize("name", ["MÜLLER", "müller", "  Müller  ", "mÜlLeR"])
async def test_search_ignores_case_and_surrounding_spaces(
    client: httpx.AsyncClient, auth: dict[str, str], name: str
) -> None:
    number = await create_customer(client, auth, ANNA)

    response = await client.get("/www/adressensuche", params={"AdrName": name}, headers=auth)

    assert response.status_code == 200
    assert body(response)["data"]["DebiNr"] == number


async def test_search_folds_the_stored_value_too(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    number = await create_customer(client, auth, {**ANNA, "AdrName": "  ÖZTÜRK  ", "OrtName": "ZÜRICH"})

    response = await client.get("/www/adressensuche", params={"AdrName": "öztürk", "OrtName": "zürich"}, headers=auth)

    assert response.status_code == 200
    assert body(response)["data"]["DebiNr"] == number


@pytest.mark.parametrize(
    ("stored", "searched"),
    [
        ("ΠΑΠΑΔΟΠΟΥΛΟΣ", "ΠΑΠΑΔΟΠΟΥΛΟΣ"),  # Python lower-cases the last Σ to a final sigma, PostgreSQL's lower() not
        ("İLHAN", "İlhan"),  # U+0130: Python lower-cases it to i and a combining dot, PostgreSQL's to i
        ("İlhan", "ilhan"),
        ("ilhan", "İLHAN"),
    ],
)
async def test_search_finds_a_name_however_its_database_folds_it(
    client: httpx.AsyncClient, auth: dict[str, str], stored: str, searched: str
) -> None:
    """The searched value is folded where the stored one is: a customer searched by the name as it is stored
    is found on PostgreSQL too, not made a second time by a shop that found none."""
    number = await create_customer(client, auth, {**ANNA, "AdrName": stored})

    response = await client.get("/www/adressensuche", params={"AdrName": searched}, headers=auth)

    assert response.status_code == 200
    assert body(response)["data"]["DebiNr"] == number


async def test_search_needs_every_given_field_to_match(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    await create_customer(client, auth, ANNA)
    bern = await create_customer(client, auth, {**ANNA, "OrtName": "Bern", "OrtPLZ": "3011"})

    found = await client.get("/www/adressensuche", params={"AdrName": "Müller", "OrtPLZ": "3011"}, headers=auth)
    missed = await client.get("/www/adressensuche", params={"AdrName": "Meier", "OrtPLZ": "3011"}, headers=auth)

    assert found.status_code == 200
    assert body(found)["data"]["DebiNr"] == bern
    assert missed.status_code == 404


async def test_search_without_match_is_404(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    await create_customer(client, auth, ANNA)

    response = await client.get("/www/adressensuche", params={"AdrName": "Niemand"}, headers=auth)

    assert response.status_code == 404
    assert body(response) == error("not_found", "no customer has an address with these fields")


@pytest.mark.parametrize("customers", [2, 3])
async def test_search_matching_several_customers_is_409(
    client: httpx.AsyncClient, auth: dict[str, str], customers: int
) -> None:
    for _ in range(customers):
        await create_customer(client, auth, ANNA)
    await create_customer(client, auth, {**ANNA, "AdrName": "Meier"})

    response = await client.get("/www/adressensuche", params={"AdrName": "müller"}, headers=auth)

    assert response.status_code == 409
    assert body(response) == error(
        "conflict", f"{customers} customers have an address with these fields", count=customers
    )


@pytest.mark.parametrize("query", ["", "?AdrName=", "?AdrName=%20", "?AdrAnrede=2", "?unknown=x"])
async def test_search_needs_a_search_field(client: httpx.AsyncClient, auth: dict[str, str], query: str) -> None:
    await create_customer(client, auth, ANNA)

    response = await client.get(f"/www/adressensuche{query}", headers=auth)

    assert response.status_code == 400
    assert body(response) == error("invalid_request", "give at least one address field to search by")
