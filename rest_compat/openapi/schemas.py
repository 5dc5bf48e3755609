"""JSON Schemas (OpenAPI 3.1) of the REST shapes: the shapes say which fields a resource has and where
they come from, the GraphQL types behind them say their types and nullability, and the database columns
(schema/constraints.py) their maximum lengths. A field added to a shape appears here by itself."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLList,
    GraphQLNamedType,
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

# The characters Python's str.strip() and str.split() take for white space (the server trims and splits with
# them), spelled out: `\s` means other ones in JSON Schema's regular expressions (ECMA 262: \ufeff is one,
# \x1c-\x1f and \x85 are not) and in Python's.
WHITE = "\\t\\n\\u000b\\f\\r \\u001c-\\u001f\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
BLANK = f"[{WHITE}]*"

INT32 = {"type": "integer", "format": "int32", "minimum": INT_RANGE[0], "maximum": INT_RANGE[1]}
SCALARS: dict[str, JsonSchema] = {
    "String": {"type": "string"},
    "Int": INT32,
    "Float": {"type": "number"},
    "Boolean": {"type": "boolean"},
    "UtcDateTime": {"type": "string", "format": "date-time", "description": "UTC, ISO 8601 with Z"},
    "Base64": {"type": "string", "contentEncoding": "base64"},
}
# Values a field can take, where its GraphQL type does not say (REST names; GraphQL enums list their own).
# tests/rest_compat/test_openapi_domain.py holds each list to the domain's behaviour where it has one.
ENUMS: dict[str, list[Any]] = {
    "AuftStatus": ["N", "O", "A", "P"],
    "Preisart": ["N", "B"],
    "AdrAnrede": [0, 1, 2],
    "AdrCheck": [0, 1],
    "PosWUSTKlasse": ["D", "C", "X"],
    "Abschnitt": ["UST-Rekap"],
    # The salutation in the address's language (ger, fre, ita, eng; others take the German one).
    "AdrAnredeText": ["Frau", "Herr", "Madame", "Monsieur", "Mr", "Ms", "Signor", "Signora"],
}
# Fields (and query parameters) that take a code of a list, checked in any case with spaces around.
CODES = {
    "WaehrAbk": "currency",
    "waehrabk": "currency",
    "AdrSprache": "language",
    "adrsprache": "language",
    "OrtLand": "country",
}
# Request fields the domain reads as more than text. [0-9], not \d: Python's re (hypothesis, jsonschema) takes
# any Unicode digit for \d, the server only ASCII ones. The dates a pattern can tell from impossible ones: years
# 1000 to 9998 (a moment of the years 1 and 9999 may leave them in UTC), no February 29.
_DATE = (
    "(?:[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-"
    "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
)
_TIME = "(?:[01][0-9]|2[0-3])(?::[0-5][0-9](?::[0-5][0-9](?:[.,][0-9]{1,6})?)?)?"
_ZONE = "(?:Z|[+-](?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)"
# An ISO 8601 date, or date and time (datasources/sales/validation.py: moment); empty is not given.
MOMENT: JsonSchema = {"pattern": f"^(?:{BLANK}{_DATE}(?:[T ]{_TIME}{_ZONE}?)?{BLANK})?$", "maxLength": 32}
# A file in base64; the domain drops whitespace before it decodes.
BASE64: JsonSchema = {"contentEncoding": "base64", "pattern": f"^[A-Za-z0-9+/={WHITE}]*$"}
REQUIRED_BASE64: JsonSchema = {
    "contentEncoding": "base64",
    "pattern": f"^[A-Za-z0-9+/={WHITE}]*[A-Za-z0-9+/=][A-Za-z0-9+/={WHITE}]*$",
}
# An e-mail address as the domain finds it plausible (datasources/customers/validation.py), or blank.
_EMAIL_PART = f"[^@{WHITE}\\u0000]+"
EMAIL: JsonSchema = {"pattern": rf"^(?:{BLANK}|{_EMAIL_PART}@{_EMAIL_PART}\.{_EMAIL_PART})$"}
# A comma-separated list of K (credit card) and R (invoice), any case, or empty.
PAYMENT_METHODS: JsonSchema = {"pattern": f"^(?:(?:{BLANK},)*{BLANK}[KkRr]{BLANK}(?:,(?:{BLANK}[KkRr])?{BLANK})*)?$"}
FORMATS: dict[str, JsonSchema] = {
    "AuftBestellT": MOMENT,
    "AuftLieferT": MOMENT,
    "PDF": REQUIRED_BASE64,
    "XML": BASE64,
    "EmailAdress": EMAIL,
    "ZahlungsMethode": PAYMENT_METHODS,
}
# Numbers the domain bounds (datasources/sales/validation.py, customers/validation.py); 422 where it calls a
# number impossible rather than malformed (a quantity of 0), 400 otherwise. Every decimal is below 10^10.
LARGEST = 10**10
DECIMAL: JsonSchema = {"exclusiveMinimum": -LARGEST, "exclusiveMaximum": LARGEST}
NUMBERS: dict[str, JsonSchema] = {
    "Menge": {"exclusiveMinimum": 0, "exclusiveMaximum": LARGEST},
    "Preis": {"minimum": 0, "exclusiveMaximum": LARGEST},
    "GRabSatz": {"minimum": 0, "maximum": 100},
    "AuftLiefKost": {"minimum": 0, "exclusiveMaximum": LARGEST},
    "KundBedTyp": {"minimum": 0, "maximum": 255},
    "StaoNr": {"minimum": 0},
    "KreditLimit": {"minimum": 0},
}
# A changed position's Menge may be 0: the position goes.
CHANGED_QUANTITY: JsonSchema = {"minimum": 0, "exclusiveMaximum": LARGEST}
# Records that need one of two fields with a visible character (an address: a company or a last name).
ONE_OF_THEM: dict[str, tuple[str, ...]] = {"AddressInput": ("AdrFirma", "AdrName")}
# Names a field takes in any case, with spaces around (datasources/einvoice/operation.py).
CHOICES: dict[str, tuple[str, ...]] = {"Operation": ("Combine", "Extract")}
CONVERTED: dict[object, JsonSchema] = {yes_no: {"type": "string", "enum": ["J", "N"]}}
# Text a request field may hold: no NUL (PostgreSQL cannot store it); required ones with a visible character.
OPTIONAL_TEXT = r"^[^\u0000]*$"
REQUIRED_TEXT = f"^[^\\u0000]*[^{WHITE}\\u0000][^\\u0000]*$"
INPUT_KINDS: dict[type, JsonSchema] = {
    str: {"type": "string"},
    int: INT32,
    float: {"type": "number"},
    bool: {"type": "boolean"},
}
LINK: JsonSchema = {"$ref": "#/components/schemas/Link"}


def code_values(kind: str, *, required: bool) -> list[str]:
    """The codes a field or query parameter takes, in upper and in lower case (the server folds the case
    and trims spaces; schemathesis' coverage phase sends a listed code in the other case as one the
    document does not allow); not required: also "", since an empty value counts as not given. An enum, not
    a pattern of them all: hypothesis builds a strategy from a pattern for every case it draws, which for
    500 alternatives took seconds each."""
    values = _code_values(kind)
    return list(values) if required else ["", *values]


@cache
def _code_values(kind: str) -> tuple[str, ...]:
    # Sorted once per kind: ~16,000 language codes, asked for by some 85 fields and parameters (the document's
    # first build took ~1 s more without).
    return tuple(sorted({variant for code in codes(kind) for variant in (code.upper(), code.lower())}))


def choice_pattern(names: Iterable[str]) -> str:
    """One of these names in any case, with spaces around."""
    return f"^{BLANK}(?:{'|'.join(map(_any_case, names))}){BLANK}$"


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

    @staticmethod
    def _scalar(named: GraphQLNamedType) -> JsonSchema:
        if isinstance(named, GraphQLEnumType):  # REST sends the GraphQL enum's names (PlanStatus)
            return {"type": "string", "enum": list(named.values)}
        return dict(SCALARS.get(named.name, {}))

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
            scalar = self._scalar(named)
            length = max_length(type_name, entry.source)
            if length is not None and scalar.get("type") == "string":
                scalar["maxLength"] = length
            if name in ENUMS:
                scalar["enum"] = ENUMS[name]
            elif CODES.get(name) == "currency":  # as stored: the domain takes ISO 4217 codes only, upper case
                scalar["enum"] = sorted(codes("currency"))
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
        if not partial and shape.graphql_type in ONE_OF_THEM:
            # Each alternative whole (not a refinement of the field's own schema): generators then draw
            # from it directly instead of filtering the field's values.
            schema["anyOf"] = [
                {
                    "required": [name],
                    "properties": {name: {**properties[name], "type": "string", "pattern": REQUIRED_TEXT}},
                }
                for name in ONE_OF_THEM[shape.graphql_type]
            ]
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
                schema.update(self._text(name, entry, type_name))
            elif entry.kind in (int, float):
                schema.update(self._number(name, entry, type_name))
            if name in ENUMS:
                schema["enum"] = ENUMS[name]
        # An optional field may be sent as null (it then counts as not given, or clears it on PATCH); a
        # required one of a partial change (PATCH) may be left out, but given, it must have a value.
        return schema if entry.required else nullable(schema)

    @staticmethod
    def _text(name: str, entry: In, type_name: str) -> JsonSchema:
        """What a text field of a request holds: a code, a choice, a moment or a file, else text up to its
        column's length."""
        if name in CODES:
            return {"enum": code_values(CODES[name], required=entry.required)}
        if name in CHOICES:
            return {"pattern": choice_pattern(CHOICES[name])}
        schema: JsonSchema = dict(FORMATS.get(name, {"pattern": REQUIRED_TEXT if entry.required else OPTIONAL_TEXT}))
        length = max_length(type_name, entry.target)
        if length is not None and "maxLength" not in schema:
            schema["maxLength"] = length
        return schema

    @staticmethod
    def _number(name: str, entry: In, type_name: str) -> JsonSchema:
        if name == "Menge" and type_name == "PositionChangeInput":
            return CHANGED_QUANTITY
        return {**(DECIMAL if entry.kind is float else {}), **NUMBERS.get(name, {})}
