"""The building blocks of the OpenAPI document: parameters, envelopes, responses, the error body."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_compat.conditional import MAX_IF_NONE_MATCH
from rest_compat.openapi.schemas import BLANK, LINK, OPTIONAL_TEXT, REQUIRED_TEXT, JsonSchema, code_values, shape_names
from rest_compat.params import MAX_INT
from rest_compat.shapes import Shape
from schema.constraints import max_length
from schema.limits import RequestLimits

JSON = "application/json"
ERROR = {"$ref": "#/components/schemas/Error"}
LINKS = {"type": "array", "items": LINK}
# A query parameter is trimmed by the server, and an empty one counts as not given.
TEXT = {"type": "string", "pattern": OPTIONAL_TEXT}
VISIBLE_TEXT = {"type": "string", "pattern": REQUIRED_TEXT}
WHOLE_NUMBER = {"type": "integer", "minimum": 0, "maximum": MAX_INT}
# A number in the query: or nothing, since an empty (or blank) parameter counts as not given.
WHOLE_NUMBER_OR_EMPTY = {"anyOf": [WHOLE_NUMBER, {"type": "string", "pattern": f"^{BLANK}$"}]}
ERRORS = {
    400: "Malformed input: a bad number, an unknown `fields`/`sorts` name, a wrong type, a text too long, a "
    "missing required field, a limit exceeded (`info.field` names it)",
    401: "A missing, expired or tampered bearer token (`WWW-Authenticate: Bearer`)",
    403: "The token's scopes do not allow this (`insufficient_scope`)",
    404: "Nothing with that number (`not_found`)",
    405: "Not a method of this path (`method_not_allowed`; `Allow` and `info.allow` list the path's methods)",
    408: "The request's head or body did not arrive in time (`request_timeout`); the connection is closed",
    409: "A conflict with what is stored (`conflict`)",
    410: "The cursor is older than the changes kept (`gone`): read the whole list again",
    413: "The body is over its limit (`payload_too_large`)",
    415: "The body is not `application/json` in UTF-8 or ISO-8859-1 (`unsupported_media_type`)",
    422: "Well-formed but impossible: an unknown article, a packaging unit not offered, no price (`unprocessable`)",
    429: "Over a rate limit: requests of the token's user, or tokens (`rate_limited`, `Retry-After`)",
    500: "Unexpected (`internal`; `info.request_id` is in the log)",
    503: "The database is away or did not answer in time (`unavailable`, `Retry-After`)",
}
# The methods a `Link` names (`type`), and a list of methods (`Allow`).
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
ALLOW = "^(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)(?:, (?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS))*$"
# A JWS in compact serialisation: three base64url parts.
JWT = r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"
READS = (400, 401, 403, 404, 429, 500, 503)
# Conditional GETs of the catalogue (rest_compat/conditional.py): a strong tag, If-None-Match, 304.
ETAG = {
    "schema": {"type": "string", "pattern": '^"[0-9a-f]{32}"$'},
    "description": "A strong entity tag of this answer: it changes when anything the answer holds changes (the "
    "ERP's own writes too), and only then. Send it back in If-None-Match.",
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "maxLength": MAX_IF_NONE_MATCH},
    "description": "ETags of answers held (a list; W/ tags compare weakly), or *: 304 Not Modified when the "
    "answer would carry one of them now, decided without making the answer",
}
VARY = {
    "schema": {"const": "Accept-Encoding"},
    "description": "A compressed answer (Accept-Encoding: gzip) has a tag of its own",
}
NOT_MODIFIED = {
    "description": "Not Modified: the answer would be one that If-None-Match names; no body",
    "headers": {"ETag": ETAG, "Vary": VARY},
}
WRITES = (400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503)
ERROR_CODES = [
    "invalid_request",
    "invalid_token",
    "invalid_client",
    "insufficient_scope",
    "not_found",
    "method_not_allowed",
    "request_timeout",
    "conflict",
    "gone",
    "payload_too_large",
    "unsupported_media_type",
    "unprocessable",
    "rate_limited",
    "internal",
    "unavailable",
    "endpoint",
]


def column_text(type_name: str, field: str) -> JsonSchema:
    """Text up to the length of the column it is looked up in: a longer one matches nothing (404)."""
    length = max_length(type_name, field)
    assert length is not None, (type_name, field)
    return {**TEXT, "maxLength": length}


CUSTOMER_NUMBER = column_text("Customer", "number")


def fields_query(shape: Shape) -> JsonSchema:
    description = "REST field names to return (nested ones with a dot); default all"
    return list_query("fields", shape_names(shape), most=RequestLimits().field_names, description=description)


def query(name: str, schema: JsonSchema, description: str, *, required: bool = False) -> JsonSchema:
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


def path(name: str, schema: JsonSchema, description: str) -> JsonSchema:
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": description}


def code_query(name: str, kind: str, description: str) -> JsonSchema:
    return query(name, {"type": "string", "enum": code_values(kind, required=False)}, description)


def list_query(name: str, names: Iterable[str], *, most: int, description: str) -> JsonSchema:
    """Comma-separated names (`fields`, `sorts`): OpenAPI's array in form style without explode, at most
    `most` of them (the server's limit)."""
    schema = {"type": "array", "items": {"type": "string", "enum": list(names)}, "maxItems": most}
    return {**query(name, schema, description), "style": "form", "explode": False}


def text_object(**fields: int) -> JsonSchema:
    """An object of required text fields with these maximum lengths ({"AuftNr": 10})."""
    properties = {name: {"type": "string", "maxLength": length} for name, length in fields.items()}
    return {"type": "object", "properties": properties, "required": list(fields)}


def envelope(data: JsonSchema, *, counted: bool = False, **more: JsonSchema) -> JsonSchema:
    """`{"data": ...}`, with `count` and `success` where the specification lists them."""
    properties: JsonSchema = {"data": data, **more}
    required = ["data", *more]
    if counted:
        properties = {"count": {"type": "integer", "minimum": 0}, "success": {"const": True}, **properties}
        required = ["count", "success", *required]
    return {"type": "object", "properties": properties, "required": required}


def answer(description: str, schema: JsonSchema) -> JsonSchema:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def tagged(ok: JsonSchema) -> JsonSchema:
    """A 200 answer with its ETag (and the Vary its tag names)."""
    return {**ok, "headers": {"ETag": ETAG, "Vary": VARY}}


def file_answer(description: str, *media_types: str) -> JsonSchema:
    return {"description": description, "content": {media_type: {"schema": {}} for media_type in media_types}}


def responses(success: dict[int, JsonSchema], errors: tuple[int, ...]) -> JsonSchema:
    answers: JsonSchema = {str(status): value for status, value in success.items()}
    for status in errors:
        answers[str(status)] = {"$ref": f"#/components/responses/E{status}"}
    return answers


def body(schema: JsonSchema, *, required: bool = True) -> JsonSchema:
    return {"required": required, "content": {JSON: {"schema": schema}}}


def components() -> dict[str, Any]:
    retry = {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait"}}
    error_answers: JsonSchema = {}
    for status, description in ERRORS.items():
        error_answers[f"E{status}"] = answer(description, ERROR)
        if status in (429, 503):
            error_answers[f"E{status}"]["headers"] = retry
        if status == 405:
            error_answers[f"E{status}"]["headers"] = {"Allow": {"schema": {"type": "string", "pattern": ALLOW}}}
        if status == 401:
            challenge = {"type": "string", "pattern": "^(?:Bearer|Basic)(?: |$)"}
            error_answers[f"E{status}"]["headers"] = {"WWW-Authenticate": {"schema": challenge}}
    return {
        "schemas": {
            "Error": {
                "type": "object",
                "description": "The one error body of every failure",
                "properties": {
                    "success": {"const": False},
                    "error": {"type": "string", "enum": ERROR_CODES},
                    "error_description": {"type": "string"},
                    "info": {"type": "object", "description": "`field` names the offending parameter or field"},
                },
                "required": ["success", "error", "error_description", "info"],
            },
            "Link": {
                "type": "object",
                "properties": {
                    "href": {"type": "string", "maxLength": 2048},
                    "type": {"type": "string", "enum": METHODS, "description": "The HTTP method"},
                    "rel": {
                        "type": "string",
                        "pattern": r"^[A-Za-z/]+(?: [A-Za-z/]+)*$",
                        "description": "Space-separated relation types (RFC 8288), as the specification names them",
                    },
                },
                "required": ["href", "type", "rel"],
            },
            "Token": {
                "type": "object",
                "properties": {
                    "access_token": {"type": "string", "pattern": JWT, "description": "A JWT (HS256)"},
                    "token_type": {"const": "Bearer"},
                    "expires_in": {"type": "integer", "minimum": 1, "description": "Lifetime in seconds"},
                },
                "required": ["access_token", "token_type", "expires_in"],
            },
        },
        "responses": error_answers,
        "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
            "basic": {"type": "http", "scheme": "basic"},
        },
    }
