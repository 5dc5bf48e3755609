"""GET /www/docs/openapi-3.0.json: /www/openapi.json in OpenAPI 3.0's terms, for Swagger UI (which renders
3.1 three times slower): a valid 3.0 document with the same operations and examples, nothing of 3.1 left."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator.validation import OpenAPIV30SpecValidator

from rest_compat.openapi.openapi30 import schema_30

METHODS = ("get", "head", "post", "put", "patch", "delete", "options")


@pytest.fixture
async def documents(client: httpx.AsyncClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """The 3.1 document and its 3.0 rendition, both read without a token."""
    rendition = await client.get("/www/docs/openapi-3.0.json")
    assert rendition.status_code == 200
    assert rendition.headers["content-type"] == "application/json"
    original = await client.get("/www/openapi.json")
    return original.json(), rendition.json()


def operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (path, method): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    }


def test_it_is_valid_openapi_3_0_with_the_same_operations(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    original, rendition = documents
    OpenAPIV30SpecValidator(rendition).validate()
    assert rendition["openapi"] == "3.0.3"
    assert rendition["info"] == original["info"]
    assert rendition["components"]["securitySchemes"] == original["components"]["securitySchemes"]
    ours, theirs = operations(original), operations(rendition)
    assert theirs.keys() == ours.keys()
    for key, operation in ours.items():
        assert theirs[key]["operationId"] == operation["operationId"]
        assert theirs[key]["tags"] == operation["tags"]
        assert [p["name"] for p in theirs[key].get("parameters", [])] == [
            p["name"] for p in operation.get("parameters", [])
        ]


def test_every_example_is_valid_against_its_3_0_schema(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    # Swagger UI's "Try it out" sends these: the schemas they are shown with still accept them.
    _, rendition = documents
    bodies = [op["requestBody"] for op in operations(rendition).values() if "requestBody" in op]
    examples = [(media["schema"], media["example"]) for body in bodies for media in body["content"].values()]
    assert len(examples) >= 7
    for schema, example in examples:
        OAS30Validator({**schema, "components": rendition["components"]}).validate(example)


def test_nothing_of_3_1_is_left(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, rendition = documents
    for schema in schemas(rendition):
        assert not isinstance(schema.get("type"), list)
        assert schema.get("type") != "null"
        assert "const" not in schema and "contentEncoding" not in schema
        assert isinstance(schema.get("exclusiveMinimum", True), bool)
        assert isinstance(schema.get("exclusiveMaximum", True), bool)
        assert "$ref" not in schema or len(schema) == 1


def schemas(node: Any, *, schema: bool = False) -> Iterator[dict[str, Any]]:
    """Every schema object of a document (those under `schema`, in components, and inside other schemas)."""
    if isinstance(node, list):
        for item in node:
            yield from schemas(item, schema=schema)
        return
    if not isinstance(node, dict):
        return
    if schema:
        yield node
        for key in ("items", "not", "additionalProperties"):
            yield from schemas(node.get(key), schema=True)
        for key in ("allOf", "anyOf", "oneOf"):
            yield from schemas(node.get(key, []), schema=True)
        yield from schemas(list(node.get("properties", {}).values()), schema=True)
        return
    for key, value in node.items():
        if key == "schemas" and isinstance(value, dict):
            yield from schemas(list(value.values()), schema=True)
        else:
            yield from schemas(value, schema=key == "schema")


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": ["string", "null"], "maxLength": 3}, {"type": "string", "maxLength": 3, "nullable": True}),
        ({"type": ["integer", "string"]}, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ({"const": True}, {"enum": [True]}),
        ({"type": "number", "exclusiveMinimum": 0}, {"type": "number", "minimum": 0, "exclusiveMinimum": True}),
        ({"type": "number", "exclusiveMaximum": 1e10}, {"type": "number", "maximum": 1e10, "exclusiveMaximum": True}),
        ({"type": "string", "contentEncoding": "base64"}, {"type": "string", "format": "byte"}),
        ({"type": "object", "required": []}, {"type": "object"}),
        (
            {"type": ["string", "null"], "$ref": "#/components/schemas/CountryCode"},
            {"allOf": [{"$ref": "#/components/schemas/CountryCode"}], "type": "string", "nullable": True},
        ),
        (
            {"anyOf": [{"$ref": "#/components/schemas/LanguageCode"}, {"const": ""}, {"type": "null"}]},
            {"anyOf": [{"$ref": "#/components/schemas/LanguageCode"}, {"enum": [""]}], "nullable": True},
        ),
        (
            {"type": "array", "items": {"type": ["number", "null"]}, "properties": {"a": {"const": 1}}},
            {"type": "array", "items": {"type": "number", "nullable": True}, "properties": {"a": {"enum": [1]}}},
        ),
    ],
)
def test_each_3_1_construct_in_3_0_terms(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert schema_30(schema) == expected
