"""GET /www/openapi.json: a valid OpenAPI 3.1 document of every /www route, generated from the shapes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from rest_compat.routes import RESOURCES
from tests.http import body


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
        (path.replace("{id}", "{number}"), method.upper())
        for path, operations in document["paths"].items()
        for method in operations
    }
    routed = {
        (path.replace("{id}", "{number}"), method)
        for path, handlers in RESOURCES.items()
        for method in handlers
        if path != "/www/openapi.json"
    }
    assert routed | {("/www/token", "POST")} == described


def test_fields_carry_types_lengths_and_values(document: dict[str, Any]) -> None:
    order_input = document["paths"]["/www/auftrag"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    header = order_input["properties"]["GrundDaten"]["properties"]
    assert header["AuftBez"] == {"type": ["string", "null"], "pattern": r"^[^\u0000]*$", "maxLength": 80}
    assert header["KundNr"]["maxLength"] == 8 and "KundNr" in order_input["properties"]["GrundDaten"]["required"]
    address = order_input["properties"]["Adressen"]["properties"]["KontaktAdr"]
    assert address["properties"]["AdrName"]["maxLength"] == 36
    assert address["properties"]["AdrAnrede"]["enum"] == [0, 1, 2]
    assert "CHF" in address["properties"]["OrtLand"]["enum"] or "CH" in address["properties"]["OrtLand"]["enum"]

    order = document["paths"]["/www/auftrag/{number}"]["get"]["responses"]["200"]["content"]["application/json"]
    grund = order["schema"]["properties"]["data"]["properties"]["GrundDaten"]
    assert grund["properties"]["AuftStatus"]["enum"] == ["N", "O", "A", "P"]
    assert grund["properties"]["AuftBestellNr"]["maxLength"] == 36
    assert "description" in grund["properties"]["AuftNr"]


def test_a_field_added_to_a_shape_appears(document: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from rest_compat import articles
    from rest_compat.openapi import document as generator
    from rest_compat.shapes import Field
    from schema.execution import Executor
    from schema.schema import build_schema

    monkeypatch.setattr(articles, "SINGLE_ARTICLE", articles.SINGLE_ARTICLE.extend(ArtMedien=Field("media")))
    regenerated = generator.openapi_document(Executor(build_schema()))

    article = regenerated["paths"]["/www/artikel/{number}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert "ArtMedien" in article["schema"]["properties"]["data"]["properties"]
    old = document["paths"]["/www/artikel/{number}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert "ArtMedien" not in old["schema"]["properties"]["data"]["properties"]


async def test_every_error_status_has_the_error_body(document: dict[str, Any]) -> None:
    error = document["components"]["schemas"]["Error"]
    assert error["required"] == ["success", "error", "error_description", "info"]
    for name, answer in document["components"]["responses"].items():
        assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, name


async def test_the_document_needs_no_token_but_the_api_does(client: httpx.AsyncClient) -> None:
    assert (await client.get("/www/openapi.json")).status_code == 200
    assert body(await client.get("/www/artikel"))["error"] == "invalid_token"
