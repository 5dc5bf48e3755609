"""JSON Schemas (OpenAPI 3.1) of the REST shapes: the shapes say which fields a resource has and where
they come from, the GraphQL types behind them say their types and nullability, and the database columns
(schema/constraints.py) their maximum lengths. A field added to a shape appears here by itself."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from graphql import (
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    get_named_type,
    get_nullable_type,
)

from rest_compat.inputs import INT_RANGE, In, InputShape
from rest_compat.shapes import Field, Group, Links, Shape, yes_no
from schema.constraints import codes, max_length

JsonSchema = dict[str, Any]

INT32 = {"type": "integer", "format": "int32", "minimum": INT_RANGE[0], "maximum": INT_RANGE[1]}
SCALARS: dict[str, JsonSchema] = {
    "String": {"type": "string"},
    "Int": INT32,
    "Float": {"type": "number"},
    "Boolean": {"type": "boolean"},
    "UtcDateTime": {"type": "string", "format": "date-time", "description": "UTC, ISO 8601 with Z"},
    "Base64": {"type": "string", "contentEncoding": "base64"},
}
# Values a field can take, where the type alone does not say (REST names).
ENUMS: dict[str, list[Any]] = {
    "AuftStatus": ["N", "O", "A", "P"],
    "PlanStatus": ["N", "O", "A"],
    "Preisart": ["N", "B"],
    "AdrAnrede": [0, 1, 2],
    "AdrCheck": [0, 1],
    "PosWUSTKlasse": ["D", "C", "X"],
}
# Fields (and query parameters) that take a code of a list, checked in any case with spaces around.
CODES = {
    "WaehrAbk": "currency",
    "waehrabk": "currency",
    "AdrSprache": "language",
    "adrsprache": "language",
    "OrtLand": "country",
}
CONVERTED: dict[object, JsonSchema] = {yes_no: {"type": "string", "enum": ["J", "N"]}}
# Text a request field may hold: no NUL (PostgreSQL cannot store it); required ones with a visible character.
OPTIONAL_TEXT = r"^[^\u0000]*$"
REQUIRED_TEXT = r"^[^\u0000]*\S[^\u0000]*$"
INPUT_KINDS: dict[type, JsonSchema] = {
    str: {"type": "string"},
    int: INT32,
    float: {"type": "number"},
    bool: {"type": "boolean"},
}
LINK: JsonSchema = {"$ref": "#/components/schemas/Link"}


def code_values(kind: str, *, required: bool) -> list[str]:
    """The codes a field takes (the server also takes them in any case, with spaces around); not required:
    also "", since an empty value counts as not given. An enum, not a pattern of them all: schemathesis draws
    from a list at once, where a pattern of 500 alternatives made generating a body too slow."""
    values = sorted(codes(kind))
    return values if required else ["", *values]


def code_pattern(kind: str) -> str:
    """Any code of the list in any case, with spaces around, or nothing: a query parameter as the server
    reads it (trimmed, case folded, empty = not given)."""
    alternatives = "|".join(
        sorted("".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in code) for code in codes(kind))
    )
    return rf"^\s*(?:{alternatives})?\s*$"


def names_pattern(names: Iterable[str], *, most: int, signed: bool = False) -> str:
    """A comma-separated list of these names (`fields`; `sorts` with + or - in front), spaces and empty
    entries allowed, as the server reads it, and at most `most` entries (its limit)."""
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=lambda name: (-len(name), name)))
    sign = r"[+\-]*\s*" if signed else ""
    entry = rf"\s*(?:{sign}(?:{alternatives})\s*)?"
    return rf"^{entry}(?:,{entry}){{0,{most - 1}}}$"


def shape_names(shape: Shape, prefix: str = "") -> list[str]:
    """The names `fields` may select: every entry, and nested ones with a dot."""
    names = []
    for name, entry in shape.fields.items():
        names.append(prefix + name)
        if isinstance(entry, Field) and entry.shape is not None:
            names += shape_names(entry.shape, f"{prefix}{name}.")
    return names


def _any_case(code: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in code)


def nullable(schema: JsonSchema) -> JsonSchema:
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    kinds = schema.get("type")
    if isinstance(kinds, str):
        schema = {**schema, "type": [kinds, "null"]}
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    return schema


class Schemas:
    def __init__(self, graphql: GraphQLSchema) -> None:
        self.graphql = graphql

    # Responses

    def output(
        self, shape: Shape, type_name: str, *, all_nullable: bool = False, every_field: bool = True
    ) -> JsonSchema:
        """The object a shape renders from a GraphQL object of `type_name`; `every_field=False` for a route
        whose `fields` parameter may leave fields out."""
        properties, required = self._output_fields(shape, type_name, all_nullable, every_field)
        return {"type": "object", "properties": properties, "required": required if every_field else []}

    def _output_fields(
        self, shape: Shape, type_name: str, all_nullable: bool, every_field: bool = True
    ) -> tuple[JsonSchema, list[str]]:
        graphql_type = self.graphql.get_type(type_name)
        assert isinstance(graphql_type, GraphQLObjectType), type_name
        properties: JsonSchema = {}
        required: list[str] = []
        for name, entry in shape.fields.items():
            if isinstance(entry, Group):  # a REST object of fields of the same GraphQL object (GrundDaten)
                properties[name] = self.output(
                    entry.shape, type_name, all_nullable=all_nullable, every_field=every_field
                )
            elif isinstance(entry, Links):
                properties[name] = {"type": "array", "items": LINK}
            else:
                properties[name] = self._output_field(
                    name, entry, type_name, graphql_type.fields[entry.source], every_field
                )
                if all_nullable:
                    properties[name] = nullable(properties[name])
                if entry.omit_null:
                    continue
            required.append(name)
        return properties, required

    def _output_field(
        self, name: str, entry: Field, type_name: str, field: GraphQLField, every_field: bool
    ) -> JsonSchema:
        inner = get_nullable_type(field.type)
        is_list = isinstance(inner, GraphQLList)
        named = get_named_type(field.type)
        if entry.shape is not None:
            item = self.output(entry.shape, named.name, every_field=every_field)
            schema = {"type": "array", "items": item} if is_list else item
            if not isinstance(field.type, GraphQLNonNull) and entry.null_record:
                schema = self.output(entry.shape, named.name, all_nullable=True, every_field=every_field)
        elif entry.convert in CONVERTED:
            schema = dict(CONVERTED[entry.convert])
        else:
            scalar = dict(SCALARS.get(named.name, {}))
            length = max_length(type_name, entry.source)
            if length is not None and scalar.get("type") == "string":
                scalar["maxLength"] = length
            if name in ENUMS:
                scalar["enum"] = ENUMS[name]
            schema = {"type": "array", "items": scalar} if is_list else scalar
        if field.description:
            schema["description"] = field.description
        if not isinstance(field.type, GraphQLNonNull) and not entry.omit_null and not entry.null_record:
            schema = nullable(schema)
        return schema

    # Requests

    def input(self, shape: InputShape, *, partial: bool = False) -> JsonSchema:
        """The body a shape reads; `partial` (PATCH): nothing is required."""
        properties: JsonSchema = {}
        required: list[str] = []
        for name, entry in shape.fields.items():
            properties[name] = self._input_field(name, entry, shape.graphql_type, partial)
            if entry.required and not partial:
                required.append(name)
        schema: JsonSchema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema

    def _input_field(self, name: str, entry: In, type_name: str, partial: bool) -> JsonSchema:
        required = entry.required and not partial
        if entry.shape is not None:
            record = self.input(entry.shape, partial=partial)
            schema: JsonSchema = {"type": "array", "items": record} if entry.many else record
            if entry.many and required:
                schema["minItems"] = 1
        else:
            schema = dict(INPUT_KINDS[entry.kind])
            if entry.kind is str:
                schema["pattern"] = REQUIRED_TEXT if entry.required else OPTIONAL_TEXT
                if name in CODES:
                    del schema["pattern"]
                    schema["enum"] = code_values(CODES[name], required=entry.required)
                length = max_length(type_name, entry.target)
                if length is not None and name not in CODES:
                    schema["maxLength"] = length
            if name in ENUMS:
                schema["enum"] = ENUMS[name]
        # An optional field may be sent as null (it then counts as not given, or clears it on PATCH); a
        # required one of a partial change (PATCH) may be left out, but given, it must have a value.
        return schema if entry.required else nullable(schema)
