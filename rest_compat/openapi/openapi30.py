"""The OpenAPI document in OpenAPI 3.0's terms, for Swagger UI only.

Swagger UI (5.x) reads a 3.1 document through ApiDOM, which turns the whole document into its own element tree
on every resolution: once when the page loads, again for the security schemes the Authorize button reads, again
for each operation opened. On these machines that took the page 3-4 s to show its operations, ~1.3 s for the
same document labelled 3.0 (swagger-api/swagger-ui#10748: 3.1 slow, 3.0.3 fast). The 3.1 document at
/www/openapi.json stays what generators and validators read; this rendition says the same in 3.0's words:
`nullable` for a null type, a one-value `enum` for `const`, boolean exclusive bounds, `allOf` around a `$ref` that
has siblings, `format: byte` for base64."""

from __future__ import annotations

from typing import Any

VERSION = "3.0.3"
# Where an OpenAPI document holds schemas: under these keys of any object (parameters, headers, media types).
SCHEMA_KEYS = ("schema",)
# A schema's keywords whose values are schemas, lists of schemas, or maps of them.
ONE_SCHEMA = ("items", "not", "additionalProperties")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
SCHEMA_MAPS = ("properties",)


def as_openapi_30(document: dict[str, Any]) -> dict[str, Any]:
    converted = _walk(document)
    components = converted.get("components", {})
    if "schemas" in components:
        components["schemas"] = {name: schema_30(schema) for name, schema in document["components"]["schemas"].items()}
    return {**converted, "openapi": VERSION}


def _walk(node: Any) -> Any:
    """Everything but schemas as it is; each schema met under `schema` converted."""
    if isinstance(node, list):
        return [_walk(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: schema_30(value) if key in SCHEMA_KEYS else _walk(value) for key, value in node.items()}


def schema_30(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema  # `additionalProperties: false`
    converted: dict[str, Any] = {}
    nullable = False
    for key, value in schema.items():
        if key == "type" and isinstance(value, list):
            types = [kind for kind in value if kind != "null"]
            nullable = nullable or len(types) < len(value)
            if len(types) == 1:
                converted["type"] = types[0]
            elif types:  # 3.0's type is one name
                converted["anyOf"] = [{"type": kind} for kind in types]
        elif key == "type" and value == "null":
            nullable = True
        elif key == "const":
            converted["enum"] = [value]
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
            converted[key.removeprefix("exclusive").lower()] = value
            converted[key] = True
        elif key == "contentEncoding":
            converted["format"] = "byte" if value == "base64" else value
        elif key in ONE_SCHEMA:
            converted[key] = schema_30(value)
        elif key in SCHEMA_LISTS:
            alternatives = [schema_30(item) for item in value]
            # 3.0 has no null type: a null alternative is the schema's `nullable`.
            kept = [item for item in alternatives if item != {"nullable": True}]
            nullable = nullable or len(kept) < len(alternatives)
            converted[key] = kept
        elif key == "required" and not value:
            pass  # 3.0 (JSON Schema draft 4) wants at least one name
        elif key in SCHEMA_MAPS:
            converted[key] = {name: schema_30(item) for name, item in value.items()}
        else:
            converted[key] = value
    if "$ref" in converted and len(converted) > 1:
        # 3.0 ignores the siblings of a $ref: the reference goes inside allOf, so that they count.
        converted = {"allOf": [{"$ref": converted.pop("$ref")}], **converted}
    if nullable:
        converted["nullable"] = True
    return converted
