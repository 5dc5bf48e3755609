"""GET /www/openapi.json: a valid OpenAPI 3.1 document of every /www route, generated from the shapes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from rest_compat.openapi.schemas import MOMENT, OPTIONAL_TEXT, REQUIRED_TEXT
from rest_compat.routes import RESOURCES
from tests.http import body

# Texts the document leaves without a bound, each for a reason. Every other string of the document carries
# a maximum length, a list of values, a format or a pattern that says more than "any text".
UNBOUNDED = {
    "AMDText": "a media record's text is a TEXT column: as long as the ERP wrote it",
    "error_description": "the server's own sentence, for people; the `error` code is the enumeration",
}
# Patterns that bound nothing but NUL (and, for required text, a blank value).
SAYS_NOTHING = {OPTIONAL_TEXT, REQUIRED_TEXT, ""}


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/www/openapi.json")  # no token needed
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content.isascii()
    result: dict[str, Any] = response.json()
    return result


def test_it_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    validate(document)
    assert document["openapi"] == "3.1.0"


def test_every_route_and_method_is_described(document: dict[str, Any]) -> None:
    described = {
        (path, method.upper()) for path, item in document["paths"].items() for method in item if method != "description"
    }
    routed = {
        (path, method)
        for path, handlers in RESOURCES.items()
        for method in [*handlers, *(["HEAD"] if "GET" in handlers else [])]  # Starlette answers HEAD as GET
        if path != "/www/openapi.json"
    }
    assert routed | {("/www/token", "POST")} == described


def test_every_operation_may_time_out_and_every_path_says_its_other_methods(document: dict[str, Any]) -> None:
    for path, item in document["paths"].items():
        methods = [method for method in item if method != "description"]
        assert item["description"].endswith(f"Allow: {', '.join(method.upper() for method in methods)}"), path
        for method in methods:
            assert item[method]["responses"]["408"] == {"$ref": "#/components/responses/E408"}, (path, method)
    assert document["components"]["responses"]["E405"]["headers"]["Allow"]


def test_head_has_the_parameters_and_statuses_of_get_without_a_body(document: dict[str, Any]) -> None:
    for path, item in document["paths"].items():
        if "get" not in item:
            assert "head" not in item
            continue
        assert item["head"]["parameters"] == item["get"]["parameters"], path
        assert item["head"]["responses"].keys() == item["get"]["responses"].keys(), path
        assert not any("content" in answer for answer in item["head"]["responses"].values()), path


def test_fields_carry_types_lengths_and_values(document: dict[str, Any]) -> None:
    order_input = document["paths"]["/www/auftrag"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    header = order_input["properties"]["GrundDaten"]["properties"]
    assert header["AuftBez"] == {"type": ["string", "null"], "pattern": r"^[^\u0000]*$", "maxLength": 80}
    assert header["KundNr"]["maxLength"] == 8 and "KundNr" in order_input["properties"]["GrundDaten"]["required"]
    address = order_input["properties"]["Adressen"]["properties"]["KontaktAdr"]
    assert address["properties"]["AdrName"]["maxLength"] == 36
    assert address["properties"]["AdrAnrede"]["enum"] == [0, 1, 2]
    # The ISO lists are written once, in components.schemas (rest_compat/openapi/shared.py).
    country = address["properties"]["OrtLand"]
    assert country["$ref"] == "#/components/schemas/CountryCode"
    assert {"CH", "ch"} <= set(document["components"]["schemas"]["CountryCode"]["enum"])

    order = document["paths"]["/www/auftrag/{AuftNr}"]["get"]["responses"]["200"]["content"]["application/json"]
    grund = order["schema"]["properties"]["data"]["properties"]["GrundDaten"]
    assert grund["properties"]["AuftStatus"]["enum"] == ["N", "O", "A", "P"]
    assert grund["properties"]["AuftBestellNr"]["maxLength"] == 36
    assert "description" in grund["properties"]["AuftNr"]
    summary = order["schema"]["properties"]["data"]["properties"]["MWSTRekapitulation"]["items"]["properties"]
    assert summary["Abschnitt"]["enum"] == ["UST-Rekap"]
    assert summary["PosWUSTCode"]["maxLength"] == 6 and summary["PosWUSTBez"]["maxLength"] == 60
    assert summary["WaehrAbk"]["maxLength"] == 3 and "CHF" in summary["WaehrAbk"]["enum"]
    assert header["AuftBestellT"]["maxLength"] == 32 and header["AuftBestellT"]["pattern"] == MOMENT["pattern"]

    article = document["paths"]["/www/artikel/{ArtNr}"]["get"]["responses"]["200"]["content"]["application/json"]
    currency = article["schema"]["properties"]["data"]["properties"]["WaehrAbk"]
    assert currency["maxLength"] == 3 and "EUR" in currency["enum"]
    customer = document["paths"]["/www/kunden/{DebiNr}"]["get"]["responses"]["200"]["content"]["application/json"]
    order_entry = customer["schema"]["properties"]["data"]["properties"]["Auftrag"]["items"]["properties"]
    assert order_entry["AuftNr"]["maxLength"] == 10
    assert order_entry["PlanStatus"]["enum"] == ["N", "O", "A"]  # GraphQL's enum PlanStatus

    einvoice = document["paths"]["/www/zugferd"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert re.fullmatch(einvoice["properties"]["Operation"]["pattern"], " eXtract ")
    assert not re.fullmatch(einvoice["properties"]["Operation"]["pattern"], "Convert")


def strings(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema of the document that may be a string, with where it is."""
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "string" or (isinstance(kind, list) and "string" in kind):
            yield where, node
        for key, value in node.items():
            yield from strings(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from strings(value, f"{where}/{index}")


def test_every_text_has_a_bound(document: dict[str, Any]) -> None:
    unbounded = [
        where
        for where, schema in strings(document)
        if not {"maxLength", "enum", "const", "format", "$ref"} & schema.keys()
        and schema.get("pattern", "") in SAYS_NOTHING
    ]

    assert unbounded, "the walk finds the allowed ones"
    assert {where.rsplit("/", 1)[1] for where in unbounded} == set(UNBOUNDED), unbounded


def test_a_field_added_to_a_shape_appears(document: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from rest_compat import articles
    from rest_compat.openapi import document as generator
    from rest_compat.shapes import Field
    from schema.execution import Executor
    from schema.schema import build_schema

    monkeypatch.setattr(articles, "SINGLE_ARTICLE", articles.SINGLE_ARTICLE.extend(ArtMedien=Field("media")))
    regenerated = generator.openapi_document(Executor(build_schema()))

    article = regenerated["paths"]["/www/artikel/{ArtNr}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert "ArtMedien" in article["schema"]["properties"]["data"]["properties"]
    old = document["paths"]["/www/artikel/{ArtNr}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert "ArtMedien" not in old["schema"]["properties"]["data"]["properties"]


async def test_every_error_status_has_the_error_body(document: dict[str, Any]) -> None:
    error = document["components"]["schemas"]["Error"]
    assert error["required"] == ["success", "error", "error_description", "info"]
    for name, answer in document["components"]["responses"].items():
        assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, name


async def test_the_document_needs_no_token_but_the_api_does(client: httpx.AsyncClient) -> None:
    assert (await client.get("/www/openapi.json")).status_code == 200
    assert body(await client.get("/www/artikel"))["error"] == "invalid_token"
